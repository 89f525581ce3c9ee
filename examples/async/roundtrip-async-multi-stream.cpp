// SPDX-License-Identifier: MIT
/* roundtrip-async-multi-stream READ_FILE WRITE_FILE [GPUID]
 * roundtrip-async-multi-stream-registered READ_FILE WRITE_FILE [GPUID]  (built with
 * REGISTER_STREAMS)
 *
 * Splits a NUM_STREAMS * SLICE_SIZE file into slices; slice i is read into its own GPU buffer
 * with hipFileReadAsync and written back with hipFileWriteAsync, both on non-blocking stream i.
 * Streams run concurrently; on each stream the write follows the read. The registered variant
 * registers each buffer and each stream (with the FIXED_* and PAGE_ALIGNED_INPUTS flags).
 * Prints "OK  <read> == <write>  (<n> bytes across <k> [registered ]streams, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

#include "examples_common.h"

#ifndef NUM_STREAMS
#define NUM_STREAMS 4
#endif
#ifndef SLICE_SIZE
#define SLICE_SIZE ((size_t)1 << 20)
#endif
#define TOTAL_SIZE ((size_t)NUM_STREAMS * SLICE_SIZE)

#ifdef REGISTER_STREAMS
#define STREAM_KIND "registered streams"
#else
#define STREAM_KIND "streams"
#endif

/* Everything one slice needs, kept alive until its stream is synchronized: the async calls read
 * size and offsets through these pointers and write the byte counts back into them. */
struct slice_state {
    hipStream_t stream = nullptr;
    void *gpu_buf = nullptr;
    size_t size = SLICE_SIZE;
    hoff_t file_offset = 0;
    hoff_t buffer_offset = 0;
    ssize_t bytes_read = -1;
    ssize_t bytes_written = -1;
    bool stream_created = false;
    bool stream_registered = false;
    bool buf_registered = false;
};

static bool hipfile_ok(hipFileError_t status, const char *what) {
    if (status.err == hipFileSuccess) return true;
    if (IS_HIP_DRV_ERR(status))
        std::fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(HIP_DRV_ERR(status)));
    else
        std::fprintf(stderr, "%s failed: %s\n", what, hipFileGetOpErrorString(status.err));
    return false;
}

static bool set_up(slice_state &s, int index) {
    s.file_offset = (hoff_t)index * (hoff_t)SLICE_SIZE;
    if (!hip_ok(hipMalloc(&s.gpu_buf, SLICE_SIZE), "hipMalloc")) return false;
#ifdef REGISTER_STREAMS
    if (!hipfile_ok(hipFileBufRegister(s.gpu_buf, SLICE_SIZE, 0), "hipFileBufRegister"))
        return false;
    s.buf_registered = true;
#endif
    if (!hip_ok(hipStreamCreateWithFlags(&s.stream, hipStreamNonBlocking), "hipStreamCreate"))
        return false;
    s.stream_created = true;
    if (!hip_ok(hipMemsetAsync(s.gpu_buf, 0, SLICE_SIZE, s.stream), "hipMemsetAsync")) return false;
#ifdef REGISTER_STREAMS
    const unsigned flags = HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                           HIPFILE_STREAM_FIXED_FILE_SIZE | HIPFILE_STREAM_PAGE_ALIGNED_INPUTS;
    if (!hipfile_ok(hipFileStreamRegister(s.stream, flags), "hipFileStreamRegister")) return false;
    s.stream_registered = true;
#endif
    return true;
}

static bool tear_down(slice_state &s) {
    bool ok = true;
    if (s.stream_registered)
        ok &= hipfile_ok(hipFileStreamDeregister(s.stream), "hipFileStreamDeregister");
    if (s.stream_created) ok &= hip_ok(hipStreamDestroy(s.stream), "hipStreamDestroy");
    if (s.buf_registered) ok &= hipfile_ok(hipFileBufDeregister(s.gpu_buf), "hipFileBufDeregister");
    if (s.gpu_buf) ok &= hip_ok(hipFree(s.gpu_buf), "hipFree");
    return ok;
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
    if (seed_read_file(read_path, TOTAL_SIZE)) return EXIT_FAILURE;

    static slice_state slices[NUM_STREAMS];
    int read_fd = -1, write_fd = -1;
    hipFileHandle_t read_handle = nullptr, write_handle = nullptr;
    int status = EXIT_FAILURE;

    do {
        bool ok = true;
        for (int i = 0; i < NUM_STREAMS && ok; ++i) ok = set_up(slices[i], i);
        if (!ok) break;
        if (open_file(read_path, O_RDONLY, 0, &read_fd, &read_handle)) break;
        if (open_file(write_path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &write_fd, &write_handle))
            break;

        for (int i = 0; i < NUM_STREAMS && ok; ++i) {
            slice_state &s = slices[i];
            ok = hipfile_ok(hipFileReadAsync(read_handle, s.gpu_buf, &s.size, &s.file_offset,
                                             &s.buffer_offset, &s.bytes_read, s.stream),
                            "hipFileReadAsync");
        }
        for (int i = 0; i < NUM_STREAMS && ok; ++i) {
            slice_state &s = slices[i];
            ok = hipfile_ok(hipFileWriteAsync(write_handle, s.gpu_buf, &s.size, &s.file_offset,
                                              &s.buffer_offset, &s.bytes_written, s.stream),
                            "hipFileWriteAsync");
        }
        for (int i = 0; i < NUM_STREAMS; ++i) {
            if (slices[i].stream_created)
                ok &= hip_ok(hipStreamSynchronize(slices[i].stream), "hipStreamSynchronize");
        }
        if (!ok) break;
        for (int i = 0; i < NUM_STREAMS; ++i) {
            if (slices[i].bytes_read != (ssize_t)SLICE_SIZE ||
                slices[i].bytes_written != (ssize_t)SLICE_SIZE) {
                std::fprintf(stderr, "slice %d moved %zd bytes in and %zd out, expected %zu\n", i,
                             slices[i].bytes_read, slices[i].bytes_written, (size_t)SLICE_SIZE);
                ok = false;
            }
        }
        if (ok) status = EXIT_SUCCESS;
    } while (false);

    if (write_fd >= 0 && close_file(write_path, write_fd, write_handle)) status = EXIT_FAILURE;
    if (read_fd >= 0 && close_file(read_path, read_fd, read_handle)) status = EXIT_FAILURE;
    for (int i = 0; i < NUM_STREAMS; ++i) {
        if (!tear_down(slices[i])) status = EXIT_FAILURE;
    }
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(read_path, write_path, TOTAL_SIZE, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (%zu bytes across %d " STREAM_KIND ", hash 0x%016llx)\n", read_path,
                write_path, (size_t)TOTAL_SIZE, NUM_STREAMS, (unsigned long long)hash);
    return EXIT_SUCCESS;
}
