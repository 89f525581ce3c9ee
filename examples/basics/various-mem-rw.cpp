// SPDX-License-Identifier: MIT
/* various-mem-rw INPUT OUTPUT MODE [GPUID]
 *
 * INPUT must exist (any non-zero size; CTest seeds it with examples_tmpdriver --seed-input).
 * Reads INPUT with one hipFileRead into memory of the kind MODE names, writes it to OUTPUT with
 * one hipFileWrite and checks that both files hash the same:
 *   1  device memory (hipMalloc)
 *   2  managed memory (hipMallocManaged), which hipFile moves as device memory
 *   3  pinned host memory (hipHostMalloc), which hipFile reads into and writes from directly
 * The memory is registered with hipFileBufRegister in each mode.
 * Prints "OK  [<mode>] <input> -> <output>  (<n> bytes, hash 0x<16 hex>)" with <mode> one of
 * device, managed, pinned-host. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "examples_common.h"

int main(int argc, char **argv) {
    static const char *const kModeNames[] = {nullptr, "device", "managed", "pinned-host"};
    if (argc < 4 || argc > 5 || std::strlen(argv[3]) != 1 || argv[3][0] < '1' || argv[3][0] > '3') {
        std::fprintf(stderr,
                     "usage: %s INPUT OUTPUT MODE [GPUID]   (INPUT must exist; MODE 1 device, "
                     "2 managed, 3 pinned host)\n",
                     argv[0]);
        return EXIT_FAILURE;
    }
    const char *in_path = argv[1];
    const char *out_path = argv[2];
    const int mode = argv[3][0] - '0';
    const int gpu_id = argc == 5 ? std::atoi(argv[4]) : 0;

    size_t size = 0, block_size = 0;
    if (stat_file(in_path, &size, &block_size)) return EXIT_FAILURE;
    if (size == 0) {
        std::fprintf(stderr, "%s is empty\n", in_path);
        return EXIT_FAILURE;
    }

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    void *mem = nullptr;
    bool registered = false;
    int in_fd = -1, out_fd = -1;
    hipFileHandle_t in_handle = nullptr, out_handle = nullptr;
    int status = EXIT_FAILURE;

    do {
        if (mode == 1 && !hip_ok(hipMalloc(&mem, size), "hipMalloc")) break;
        if (mode == 2 && !hip_ok(hipMallocManaged(&mem, size), "hipMallocManaged")) break;
        if (mode == 3 && !hip_ok(hipHostMalloc(&mem, size, 0), "hipHostMalloc")) break;
        const hipFileError_t reg = hipFileBufRegister(mem, size, 0);
        if (reg.err != hipFileSuccess) {
            std::fprintf(stderr, "hipFileBufRegister failed: %s\n",
                         hipFileGetOpErrorString(reg.err));
            break;
        }
        registered = true;
        if (open_file(in_path, O_RDONLY | O_DIRECT, 0, &in_fd, &in_handle)) break;
        if (open_file(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644, &out_fd,
                      &out_handle))
            break;
        if (!moved_all(hipFileRead(in_handle, mem, size, 0, 0), size, "hipFileRead")) break;
        if (!moved_all(hipFileWrite(out_handle, mem, size, 0, 0), size, "hipFileWrite")) break;
        status = EXIT_SUCCESS;
    } while (false);

    if (out_fd >= 0 && close_file(out_path, out_fd, out_handle)) status = EXIT_FAILURE;
    if (in_fd >= 0 && close_file(in_path, in_fd, in_handle)) status = EXIT_FAILURE;
    if (registered) (void)hipFileBufDeregister(mem);
    if (mem) (void)(mode == 3 ? hipHostFree(mem) : hipFree(mem));
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(in_path, out_path, size, &hash)) return EXIT_FAILURE;
    std::printf("OK  [%s] %s -> %s  (%zu bytes, hash 0x%016llx)\n", kModeNames[mode], in_path,
                out_path, size, (unsigned long long)hash);
    return EXIT_SUCCESS;
}
