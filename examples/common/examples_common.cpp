// SPDX-License-Identifier: MIT
#include "examples_common.h"

#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;
constexpr size_t kIoChunk = 1 << 20;

uint64_t fnv1a_update(uint64_t hash, const unsigned char *bytes, size_t size) {
    for (size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= kFnvPrime;
    }
    return hash;
}

}  // namespace

void fill_pattern(void *buf, size_t size) {
    auto *bytes = static_cast<unsigned char *>(buf);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(i & 0xFF);
}

uint64_t hash_buffer(const void *buf, size_t size) {
    return fnv1a_update(kFnvOffsetBasis, static_cast<const unsigned char *>(buf), size);
}

int hash_file_range(const char *path, off_t offset, size_t size, uint64_t *out_hash) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        std::fprintf(stderr, "Could not open %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    if (offset != 0 && lseek(fd, offset, SEEK_SET) != offset) {
        std::fprintf(stderr, "Could not seek %s to %lld (%s)\n", path, (long long)offset,
                     std::strerror(errno));
        close(fd);
        return 1;
    }
    std::vector<unsigned char> chunk(kIoChunk);
    uint64_t hash = kFnvOffsetBasis;
    size_t left = size;
    while (left > 0) {
        const size_t want = left < chunk.size() ? left : chunk.size();
        const ssize_t got = read(fd, chunk.data(), want);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            std::fprintf(stderr, "Could not read %s (%s)\n", path, std::strerror(errno));
            close(fd);
            return 1;
        }
        if (got == 0) {
            std::fprintf(stderr, "Could not read %s: file ends %zu bytes early\n", path, left);
            close(fd);
            return 1;
        }
        hash = fnv1a_update(hash, chunk.data(), static_cast<size_t>(got));
        left -= static_cast<size_t>(got);
    }
    close(fd);
    *out_hash = hash;
    return 0;
}

int seed_read_file(const char *path, size_t size) {
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        std::fprintf(stderr, "Could not open %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    /* The pattern repeats every 256 bytes and the chunk is a multiple of 256, so the bytes for
     * file offset `done` start at chunk[done & 0xFF], even after a short write. */
    std::vector<unsigned char> chunk(kIoChunk);
    fill_pattern(chunk.data(), chunk.size());
    size_t done = 0;
    while (done < size) {
        const size_t phase = done & 0xFF;
        const size_t room = chunk.size() - phase;
        const size_t want = size - done < room ? size - done : room;
        const ssize_t put = write(fd, chunk.data() + phase, want);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            std::fprintf(stderr, "Could not write %s (%s)\n", path,
                         put < 0 ? std::strerror(errno) : "no progress");
            close(fd);
            return 1;
        }
        done += static_cast<size_t>(put);
    }
    if (close(fd) != 0) {
        std::fprintf(stderr, "Could not close %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    return 0;
}

int verify_files_match(const char *read_path, const char *write_path, size_t size,
                       uint64_t *out_hash) {
    uint64_t read_hash = 0;
    uint64_t write_hash = 0;
    if (hash_file_range(read_path, 0, size, &read_hash) != 0) return 1;
    if (hash_file_range(write_path, 0, size, &write_hash) != 0) return 1;
    if (read_hash != write_hash) {
        std::fprintf(stderr, "Hash mismatch: %s=0x%016llx  %s=0x%016llx\n", read_path,
                     (unsigned long long)read_hash, write_path, (unsigned long long)write_hash);
        return 1;
    }
    *out_hash = read_hash;
    return 0;
}

int open_file(const char *path, int flags, mode_t mode, int *fd, hipFileHandle_t *handle) {
    const int opened = open(path, flags, mode);
    if (opened < 0) {
        std::fprintf(stderr, "Could not open %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    hipFileDescr_t descr;
    std::memset(&descr, 0, sizeof descr);
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = opened;
    const hipFileError_t status = hipFileHandleRegister(handle, &descr);
    if (status.err != hipFileSuccess) {
        std::fprintf(stderr, "Could not register %s (%s)\n", path,
                     hipFileGetOpErrorString(status.err));
        close(opened);
        return 1;
    }
    *fd = opened;
    return 0;
}

int close_file(const char *path, int fd, hipFileHandle_t handle) {
    hipFileHandleDeregister(handle);
    if (close(fd) != 0) {
        std::fprintf(stderr, "Could not close %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    return 0;
}

int stat_file(const char *path, size_t *size, size_t *block_size) {
    struct stat st;
    if (stat(path, &st) != 0) {
        std::fprintf(stderr, "Could not stat %s (%s)\n", path, std::strerror(errno));
        return 1;
    }
    *size = static_cast<size_t>(st.st_size);
    *block_size = static_cast<size_t>(st.st_blksize);
    return 0;
}

bool hip_ok(hipError_t err, const char *what) {
    if (err == hipSuccess) return true;
    std::fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(err));
    return false;
}

void print_io_error(ssize_t got, const char *what) {
    if (got == -1)
        std::fprintf(stderr, "%s failed: %s\n", what, std::strerror(errno));
    else if (IS_HIPFILE_ERR(got))
        std::fprintf(stderr, "%s failed: %s\n", what, HIPFILE_ERRSTR(got));
    else
        std::fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString((hipError_t)-got));
}

bool moved_all(ssize_t got, size_t want, const char *what) {
    if (got >= 0 && (size_t)got == want) return true;
    if (got < 0)
        print_io_error(got, what);
    else
        std::fprintf(stderr, "%s moved %zd of %zu bytes\n", what, got, want);
    return false;
}
