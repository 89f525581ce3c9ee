// SPDX-License-Identifier: MIT
/* buffertofile DEST GPU
 *
 * Fills a BTF_SIZE (16 KiB) buffer on GPU number GPU with the byte 0x67 (hipMemset), registers
 * it with hipFileBufRegister and writes it to DEST (created or truncated, opened with O_DIRECT)
 * with one hipFileWrite. Prints nothing on success, an error on stderr otherwise. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

#include "examples_common.h"

#ifndef BTF_SIZE
#define BTF_SIZE ((size_t)16 << 10)
#endif
#define BTF_BYTE 0x67

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s DEST GPU\n", argv[0]);
        return EXIT_FAILURE;
    }
    const char *path = argv[1];
    const int gpu_id = std::atoi(argv[2]);

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, BTF_SIZE), "hipMalloc")) return EXIT_FAILURE;
    int fd = -1;
    hipFileHandle_t handle = nullptr;
    bool registered = false;
    int status = EXIT_FAILURE;

    do {
        if (!hip_ok(hipMemset(gpu_buf, BTF_BYTE, BTF_SIZE), "hipMemset")) break;
        const hipFileError_t reg = hipFileBufRegister(gpu_buf, BTF_SIZE, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        registered = true;
        if (open_file(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &fd, &handle)) break;
        if (!moved_all(hipFileWrite(handle, gpu_buf, BTF_SIZE, 0, 0), BTF_SIZE, "hipFileWrite"))
            break;
        status = EXIT_SUCCESS;
    } while (false);

    if (fd >= 0 && close_file(path, fd, handle)) status = EXIT_FAILURE;
    if (registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    return status;
}
