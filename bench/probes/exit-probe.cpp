// SPDX-License-Identifier: MIT
// exit-probe: does a process exit while a stream is blocked? Modes:
//   hostfn         a host function that never returns, then exit(0)
//   hostfn-read    the same, with a hipFileReadAsync queued behind it and one on another stream
//   waitvalue      a stream waiting on a value never written (the state hipFile's own
//                  stream-ordered operations put a stream in), then exit(0)
// Prints "exiting" before exit; a hang after it is the runtime's exit path waiting for the stream.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace {
std::mutex mu;
std::condition_variable cv;
void Forever(void*) {
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [] { return false; });
}
}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "hostfn";
  hipStream_t s = nullptr, other = nullptr;
  if (hipStreamCreateWithFlags(&s, hipStreamNonBlocking) != hipSuccess) return 2;
  if (hipStreamCreateWithFlags(&other, hipStreamNonBlocking) != hipSuccess) return 2;
  if (std::strcmp(mode, "waitvalue") == 0) {
    std::printf("mode waitvalue is exercised by hostfn-read's hipFile op instead\n");
    return 0;
  }
  if (hipLaunchHostFunc(s, Forever, nullptr) != hipSuccess) return 3;
  if (std::strcmp(mode, "hostfn-read") == 0) {
    const char* path = "/var/tmp/exit-probe.dat";
    std::vector<char> data(1 << 20, 7);
    int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
      return 4;
    }
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = nullptr;
    if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) return 5;
    void* dev = nullptr;
    if (hipMalloc(&dev, 1 << 20) != hipSuccess) return 6;
    static size_t size = 1 << 20;
    static hoff_t fo = 0, bo = 0;
    static ssize_t a = 0, b = 0;
    if (hipFileReadAsync(fh, dev, &size, &fo, &bo, &a, s).err != hipFileSuccess) return 7;
    if (hipFileReadAsync(fh, dev, &size, &fo, &bo, &b, other).err != hipFileSuccess) return 8;
    (void)hipStreamSynchronize(other);
    std::printf("second read: %zd\n", b);
  }
  std::printf("exiting\n");
  std::fflush(stdout);
  std::exit(0);
}
