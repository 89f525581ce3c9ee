// SPDX-License-Identifier: MIT
/* aiscp SOURCE DEST
 *
 * Copies SOURCE to DEST through GPU 0's memory, like cp(1) copies a file: prints nothing on
 * success, an error on stderr otherwise. Both files are opened with O_DIRECT. The GPU buffer is
 * the smaller of the file and the largest transfer hipFile makes in one call (0x7ffff000 bytes,
 * Linux's MAX_RW_COUNT), rounded up to SOURCE's block size (st_blksize). Each chunk is read with
 * hipFileRead and written with hipFileWrite rounded up to a whole block, so the writes stay
 * block-aligned; DEST is then cut back to SOURCE's size with ftruncate. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "examples_common.h"

/* The most hipFileRead / hipFileWrite move in one call. */
#define AISCP_MAX_CHUNK ((size_t)0x7ffff000)

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s SOURCE DEST\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *src_path = argv[1];
    const char *dst_path = argv[2];

    size_t size = 0, block_size = 0;
    if (stat_file(src_path, &size, &block_size)) return EXIT_FAILURE;
    if (!is_power_of_two(block_size)) {
        std::fprintf(stderr, "%s: block size %zu is not a power of two\n", src_path, block_size);
        return EXIT_FAILURE;
    }
    const size_t chunk = size < AISCP_MAX_CHUNK ? size : AISCP_MAX_CHUNK;
    const size_t buf_size = align_up(chunk == 0 ? 1 : chunk, block_size);

    hipError_t hip_err = hipSetDevice(0);
    if (hip_err != hipSuccess) {
        std::fprintf(stderr, "hipSetDevice failed: %s\n", hipGetErrorString(hip_err));
        return EXIT_FAILURE;
    }
    void *gpu_buf = nullptr;
    int src_fd = -1, dst_fd = -1;
    hipFileHandle_t src_handle = nullptr, dst_handle = nullptr;
    int status = EXIT_FAILURE;

    do {
        hip_err = hipMalloc(&gpu_buf, buf_size);
        if (hip_err != hipSuccess) {
            std::fprintf(stderr, "hipMalloc of %zu bytes failed: %s\n", buf_size,
                         hipGetErrorString(hip_err));
            gpu_buf = nullptr;
            break;
        }
        if (open_file(src_path, O_RDONLY | O_DIRECT, 0, &src_fd, &src_handle)) break;
        if (open_file(dst_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &dst_fd,
                      &dst_handle))
            break;
        size_t done = 0;
        bool failed = false;
        while (done < size && !failed) {
            const size_t want = size - done < chunk ? size - done : chunk;
            const ssize_t got = hipFileRead(src_handle, gpu_buf, want, (hoff_t)done, 0);
            if (got <= 0) {
                if (got < 0)
                    print_io_error(got, "hipFileRead");
                else
                    std::fprintf(stderr, "%s ended at %zu of %zu bytes\n", src_path, done, size);
                failed = true;
                break;
            }
            /* A whole number of blocks: the bytes past `got` are written, then cut off. */
            const size_t put = align_up((size_t)got, block_size);
            if (!moved_all(hipFileWrite(dst_handle, gpu_buf, put, (hoff_t)done, 0), put,
                           "hipFileWrite"))
                failed = true;
            done += (size_t)got;
        }
        if (failed) break;
        if (ftruncate(dst_fd, (off_t)size) != 0) {
            std::fprintf(stderr, "ftruncate %s failed: %s\n", dst_path, std::strerror(errno));
            break;
        }
        status = EXIT_SUCCESS;
    } while (false);

    if (dst_fd >= 0 && close_file(dst_path, dst_fd, dst_handle)) status = EXIT_FAILURE;
    if (src_fd >= 0 && close_file(src_path, src_fd, src_handle)) status = EXIT_FAILURE;
    if (gpu_buf) (void)hipFree(gpu_buf);
    return status;
}
