// SPDX-License-Identifier: MIT
/* A descriptor closed under an async read: reads queued behind a held stream whose descriptor
 * the caller closes - and whose number the next open then reuses for another file - end with
 * -EBADF or the registered file's bytes, never the other file's; afterwards the stale handle
 * deregisters and the new file registers and reads.
 *   closed_fd_async WORK_DIR */
#include "fault_common.h"

#define FILE_BYTES (1u << 20)
#define OPS 2

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char file[4200], other[4200];
  snprintf(file, sizeof file, "%s/closed.bin", argv[1]);
  snprintf(other, sizeof other, "%s/other.bin", argv[1]);
  int fd = make_file(file, FILE_BYTES, 1);
  hipFileHandle_t fh = register_fd(fd);
  void* dev = NULL;
  check(hipMalloc(&dev, FILE_BYTES) == hipSuccess, "hipMalloc");
  check(hipMemset(dev, 0, FILE_BYTES) == hipSuccess, "hipMemset");

  hipStream_t stream;
  check(hipStreamCreate(&stream) == hipSuccess, "hipStreamCreate");
  hold_stream(stream);
  /* An O_DIRECT-aligned read and an unaligned one, into disjoint parts of the buffer. */
  size_t sizes[OPS] = {512u << 10, 1000};
  off_t offsets[OPS] = {0, 700001}, buffer_offsets[OPS] = {0, 700001};
  ssize_t bytes[OPS] = {0, 0};
  for (int i = 0; i < OPS; ++i) {
    check(hipFileReadAsync(fh, dev, &sizes[i], &offsets[i], &buffer_offsets[i], &bytes[i], stream)
                  .err == hipFileSuccess,
          "hipFileReadAsync");
  }
  check(close(fd) == 0, "close");
  int other_fd = make_file(other, FILE_BYTES, 2); /* usually given fd's number */
  if (other_fd != fd) {
    check(dup2(other_fd, fd) == fd, "dup2");
    close(other_fd);
  }
  release_stream();
  check(hipStreamSynchronize(stream) == hipSuccess, "hipStreamSynchronize");
  int errors = 0;
  for (int i = 0; i < OPS; ++i) {
    if (bytes[i] == -EBADF) {
      ++errors;
      continue;
    }
    if (bytes[i] != (ssize_t)sizes[i] ||
        !device_holds_pattern(dev, (size_t)buffer_offsets[i], sizes[i], 1)) {
      fprintf(stderr, "FAILED: read %d gave %zd and not the registered file's bytes\n", i,
              bytes[i]);
      return 1;
    }
  }

  hipFileHandleDeregister(fh);
  hipFileHandle_t other_fh = register_fd(fd);
  ssize_t n = hipFileRead(other_fh, dev, FILE_BYTES, 0, 0);
  check(n == (ssize_t)FILE_BYTES && device_holds_pattern(dev, 0, FILE_BYTES, 2),
        "reading the file that reused the number");
  hipFileHandleDeregister(other_fh);
  close(fd);
  printf("closed_fd_async OK: %d of %d reads gave -EBADF, the rest the registered file's bytes\n",
         errors, OPS);
  return 0;
}
