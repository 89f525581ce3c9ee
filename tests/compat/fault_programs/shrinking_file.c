// SPDX-License-Identifier: MIT
/* A shrinking file: a registered file truncated by someone else is read as a short count of
 * exactly what remains, on the sync, stream-ordered and batch paths - also when the truncation
 * lands while a stream-ordered read waits behind a held stream - and read in full once it grows
 * back.
 *   shrinking_file WORK_DIR */
#include "fault_common.h"

#define FILE_BYTES (1u << 20)

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char file[4200];
  snprintf(file, sizeof file, "%s/shrinking.bin", argv[1]);
  int fd = make_file(file, FILE_BYTES, 1);
  hipFileHandle_t fh = register_fd(fd);
  void* dev = NULL;
  check(hipMalloc(&dev, FILE_BYTES) == hipSuccess, "hipMalloc");

  off_t size = FILE_BYTES;
  for (int path = PATH_SYNC; path <= PATH_BATCH; ++path) {
    size = size / 2 + 1001; /* unaligned on purpose */
    check(ftruncate(fd, size) == 0, "ftruncate");
    ssize_t n = transfer(path, 0, fh, dev, FILE_BYTES, 0);
    if (n != size || !device_holds_pattern(dev, 0, (size_t)n, 1)) {
      fprintf(stderr, "FAILED: %s read of a file cut to %lld gave %zd\n", path_names[path],
              (long long)size, n);
      return 1;
    }
  }

  /* Cut while a stream-ordered read is queued behind a held stream. */
  hipStream_t stream;
  check(hipStreamCreate(&stream) == hipSuccess, "hipStreamCreate");
  hold_stream(stream);
  size_t s = FILE_BYTES;
  off_t fo = 0, bo = 0;
  ssize_t bytes = 0;
  check(hipFileReadAsync(fh, dev, &s, &fo, &bo, &bytes, stream).err == hipFileSuccess,
        "hipFileReadAsync");
  const off_t cut = 12345;
  check(ftruncate(fd, cut) == 0, "ftruncate");
  release_stream();
  check(hipStreamSynchronize(stream) == hipSuccess, "hipStreamSynchronize");
  if (bytes != cut || !device_holds_pattern(dev, 0, (size_t)cut, 1)) {
    fprintf(stderr, "FAILED: a queued read of a file cut to %lld gave %zd\n", (long long)cut,
            bytes);
    return 1;
  }

  /* Grown back: read in full. */
  close(make_file(file, FILE_BYTES, 1));
  ssize_t n = transfer(PATH_SYNC, 0, fh, dev, FILE_BYTES, 0);
  check(n == (ssize_t)FILE_BYTES && device_holds_pattern(dev, 0, FILE_BYTES, 1),
        "reading the file grown back");
  hipFileHandleDeregister(fh);
  close(fd);
  printf("shrinking_file OK: short counts of what remained on sync, async (queued) and batch\n");
  return 0;
}
