// SPDX-License-Identifier: MIT
/* roundtrip-sync READ_FILE WRITE_FILE [GPUID]
 * roundtrip-verify CREATED COPIED [GPUID]   (the same program under upstream's name)
 *
 * Seeds READ_FILE with RS_SIZE bytes of the test pattern, reads it into GPU memory with
 * hipFileRead, writes it back out to WRITE_FILE with hipFileWrite, and verifies both files hash
 * the same. Prints "OK  <read> == <write>  (<n> bytes, hash 0x<16 hex>)" on success. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "examples_common.h"

#ifndef RS_SIZE
#define RS_SIZE (4u << 20)
#endif

static bool moved_all(ssize_t got, const char *what) {
    if (got == (ssize_t)RS_SIZE) return true;
    if (got == -1)
        std::fprintf(stderr, "%s failed: %s\n", what, std::strerror(errno));
    else if (got < 0)
        std::fprintf(stderr, "%s failed: %s\n", what, HIPFILE_ERRSTR(got));
    else
        std::fprintf(stderr, "%s moved %zd of %u bytes\n", what, got, RS_SIZE);
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
    if (seed_read_file(read_path, RS_SIZE)) return EXIT_FAILURE;

    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, RS_SIZE), "hipMalloc")) return EXIT_FAILURE;
    int status = EXIT_FAILURE;
    int read_fd = -1, write_fd = -1;
    hipFileHandle_t read_handle = nullptr, write_handle = nullptr;
    bool buf_registered = false;

    do {
        const hipFileError_t reg = hipFileBufRegister(gpu_buf, RS_SIZE, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        buf_registered = true;
        if (open_file(read_path, O_RDONLY, 0, &read_fd, &read_handle)) break;
        if (open_file(write_path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &write_fd, &write_handle))
            break;
        if (!moved_all(hipFileRead(read_handle, gpu_buf, RS_SIZE, 0, 0), "hipFileRead")) break;
        if (!moved_all(hipFileWrite(write_handle, gpu_buf, RS_SIZE, 0, 0), "hipFileWrite")) break;
        status = EXIT_SUCCESS;
    } while (false);

    if (write_fd >= 0 && close_file(write_path, write_fd, write_handle)) status = EXIT_FAILURE;
    if (read_fd >= 0 && close_file(read_path, read_fd, read_handle)) status = EXIT_FAILURE;
    if (buf_registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(read_path, write_path, RS_SIZE, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (%u bytes, hash 0x%016llx)\n", read_path, write_path, RS_SIZE,
                (unsigned long long)hash);
    return EXIT_SUCCESS;
}
