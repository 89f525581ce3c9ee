// SPDX-License-Identifier: MIT
/* Shared by the fault programs: failing loudly, file patterns, registration, a held stream and
 * the three I/O paths behind one call. Header-only so each program is one compile. */
#ifndef HIPFILE_FAULT_COMMON_H
#define HIPFILE_FAULT_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SKIPPED 77

static inline void die(const char* what) {
  fprintf(stderr, "FAILED: %s (errno %d: %s)\n", what, errno, strerror(errno));
  exit(1);
}
static inline void check(int ok, const char* what) {
  if (!ok) die(what);
}

static inline unsigned char pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 131u + (i >> 12) + seed * 7u);
}
/* Writes `size` pattern bytes to a new file at `path`; returns a read-write descriptor. */
static inline int make_file(const char* path, size_t size, unsigned seed) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  check(fd >= 0, path);
  unsigned char* data = malloc(size);
  check(data != NULL, "malloc");
  for (size_t i = 0; i < size; ++i) data[i] = pattern(i, seed);
  check(pwrite(fd, data, size, 0) == (ssize_t)size, "pwrite");
  free(data);
  return fd;
}
/* Whether `size` bytes of device memory at `dev` + `offset` are the pattern there. */
static inline int device_holds_pattern(const void* dev, size_t offset, size_t size, unsigned seed) {
  unsigned char* host = malloc(size);
  check(host != NULL, "malloc");
  check(hipMemcpy(host, (const char*)dev + offset, size, hipMemcpyDeviceToHost) == hipSuccess,
        "hipMemcpy");
  int same = 1;
  for (size_t i = 0; i < size && same; ++i) same = host[i] == pattern(offset + i, seed);
  free(host);
  return same;
}

static inline hipFileHandle_t register_fd(int fd) {
  hipFileDescr_t descr;
  memset(&descr, 0, sizeof descr);
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = NULL;
  check(hipFileHandleRegister(&fh, &descr).err == hipFileSuccess, "hipFileHandleRegister");
  return fh;
}

/* A stream held in a host function until release_stream (a pipe: no threads needed). */
static int gate_fds[2] = {-1, -1};
static inline void gate_wait(void* arg) {
  char c;
  (void)arg;
  while (read(gate_fds[0], &c, 1) < 0 && errno == EINTR) {
  }
}
static inline void hold_stream(hipStream_t stream) {
  check(pipe(gate_fds) == 0, "pipe");
  check(hipLaunchHostFunc(stream, gate_wait, NULL) == hipSuccess, "hipLaunchHostFunc");
}
static inline void release_stream(void) {
  check(write(gate_fds[1], "x", 1) == 1, "release the stream");
  close(gate_fds[1]);
}

enum io_path { PATH_SYNC, PATH_ASYNC, PATH_BATCH };
static const char* const path_names[] = {"sync", "async", "batch"};

/* One transfer on `path`, waited for: bytes moved, or a negated errno (sync: -errno after -1;
 * async: *bytes_p; batch: the event's ret). */
static inline ssize_t transfer(enum io_path path, int write_op, hipFileHandle_t fh, void* dev,
                               size_t size, off_t offset) {
  if (path == PATH_SYNC) {
    errno = 0;
    ssize_t n =
        write_op ? hipFileWrite(fh, dev, size, offset, 0) : hipFileRead(fh, dev, size, offset, 0);
    return n < 0 ? -errno : n;
  }
  if (path == PATH_ASYNC) {
    hipStream_t stream;
    check(hipStreamCreate(&stream) == hipSuccess, "hipStreamCreate");
    size_t s = size;
    off_t fo = offset, bo = 0;
    ssize_t bytes = 0;
    hipFileError_t e = write_op ? hipFileWriteAsync(fh, dev, &s, &fo, &bo, &bytes, stream)
                                : hipFileReadAsync(fh, dev, &s, &fo, &bo, &bytes, stream);
    check(e.err == hipFileSuccess, "submitting a stream-ordered transfer");
    check(hipStreamSynchronize(stream) == hipSuccess, "hipStreamSynchronize");
    check(hipStreamDestroy(stream) == hipSuccess, "hipStreamDestroy");
    return bytes;
  }
  hipFileBatchHandle_t batch;
  check(hipFileBatchIOSetUp(&batch, 1).err == hipFileSuccess, "hipFileBatchIOSetUp");
  hipFileIOParams_t p;
  memset(&p, 0, sizeof p);
  p.mode = hipFileBatch;
  p.opcode = write_op ? hipFileBatchWrite : hipFileBatchRead;
  p.fh = fh;
  p.u.batch.devPtr_base = dev;
  p.u.batch.size = size;
  p.u.batch.file_offset = offset;
  check(hipFileBatchIOSubmit(batch, 1, &p, 0).err == hipFileSuccess, "hipFileBatchIOSubmit");
  hipFileIOEvents_t ev;
  unsigned nr = 1;
  check(hipFileBatchIOGetStatus(batch, 1, &nr, &ev, NULL).err == hipFileSuccess && nr == 1,
        "hipFileBatchIOGetStatus");
  hipFileBatchIODestroy(batch);
  if (ev.status == hipFileComplete) return (ssize_t)ev.ret;
  check(ev.status == hipFileFailed, "a batch entry neither complete nor failed");
  return (ssize_t)ev.ret;
}

#endif
