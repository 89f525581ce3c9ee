// SPDX-License-Identifier: MIT
/* read-write-check CREATED COPIED [GPUID]
 *
 * Writes RWC_SIZE (12 KiB) bytes of the test pattern from GPU memory to CREATED with
 * hipFileWrite, reads CREATED back into a second GPU buffer with hipFileRead, checks that buffer
 * against the pattern on the host, writes it to COPIED and checks that CREATED and COPIED hash
 * the same. Both files are created (or truncated) by the program.
 * Prints "OK  <created> == <copied>  (hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "examples_common.h"

#ifndef RWC_SIZE
#define RWC_SIZE ((size_t)12 << 10)
#endif

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s CREATED COPIED [GPUID]\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *created_path = argv[1];
    const char *copied_path = argv[2];
    const int gpu_id = argc == 4 ? std::atoi(argv[3]) : 0;

    std::vector<unsigned char> pattern(RWC_SIZE), readback(RWC_SIZE);
    fill_pattern(pattern.data(), pattern.size());

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *src_buf = nullptr, *dst_buf = nullptr;
    int created_fd = -1, copied_fd = -1;
    hipFileHandle_t created_handle = nullptr, copied_handle = nullptr;
    int status = EXIT_FAILURE;

    do {
        if (!hip_ok(hipMalloc(&src_buf, RWC_SIZE), "hipMalloc")) break;
        if (!hip_ok(hipMalloc(&dst_buf, RWC_SIZE), "hipMalloc")) break;
        if (!hip_ok(hipMemcpy(src_buf, pattern.data(), RWC_SIZE, hipMemcpyHostToDevice),
                    "hipMemcpy"))
            break;
        if (!hip_ok(hipMemset(dst_buf, 0, RWC_SIZE), "hipMemset")) break;
        if (open_file(created_path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644, &created_fd,
                      &created_handle))
            break;
        if (open_file(copied_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &copied_fd,
                      &copied_handle))
            break;
        if (!moved_all(hipFileWrite(created_handle, src_buf, RWC_SIZE, 0, 0), RWC_SIZE,
                       "hipFileWrite"))
            break;
        if (!moved_all(hipFileRead(created_handle, dst_buf, RWC_SIZE, 0, 0), RWC_SIZE,
                       "hipFileRead"))
            break;
        if (!hip_ok(hipMemcpy(readback.data(), dst_buf, RWC_SIZE, hipMemcpyDeviceToHost),
                    "hipMemcpy"))
            break;
        if (std::memcmp(readback.data(), pattern.data(), RWC_SIZE) != 0) {
            std::fprintf(stderr, "the bytes read back from %s differ from those written\n",
                         created_path);
            break;
        }
        if (!moved_all(hipFileWrite(copied_handle, dst_buf, RWC_SIZE, 0, 0), RWC_SIZE,
                       "hipFileWrite"))
            break;
        status = EXIT_SUCCESS;
    } while (false);

    if (copied_fd >= 0 && close_file(copied_path, copied_fd, copied_handle)) status = EXIT_FAILURE;
    if (created_fd >= 0 && close_file(created_path, created_fd, created_handle))
        status = EXIT_FAILURE;
    if (dst_buf) (void)hipFree(dst_buf);
    if (src_buf) (void)hipFree(src_buf);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(created_path, copied_path, RWC_SIZE, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (hash 0x%016llx)\n", created_path, copied_path,
                (unsigned long long)hash);
    return EXIT_SUCCESS;
}
