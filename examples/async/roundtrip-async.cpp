// SPDX-License-Identifier: MIT
/* roundtrip-async READ_FILE WRITE_FILE [GPUID]
 * roundtrip-async-nonblocking-stream READ_FILE WRITE_FILE [GPUID]   (built with USE_NONBLOCKING)
 *
 * Seeds READ_FILE with RV_SIZE bytes of the test pattern, then on one stream reads it into GPU
 * memory with hipFileReadAsync and writes it back to WRITE_FILE with hipFileWriteAsync. The
 * write sees the read's data because both are on the same stream. One hipStreamSynchronize,
 * then the byte counts and the files' hashes are checked. roundtrip-async uses the default
 * stream; roundtrip-async-nonblocking-stream an explicit hipStreamNonBlocking stream.
 * Prints "OK  <read> == <write>  (<n> bytes, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

#include "examples_common.h"

#ifndef RV_SIZE
#define RV_SIZE ((size_t)1 << 20)
#endif

static bool hipfile_ok(hipFileError_t status, const char *what) {
    if (status.err == hipFileSuccess) return true;
    if (IS_HIP_DRV_ERR(status))
        std::fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(HIP_DRV_ERR(status)));
    else
        std::fprintf(stderr, "%s failed: %s\n", what, hipFileGetOpErrorString(status.err));
    return false;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s READ_FILE WRITE_FILE [GPUID]\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *read_path = argv[1];
    const char *write_path = argv[2];
    const int gpu_id = argc == 4 ? std::atoi(argv[3]) : 0;

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    if (seed_read_file(read_path, RV_SIZE)) return EXIT_FAILURE;

    hipStream_t stream = nullptr; /* the default stream */
#ifdef USE_NONBLOCKING
    if (!hip_ok(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking),
                "hipStreamCreateWithFlags"))
        return EXIT_FAILURE;
#endif

    void *gpu_buf = nullptr;
    int read_fd = -1, write_fd = -1;
    hipFileHandle_t read_handle = nullptr, write_handle = nullptr;
    /* The async calls read these through their pointers: they live until the stream is synced. */
    size_t size = RV_SIZE;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes_read = -1, bytes_written = -1;
    int status = EXIT_FAILURE;

    do {
        if (!hip_ok(hipMalloc(&gpu_buf, RV_SIZE), "hipMalloc")) break;
        if (open_file(read_path, O_RDONLY, 0, &read_fd, &read_handle)) break;
        if (open_file(write_path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &write_fd, &write_handle))
            break;
        if (!hipfile_ok(hipFileReadAsync(read_handle, gpu_buf, &size, &file_offset, &buffer_offset,
                                         &bytes_read, stream),
                        "hipFileReadAsync"))
            break;
        if (!hipfile_ok(hipFileWriteAsync(write_handle, gpu_buf, &size, &file_offset,
                                          &buffer_offset, &bytes_written, stream),
                        "hipFileWriteAsync"))
            break;
        if (!hip_ok(hipStreamSynchronize(stream), "hipStreamSynchronize")) break;
        if (bytes_read != (ssize_t)RV_SIZE || bytes_written != (ssize_t)RV_SIZE) {
            std::fprintf(stderr, "moved %zd bytes in and %zd out, expected %zu\n", bytes_read,
                         bytes_written, (size_t)RV_SIZE);
            break;
        }
        status = EXIT_SUCCESS;
    } while (false);

    if (write_fd >= 0 && close_file(write_path, write_fd, write_handle)) status = EXIT_FAILURE;
    if (read_fd >= 0 && close_file(read_path, read_fd, read_handle)) status = EXIT_FAILURE;
    if (gpu_buf) (void)hipFree(gpu_buf);
    if (stream) (void)hipStreamDestroy(stream);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(read_path, write_path, RV_SIZE, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (%zu bytes, hash 0x%016llx)\n", read_path, write_path,
                (size_t)RV_SIZE, (unsigned long long)hash);
    return EXIT_SUCCESS;
}
