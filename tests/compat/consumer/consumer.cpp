// SPDX-License-Identifier: MIT
// Uses the installed headers and library: writes a file from GPU memory and reads it back.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  unsigned major = 0, minor = 0, patch = 0;
  if (hipFileGetVersion(&major, &minor, &patch).err != hipFileSuccess) return 1;

  const size_t size = 1 << 20;
  std::vector<unsigned char> host(size), back(size);
  for (size_t i = 0; i < size; ++i) host[i] = static_cast<unsigned char>(i * 7);
  void* gpu = nullptr;
  if (hipMalloc(&gpu, size) != hipSuccess) return 1;
  if (hipMemcpy(gpu, host.data(), size, hipMemcpyHostToDevice) != hipSuccess) return 1;

  const int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 1;
  hipFileDescr_t descr{};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) return 1;
  if (hipFileWrite(fh, gpu, size, 0, 0) != static_cast<ssize_t>(size)) return 1;
  if (hipMemset(gpu, 0, size) != hipSuccess) return 1;
  if (hipFileRead(fh, gpu, size, 0, 0) != static_cast<ssize_t>(size)) return 1;
  if (hipMemcpy(back.data(), gpu, size, hipMemcpyDeviceToHost) != hipSuccess) return 1;
  hipFileHandleDeregister(fh);
  close(fd);
  (void)hipFree(gpu);
  if (std::memcmp(host.data(), back.data(), size) != 0) return 1;
  std::printf("consumer OK (hipFile %u.%u.%u)\n", major, minor, patch);
  return 0;
}
