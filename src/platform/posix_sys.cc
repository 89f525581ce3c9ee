// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <system_error>
#include <utility>

#include "platform/sys.h"
#include "util/capture_mode.h"

namespace hipfile::platform {
namespace {

// The rest of fd's contents; ENOMEM when the string cannot grow (the caller closes fd either way).
Result<std::string> ReadAll(int fd) {
  std::string text;
  char chunk[4096];
  try {
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::Errno(errno);
      if (n == 0) break;
      text.append(chunk, static_cast<size_t>(n));
    }
  } catch (const std::bad_alloc&) {
    return Status::Errno(ENOMEM);
  }
  return text;
}

class PosixSys final : public Sys {
 public:
  Result<int> Open(const char* path, int flags, mode_t mode) override {
    const int fd = ::open(path, flags, mode);
    if (fd < 0) return Status::Errno(errno);
    return fd;
  }
  Status Close(int fd) override { return ::close(fd) == 0 ? Status::Ok() : Status::Errno(errno); }
  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    const ssize_t n = ::pread(fd, buf, size, offset);
    if (n < 0) return Status::Errno(errno);
    return static_cast<size_t>(n);
  }
  Result<size_t> PreadCached(int fd, void* buf, size_t size, off_t offset) override {
    iovec iov{buf, size};
    const ssize_t n = ::preadv2(fd, &iov, 1, offset, RWF_NOWAIT);
    if (n < 0) return Status::Errno(errno);
    return static_cast<size_t>(n);
  }
  Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) override {
    const ssize_t n = ::pwrite(fd, buf, size, offset);
    if (n < 0) return Status::Errno(errno);
    return static_cast<size_t>(n);
  }
  Status Fsync(int fd) override { return ::fsync(fd) == 0 ? Status::Ok() : Status::Errno(errno); }
  Status Fdatasync(int fd) override {
    return ::fdatasync(fd) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Result<int> GetFileFlags(int fd) override {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0) return Status::Errno(errno);
    return flags;
  }
  Status Fstat(int fd, struct stat* st) override {
    return ::fstat(fd, st) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Status Statx(int fd, unsigned mask, struct statx* out) override {
    return ::statx(fd, "", AT_EMPTY_PATH, mask, out) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Result<void*> Mmap(void* addr, size_t length, int prot, int flags, int fd,
                     off_t offset) override {
    void* p = ::mmap(addr, length, prot, flags, fd, offset);
    if (p == MAP_FAILED) return Status::Errno(errno);
    return p;
  }
  Status Munmap(void* addr, size_t length) override {
    return ::munmap(addr, length) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Status Mincore(void* addr, size_t length, unsigned char* vec) override {
    return ::mincore(addr, length, vec) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Status Madvise(void* addr, size_t length, int advice) override {
    return ::madvise(addr, length, advice) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Result<int> CreateMemoryFile(const char* name, unsigned flags) override {
    const int fd = ::memfd_create(name, MFD_CLOEXEC | flags);
    if (fd < 0) return Status::Errno(errno);
    // A memory file is created 0777; the same user only may read it through /proc/PID/fd.
    if (::fchmod(fd, 0600) != 0) {
      const int e = errno;
      ::close(fd);
      return Status::Errno(e);
    }
    return fd;
  }
  Status Ftruncate(int fd, off_t length) override {
    return ::ftruncate(fd, length) == 0 ? Status::Ok() : Status::Errno(errno);
  }
  Result<std::string> ReadLink(const char* path) override {
    char target[4096];
    const ssize_t n = ::readlink(path, target, sizeof target);
    if (n < 0) return Status::Errno(errno);
    return std::string(target, static_cast<size_t>(n));
  }
  pid_t GetPid() override { return ::getpid(); }
  Result<std::vector<std::string>> ListDirectory(const char* path) override {
    DIR* dir = ::opendir(path);
    if (dir == nullptr) return Status::Errno(errno);
    std::vector<std::string> names;
    errno = 0;
    while (const struct dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    const int e = errno;
    ::closedir(dir);
    if (e != 0) return Status::Errno(e);
    return names;
  }
  Result<std::string> ReadTextFile(const char* path) override {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Errno(errno);
    Result<std::string> text = ReadAll(fd);
    ::close(fd);
    return text;
  }
  const char* Getenv(const char* name) override { return std::getenv(name); }
  long PageSize() override { return ::sysconf(_SC_PAGESIZE); }
  uint64_t PhysicalMemoryBytes() override {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  }
  Result<std::unique_ptr<IoRing>> CreateIoRing(unsigned depth) override {
    return CreateKernelIoRing(depth);
  }
  void Nap(std::chrono::microseconds d) override {
    constexpr unsigned long kSlackNs = 1000;
    const int slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    const bool lowered = slack > 0 && static_cast<unsigned long>(slack) > kSlackNs &&
                         ::prctl(PR_SET_TIMERSLACK, kSlackNs, 0, 0, 0) == 0;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(ns / 1000000000);
    ts.tv_nsec = static_cast<long>(ns % 1000000000);
    (void)::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);  // a signal only shortens it
    if (lowered) (void)::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0);
  }
  Result<std::thread> StartThread(std::function<void()> body) override {
    // std::thread reports pthread_create's error as std::system_error, and the state it
    // allocates for the thread as std::bad_alloc; both become the errno here.
    // The library's threads make their runtime calls in relaxed capture mode (util/capture_mode.h).
    try {
      return std::thread([body = std::move(body)] {
        RelaxCaptureModeForThisThread();
        body();
      });
    } catch (const std::system_error& e) {
      const int code = e.code().value();
      return Status::Errno(code > 0 ? code : EAGAIN);
    } catch (const std::bad_alloc&) {
      return Status::Errno(ENOMEM);
    }
  }
};

}  // namespace

Sys& RealSys() {
  static PosixSys* sys = new PosixSys();  // never destroyed: used until process exit
  return *sys;
}

}  // namespace hipfile::platform
