// SPDX-License-Identifier: MIT
// trace_program FILE: a read and a write of FILE (1 MiB, created) through the C API, as a program
// a user profiles would make them; nvtx_test.sh runs it under the fake injection library.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  constexpr size_t kSize = 1 << 20;
  const int fd = ::open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
  void* dev = nullptr;
  if (fd < 0 || hipMalloc(&dev, kSize) != hipSuccess) return 1;
  if (hipFileDriverOpen().err != hipFileSuccess) return 1;
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) return 1;
  const bool moved = hipFileWrite(fh, dev, kSize, 0, 0) == static_cast<ssize_t>(kSize) &&
                     hipFileRead(fh, dev, kSize, 0, 0) == static_cast<ssize_t>(kSize);
  hipFileHandleDeregister(fh);
  (void)hipFileDriverClose();
  (void)hipFree(dev);
  ::close(fd);
  std::puts(moved ? "trace_program: moved" : "trace_program: failed");
  return moved ? 0 : 1;
}
