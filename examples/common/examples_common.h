// SPDX-License-Identifier: MIT
/* examples_common.h - helpers shared by the hipFile examples: seeding, hashing (FNV-1a 64) and
 * verifying files, and opening files registered with hipFile. Each example still calls the
 * hipFile API itself in main(), so it reads top to bottom. */
#pragma once

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

/* Same typedef as hipfile.h, so this header does not need it. */
typedef void *hipFileHandle_t;

/* True when value is a nonzero power of two. */
constexpr bool is_power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

/* Alignment used for O_DIRECT transfers in the examples: a power of two and a multiple of the
 * logical block size of the file systems they run on. */
#define BLOCK_ALIGN ((size_t)4096)
static_assert(is_power_of_two(BLOCK_ALIGN), "BLOCK_ALIGN must be a power of two");

/* value rounded up to a multiple of align (a power of two). */
inline size_t align_up(size_t value, size_t align) { return (value + align - 1) & ~(align - 1); }

/* Fills buf with the test pattern: byte i is (i & 0xFF). */
void fill_pattern(void *buf, size_t size);

/* FNV-1a 64-bit hash of size bytes at buf. */
uint64_t hash_buffer(const void *buf, size_t size);

/* Hashes size bytes of path from offset with plain POSIX reads (no O_DIRECT). A file shorter
 * than offset + size is an error. Returns 0 and sets *out_hash on success; non-zero (after
 * printing why) on failure, leaving *out_hash untouched. */
int hash_file_range(const char *path, off_t offset, size_t size, uint64_t *out_hash);

/* Creates or truncates path and writes size bytes of fill_pattern to it with plain POSIX
 * writes. Returns 0 on success, non-zero (after printing why) on failure. */
int seed_read_file(const char *path, size_t size);

/* Hashes the first size bytes of both files and compares them. Returns 0 and sets *out_hash on
 * a match; on a mismatch prints "Hash mismatch: <a>=0x...  <b>=0x..." and returns non-zero. */
int verify_files_match(const char *read_path, const char *write_path, size_t size,
                       uint64_t *out_hash);

/* open(2)s path with exactly flags and mode (O_DIRECT is not added), then registers the
 * descriptor with hipFileHandleRegister. Returns 0 on success; non-zero (after printing
 * "Could not open <path> (<reason>)" or "Could not register <path> (<reason>)") on failure, with
 * nothing left open. */
int open_file(const char *path, int flags, mode_t mode, int *fd, hipFileHandle_t *handle);

/* Deregisters handle and closes fd. Returns 0 on success, non-zero on failure. */
int close_file(const char *path, int fd, hipFileHandle_t handle);

/* stat(2)s path: its size and its preferred I/O block size (st_blksize). Returns 0 on success,
 * non-zero (after printing why) on failure. */
int stat_file(const char *path, size_t *size, size_t *block_size);

/* True when a hipFileRead / hipFileWrite result says all `want` bytes moved. Otherwise prints
 * "<what> failed: <reason>" (-1: errno; other negative values: the hipFile or HIP error) or
 * "<what> moved <got> of <want> bytes" and returns false. */
bool moved_all(ssize_t got, size_t want, const char *what);

/* Prints why a hipFileRead / hipFileWrite result is negative ("<what> failed: <reason>"). */
void print_io_error(ssize_t got, const char *what);

/* True when a HIP call succeeded; otherwise prints "<what> failed: <HIP's error string>" and
 * returns false. */
bool hip_ok(hipError_t err, const char *what);
