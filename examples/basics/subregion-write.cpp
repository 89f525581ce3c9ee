// SPDX-License-Identifier: MIT
/* subregion-write INPUT OUTPUT [GPUID]
 *
 * INPUT must exist and be larger than SW_OFFSET bytes (CTest seeds it with examples_tmpdriver
 * --seed-input). Reads all of INPUT into a registered GPU buffer with one hipFileRead, then
 * writes the buffer's subregion from SW_OFFSET to the end to OUTPUT (at file offset 0) with a
 * non-zero buffer_offset, and checks OUTPUT against INPUT's bytes from SW_OFFSET on.
 * Prints "OK  <input>@<offset> == <output>  (<n> bytes, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

#include "examples_common.h"

#ifndef SW_OFFSET
#define SW_OFFSET ((size_t)12288)
#endif

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s INPUT OUTPUT [GPUID]   (INPUT must exist, > %zu bytes)\n",
                     argv[0], (size_t)SW_OFFSET);
        return EXIT_FAILURE;
    }
    const char *in_path = argv[1];
    const char *out_path = argv[2];
    const int gpu_id = argc == 4 ? std::atoi(argv[3]) : 0;

    size_t size = 0, block_size = 0;
    if (stat_file(in_path, &size, &block_size)) return EXIT_FAILURE;
    if (size <= SW_OFFSET) {
        std::fprintf(stderr, "%s has %zu bytes, needs more than %zu\n", in_path, size,
                     (size_t)SW_OFFSET);
        return EXIT_FAILURE;
    }
    const size_t tail = size - SW_OFFSET;

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, size), "hipMalloc")) return EXIT_FAILURE;
    int status = EXIT_FAILURE;
    int in_fd = -1, out_fd = -1;
    hipFileHandle_t in_handle = nullptr, out_handle = nullptr;
    bool buf_registered = false;

    do {
        const hipFileError_t reg = hipFileBufRegister(gpu_buf, size, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        buf_registered = true;
        if (open_file(in_path, O_RDONLY | O_DIRECT, 0, &in_fd, &in_handle)) break;
        if (open_file(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &out_fd,
                      &out_handle))
            break;
        if (!moved_all(hipFileRead(in_handle, gpu_buf, size, 0, 0), size, "hipFileRead")) break;
        if (!moved_all(hipFileWrite(out_handle, gpu_buf, tail, 0, (hoff_t)SW_OFFSET), tail,
                       "hipFileWrite"))
            break;
        status = EXIT_SUCCESS;
    } while (false);

    if (out_fd >= 0 && close_file(out_path, out_fd, out_handle)) status = EXIT_FAILURE;
    if (in_fd >= 0 && close_file(in_path, in_fd, in_handle)) status = EXIT_FAILURE;
    if (buf_registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    if (status != EXIT_SUCCESS) return status;

    size_t out_size = 0;
    uint64_t in_hash = 0, out_hash = 0;
    if (stat_file(out_path, &out_size, &block_size)) return EXIT_FAILURE;
    if (out_size != tail) {
        std::fprintf(stderr, "%s has %zu bytes, expected %zu\n", out_path, out_size, tail);
        return EXIT_FAILURE;
    }
    if (hash_file_range(in_path, (off_t)SW_OFFSET, tail, &in_hash)) return EXIT_FAILURE;
    if (hash_file_range(out_path, 0, tail, &out_hash)) return EXIT_FAILURE;
    if (in_hash != out_hash) {
        std::fprintf(stderr, "Hash mismatch: %s@%zu=0x%016llx  %s=0x%016llx\n", in_path,
                     (size_t)SW_OFFSET, (unsigned long long)in_hash, out_path,
                     (unsigned long long)out_hash);
        return EXIT_FAILURE;
    }
    std::printf("OK  %s@%zu == %s  (%zu bytes, hash 0x%016llx)\n", in_path, (size_t)SW_OFFSET,
                out_path, tail, (unsigned long long)out_hash);
    return EXIT_SUCCESS;
}
