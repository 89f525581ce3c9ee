// SPDX-License-Identifier: MIT
/* offsetcp INPUT OUTPUT GPUID
 *
 * INPUT must exist and hold at least OFFSETCP_WRITE_OFFSET (8192) bytes. Reads all of INPUT into
 * one GPU buffer (its size rounded up to INPUT's block size) with hipFileRead, then writes the
 * bytes from OFFSETCP_WRITE_OFFSET to the end to OUTPUT at file offset 0: the buffer base stays
 * the same and buffer_offset selects the bytes. Writes are rounded up to a whole block and
 * OUTPUT is then cut to size with ftruncate. Both files are opened with O_DIRECT. Prints nothing
 * on success, an error on stderr otherwise. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "examples_common.h"

#ifndef OFFSETCP_WRITE_OFFSET
#define OFFSETCP_WRITE_OFFSET ((size_t)8192)
#endif

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s INPUT OUTPUT GPUID   (INPUT must exist, >= %zu bytes)\n",
                     argv[0], (size_t)OFFSETCP_WRITE_OFFSET);
        return EXIT_FAILURE;
    }
    const char *in_path = argv[1];
    const char *out_path = argv[2];
    const int gpu_id = std::atoi(argv[3]);

    size_t size = 0, block_size = 0;
    if (stat_file(in_path, &size, &block_size)) return EXIT_FAILURE;
    if (!is_power_of_two(block_size)) {
        std::fprintf(stderr, "%s: block size %zu is not a power of two\n", in_path, block_size);
        return EXIT_FAILURE;
    }
    const size_t offset = OFFSETCP_WRITE_OFFSET;
    if (size < offset) {
        std::fprintf(stderr, "%s has %zu bytes, fewer than the write offset %zu\n", in_path, size,
                     offset);
        return EXIT_FAILURE;
    }
    const size_t tail = size - offset;
    /* Room for the last write rounded up to a block, from any offset. */
    const size_t buf_size = align_up(size, block_size) + block_size;

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, buf_size), "hipMalloc")) return EXIT_FAILURE;
    int in_fd = -1, out_fd = -1;
    hipFileHandle_t in_handle = nullptr, out_handle = nullptr;
    int status = EXIT_FAILURE;

    do {
        if (open_file(in_path, O_RDONLY | O_DIRECT, 0, &in_fd, &in_handle)) break;
        if (open_file(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &out_fd,
                      &out_handle))
            break;
        if (size > 0 &&
            !moved_all(hipFileRead(in_handle, gpu_buf, size, 0, 0), size, "hipFileRead"))
            break;
        size_t done = 0;
        bool failed = false;
        while (done < tail && !failed) {
            const size_t put = align_up(tail - done, block_size);
            const ssize_t got =
                hipFileWrite(out_handle, gpu_buf, put, (hoff_t)done, (hoff_t)(offset + done));
            if (got <= 0) {
                if (got < 0)
                    print_io_error(got, "hipFileWrite");
                else
                    std::fprintf(stderr, "hipFileWrite to %s made no progress\n", out_path);
                failed = true;
            } else {
                done += (size_t)got;
            }
        }
        if (failed) break;
        if (ftruncate(out_fd, (off_t)tail) != 0) {
            std::fprintf(stderr, "ftruncate %s failed: %s\n", out_path, std::strerror(errno));
            break;
        }
        status = EXIT_SUCCESS;
    } while (false);

    if (out_fd >= 0 && close_file(out_path, out_fd, out_handle)) status = EXIT_FAILURE;
    if (in_fd >= 0 && close_file(in_path, in_fd, in_handle)) status = EXIT_FAILURE;
    (void)hipFree(gpu_buf);
    return status;
}
