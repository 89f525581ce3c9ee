// SPDX-License-Identifier: MIT
/* iterative-read INPUT OUTPUT [GPUID]
 * iterative-devmem-offset-read INPUT OUTPUT [GPUID]   (built with USE_BUFFER_OFFSET)
 *
 * INPUT must exist (any non-zero size; CTest seeds it with examples_tmpdriver --seed-input).
 * Reads INPUT into one GPU buffer IR_CHUNK bytes per hipFileRead, writes the buffer to OUTPUT
 * with hipFileWrite and checks that both files hash the same. iterative-read passes a device
 * pointer that advances through the buffer (base + bytes read so far) with buffer_offset 0;
 * iterative-devmem-offset-read registers the buffer and passes its base with a buffer_offset
 * that advances instead. The last read is short when the size is not a multiple of IR_CHUNK.
 * Prints "OK  <input> == <output>  (<n> bytes, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

#include "examples_common.h"

#ifndef IR_CHUNK
#define IR_CHUNK ((size_t)64 << 10)
#endif

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s INPUT OUTPUT [GPUID]   (INPUT must exist)\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *in_path = argv[1];
    const char *out_path = argv[2];
    const int gpu_id = argc == 4 ? std::atoi(argv[3]) : 0;

    size_t size = 0, block_size = 0;
    if (stat_file(in_path, &size, &block_size)) return EXIT_FAILURE;
    if (size == 0) {
        std::fprintf(stderr, "%s is empty\n", in_path);
        return EXIT_FAILURE;
    }
    const size_t buf_size = align_up(size, IR_CHUNK);

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, buf_size), "hipMalloc")) return EXIT_FAILURE;
    int status = EXIT_FAILURE;
    int in_fd = -1, out_fd = -1;
    hipFileHandle_t in_handle = nullptr, out_handle = nullptr;
    bool buf_registered = false;

    do {
#ifdef USE_BUFFER_OFFSET
        const hipFileError_t reg = hipFileBufRegister(gpu_buf, buf_size, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        buf_registered = true;
#endif
        if (open_file(in_path, O_RDONLY | O_DIRECT, 0, &in_fd, &in_handle)) break;
        if (open_file(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &out_fd,
                      &out_handle))
            break;
        size_t done = 0;
        bool failed = false;
        while (done < size && !failed) {
#ifdef USE_BUFFER_OFFSET
            const ssize_t got =
                hipFileRead(in_handle, gpu_buf, IR_CHUNK, (hoff_t)done, (hoff_t)done);
#else
            const ssize_t got = hipFileRead(in_handle, static_cast<char *>(gpu_buf) + done,
                                            IR_CHUNK, (hoff_t)done, 0);
#endif
            if (got < 0) {
                print_io_error(got, "hipFileRead");
                failed = true;
            } else if (got == 0) {
                std::fprintf(stderr, "hipFileRead: %s ends at %zu, expected %zu bytes\n", in_path,
                             done, size);
                failed = true;
            } else {
                done += (size_t)got;
            }
        }
        if (failed) break;
        if (!moved_all(hipFileWrite(out_handle, gpu_buf, size, 0, 0), size, "hipFileWrite")) break;
        status = EXIT_SUCCESS;
    } while (false);

    if (out_fd >= 0 && close_file(out_path, out_fd, out_handle)) status = EXIT_FAILURE;
    if (in_fd >= 0 && close_file(in_path, in_fd, in_handle)) status = EXIT_FAILURE;
    if (buf_registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(in_path, out_path, size, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (%zu bytes, hash 0x%016llx)\n", in_path, out_path, size,
                (unsigned long long)hash);
    return EXIT_SUCCESS;
}
