// SPDX-License-Identifier: MIT
/* bufregister-write OUTPUT [GPUID]
 * no-bufregister-write OUTPUT [GPUID]   (built with NO_BUFREGISTER)
 * no-odirect-write OUTPUT [GPUID]       (built with NO_ODIRECT)
 *
 * Fills BW_SIZE bytes of GPU memory with the test pattern (hipMemcpy from the host) and writes
 * them to OUTPUT with one hipFileWrite, then hashes OUTPUT with plain reads and compares it with
 * the pattern. bufregister-write registers the GPU buffer with hipFileBufRegister first;
 * no-bufregister-write leaves it unregistered (hipFile looks the allocation up on each call).
 * Both open OUTPUT with O_DIRECT. no-odirect-write registers the buffer but opens OUTPUT without
 * O_DIRECT: hipFile opens its own O_DIRECT descriptor for the file where the file system allows
 * it, so the data path is the same. Prints "OK  <path>  (<n> bytes, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "examples_common.h"

#ifndef BW_SIZE
#define BW_SIZE ((size_t)1 << 20)
#endif

#ifdef NO_ODIRECT
#define BW_OPEN_FLAGS (O_WRONLY | O_CREAT | O_TRUNC)
#else
#define BW_OPEN_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT)
#endif

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s OUTPUT [GPUID]\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *path = argv[1];
    const int gpu_id = argc == 3 ? std::atoi(argv[2]) : 0;

    std::vector<unsigned char> pattern(BW_SIZE);
    fill_pattern(pattern.data(), pattern.size());
    const uint64_t expected = hash_buffer(pattern.data(), pattern.size());

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, BW_SIZE), "hipMalloc")) return EXIT_FAILURE;
    int status = EXIT_FAILURE;
    int fd = -1;
    hipFileHandle_t handle = nullptr;
    bool buf_registered = false;

    do {
        if (!hip_ok(hipMemcpy(gpu_buf, pattern.data(), BW_SIZE, hipMemcpyHostToDevice),
                    "hipMemcpy"))
            break;
#ifndef NO_BUFREGISTER
        const hipFileError_t reg = hipFileBufRegister(gpu_buf, BW_SIZE, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        buf_registered = true;
#endif
        if (open_file(path, BW_OPEN_FLAGS, 0644, &fd, &handle)) break;
        if (!moved_all(hipFileWrite(handle, gpu_buf, BW_SIZE, 0, 0), BW_SIZE, "hipFileWrite"))
            break;
        status = EXIT_SUCCESS;
    } while (false);

    if (fd >= 0 && close_file(path, fd, handle)) status = EXIT_FAILURE;
    if (buf_registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (hash_file_range(path, 0, BW_SIZE, &hash)) return EXIT_FAILURE;
    if (hash != expected) {
        std::fprintf(stderr, "Hash mismatch: %s=0x%016llx  pattern=0x%016llx\n", path,
                     (unsigned long long)hash, (unsigned long long)expected);
        return EXIT_FAILURE;
    }
    std::printf("OK  %s  (%zu bytes, hash 0x%016llx)\n", path, (size_t)BW_SIZE,
                (unsigned long long)hash);
    return EXIT_SUCCESS;
}
