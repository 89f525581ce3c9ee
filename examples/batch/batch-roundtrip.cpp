// SPDX-License-Identifier: MIT
/* batch-roundtrip READ_FILE WRITE_FILE FILE_SIZE BATCH_SIZE [GPUID]
 *
 * Seeds READ_FILE with FILE_SIZE bytes of the test pattern, then copies it to WRITE_FILE through
 * GPU memory with batch I/O: BATCH_SIZE (1 to 128) 4 KiB requests in flight at once, and
 * one new request submitted for every completion (hipFileBatchIOGetStatus with min_nr 1 and no
 * timeout). All reads finish before the writes start. The last write is a whole 4 KiB block, so
 * WRITE_FILE is cut back to FILE_SIZE with ftruncate. Prints
 * "OK  <read> == <write>  (<n> bytes, hash 0x<16 hex>)". */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "examples_common.h"

/* The most entries a batch holds (hipFileBatchIOSetUp's max_nr). */
#define BR_MAX_BATCH_SIZE 128u

#define BR_REQUEST ((size_t)4096)

static bool hipfile_ok(hipFileError_t status, const char *what) {
    if (status.err == hipFileSuccess) return true;
    if (IS_HIP_DRV_ERR(status))
        std::fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(HIP_DRV_ERR(status)));
    else
        std::fprintf(stderr, "%s failed: %s\n", what, hipFileGetOpErrorString(status.err));
    return false;
}

/* Moves every 4 KiB block of [0, file_size) between the file and gpu_buf with at most
 * batch_size requests in flight. A read of the last block may come back short (end of
 * file); a write always moves whole blocks. The cookie of a request is its block number + 1. */
static bool transfer_all(hipFileBatchHandle_t batch, hipFileOpcode_t opcode, hipFileHandle_t fh,
                         void *gpu_buf, size_t file_size, unsigned batch_size) {
    const char *what = opcode == hipFileBatchRead ? "batch read" : "batch write";
    const size_t blocks = align_up(file_size, BR_REQUEST) / BR_REQUEST;
    size_t next = 0, done = 0;

    auto submit_next = [&]() -> bool {
        hipFileIOParams_t io;
        std::memset(&io, 0, sizeof io);
        io.mode = hipFileBatch;
        io.opcode = opcode;
        io.fh = fh;
        io.u.batch.devPtr_base = gpu_buf;
        io.u.batch.file_offset = (int64_t)(next * BR_REQUEST);
        io.u.batch.devPtr_offset = (int64_t)(next * BR_REQUEST);
        io.u.batch.size = BR_REQUEST;
        io.cookie = (void *)(uintptr_t)(next + 1);
        ++next;
        return hipfile_ok(hipFileBatchIOSubmit(batch, 1, &io, 0), "hipFileBatchIOSubmit");
    };

    while (next < blocks && next < batch_size)
        if (!submit_next()) return false;
    while (done < blocks) {
        hipFileIOEvents_t events[BR_MAX_BATCH_SIZE];
        unsigned nr = batch_size;
        if (!hipfile_ok(hipFileBatchIOGetStatus(batch, 1, &nr, events, nullptr),
                        "hipFileBatchIOGetStatus"))
            return false;
        for (unsigned i = 0; i < nr; ++i) {
            const size_t block = (size_t)(uintptr_t)events[i].cookie - 1;
            const size_t offset = block * BR_REQUEST;
            size_t expected = BR_REQUEST;
            if (opcode == hipFileBatchRead && file_size - offset < BR_REQUEST)
                expected = file_size - offset;
            if (events[i].status != hipFileComplete) {
                const ssize_t err = (ssize_t)events[i].ret;
                /* ret is -errno, or -hipFileOpError_t (at least HIPFILE_BASE_ERR). */
                const char *why =
                    err <= -HIPFILE_BASE_ERR ? HIPFILE_ERRSTR(err) : std::strerror((int)-err);
                std::fprintf(stderr, "%s at offset %zu failed: %s\n", what, offset, why);
                return false;
            }
            if (events[i].ret != expected) {
                std::fprintf(stderr, "%s at offset %zu moved %zu of %zu bytes\n", what, offset,
                             events[i].ret, expected);
                return false;
            }
            ++done;
            if (next < blocks && !submit_next()) return false;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    if (argc < 5 || argc > 6) {
        std::fprintf(stderr, "usage: %s READ_FILE WRITE_FILE FILE_SIZE BATCH_SIZE [GPUID]\n",
                     argv[0]);
        return EXIT_FAILURE;
    }
    const char *read_path = argv[1];
    const char *write_path = argv[2];
    char *end = nullptr;
    const unsigned long long parsed = std::strtoull(argv[3], &end, 10);
    if (end == argv[3] || *end != '\0' || parsed == 0) {
        std::fprintf(stderr, "FILE_SIZE must be a positive number of bytes, not '%s'\n", argv[3]);
        return EXIT_FAILURE;
    }
    const size_t file_size = (size_t)parsed;
    const unsigned long long batch_parsed = std::strtoull(argv[4], &end, 10);
    if (end == argv[4] || *end != '\0' || argv[4][0] == '-' || batch_parsed < 1 ||
        batch_parsed > BR_MAX_BATCH_SIZE) {
        std::fprintf(stderr, "BATCH_SIZE must be a number from 1 to %u, not '%s'\n",
                     BR_MAX_BATCH_SIZE, argv[4]);
        return EXIT_FAILURE;
    }
    const unsigned batch_size = (unsigned)batch_parsed;
    const int gpu_id = argc == 6 ? std::atoi(argv[5]) : 0;
    const size_t buf_size = align_up(file_size, BR_REQUEST);

    if (!hip_ok(hipSetDevice(gpu_id), "hipSetDevice")) return EXIT_FAILURE;
    if (seed_read_file(read_path, file_size)) return EXIT_FAILURE;

    void *gpu_buf = nullptr;
    if (!hip_ok(hipMalloc(&gpu_buf, buf_size), "hipMalloc")) return EXIT_FAILURE;
    int status = EXIT_FAILURE;
    int read_fd = -1, write_fd = -1;
    hipFileHandle_t read_handle = nullptr, write_handle = nullptr;
    hipFileBatchHandle_t batch = nullptr;
    bool buf_registered = false;

    do {
        if (!hipfile_ok(hipFileBufRegister(gpu_buf, buf_size, 0), "hipFileBufRegister")) break;
        buf_registered = true;
        if (open_file(read_path, O_RDONLY, 0, &read_fd, &read_handle)) break;
        if (open_file(write_path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &write_fd, &write_handle))
            break;
        if (!hipfile_ok(hipFileBatchIOSetUp(&batch, batch_size), "hipFileBatchIOSetUp")) break;
        if (!transfer_all(batch, hipFileBatchRead, read_handle, gpu_buf, file_size, batch_size))
            break;
        if (!transfer_all(batch, hipFileBatchWrite, write_handle, gpu_buf, file_size, batch_size))
            break;
        if (ftruncate(write_fd, (off_t)file_size) != 0) {
            std::fprintf(stderr, "ftruncate %s failed: %s\n", write_path, std::strerror(errno));
            break;
        }
        status = EXIT_SUCCESS;
    } while (false);

    if (batch) hipFileBatchIODestroy(batch);
    if (write_fd >= 0 && close_file(write_path, write_fd, write_handle)) status = EXIT_FAILURE;
    if (read_fd >= 0 && close_file(read_path, read_fd, read_handle)) status = EXIT_FAILURE;
    if (buf_registered) (void)hipFileBufDeregister(gpu_buf);
    (void)hipFree(gpu_buf);
    if (status != EXIT_SUCCESS) return status;

    uint64_t hash = 0;
    if (verify_files_match(read_path, write_path, file_size, &hash)) return EXIT_FAILURE;
    std::printf("OK  %s == %s  (%zu bytes, hash 0x%016llx)\n", read_path, write_path, file_size,
                (unsigned long long)hash);
    return EXIT_SUCCESS;
}
