// SPDX-License-Identifier: MIT
// Sys: every system call the library makes goes through this interface.
//
// The real implementation (PosixSys) captures errno at the call and returns it as
// Status::Errno, unchanged; nothing above this layer reads errno. Tests compose fault injectors
// over it (tests/fakes/fault_sys.h): fail the Nth call, short counts, EINTR, EIO, ENOSPC...
// Methods do not retry: EINTR and short counts are the caller's to handle.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "platform/io_ring.h"
#include "util/status.h"

namespace hipfile::platform {

class Sys {
 public:
  virtual ~Sys() = default;

  virtual Result<int> Open(const char* path, int flags, mode_t mode) = 0;
  virtual Status Close(int fd) = 0;
  virtual Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) = 0;
  // pread that never waits for the disk: preadv2 with RWF_NOWAIT. The bytes from the page cache
  // (short where the rest is not there, or at end of file); EAGAIN when the first of them is not
  // in the page cache; EOPNOTSUPP (or EINVAL, ENOSYS) where the kernel or file system cannot say.
  virtual Result<size_t> PreadCached(int fd, void* buf, size_t size, off_t offset) = 0;
  virtual Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) = 0;
  virtual Status Fsync(int fd) = 0;
  virtual Status Fdatasync(int fd) = 0;
  // fcntl(fd, F_GETFL).
  virtual Result<int> GetFileFlags(int fd) = 0;
  virtual Status Fstat(int fd, struct stat* st) = 0;
  // statx(fd, "", AT_EMPTY_PATH, mask, out).
  virtual Status Statx(int fd, unsigned mask, struct statx* out) = 0;
  virtual Result<void*> Mmap(void* addr, size_t length, int prot, int flags, int fd,
                             off_t offset) = 0;
  virtual Status Munmap(void* addr, size_t length) = 0;
  // mincore(addr, length, vec): one byte per page of a mapping, bit 0 set when resident.
  virtual Status Mincore(void* addr, size_t length, unsigned char* vec) = 0;
  // madvise(addr, length, advice): advice about a mapping's pages, e.g. MADV_WILLNEED (read
  // them into the page cache, without waiting).
  virtual Status Madvise(void* addr, size_t length, int advice) = 0;
  // memfd_create(name, MFD_CLOEXEC | `flags`) made readable and writable by its owner only
  // (fchmod 0600): a memory file, freed with its last descriptor or mapping.
  virtual Result<int> CreateMemoryFile(const char* name, unsigned flags) = 0;
  virtual Status Ftruncate(int fd, off_t length) = 0;
  // The target of a symbolic link, e.g. /proc/self/fd/N.
  virtual Result<std::string> ReadLink(const char* path) = 0;
  virtual pid_t GetPid() = 0;
  // The names in a directory, without "." and "..".
  virtual Result<std::vector<std::string>> ListDirectory(const char* path) = 0;
  // Whole contents of a small text file such as /proc/self/mountinfo.
  virtual Result<std::string> ReadTextFile(const char* path) = 0;
  // nullptr when unset.
  virtual const char* Getenv(const char* name) = 0;
  virtual long PageSize() = 0;
  // Physical memory of the machine in bytes (sysconf), 0 when unknown.
  virtual uint64_t PhysicalMemoryBytes() = 0;
  // An io_uring with `depth` entries (platform/io_ring.h): ENOSYS when built without liburing or
  // the kernel has none, EPERM where it is refused (seccomp, /proc/sys/kernel/io_uring_disabled).
  virtual Result<std::unique_ptr<IoRing>> CreateIoRing(unsigned depth) = 0;
  // Sleeps for about `d` - a few microseconds: the thread's timer slack (50 us by default) is
  // lowered for the sleep and put back after, so the calling thread keeps its own.
  virtual void Nap(std::chrono::microseconds d) = 0;
  // A thread running `body`, or the errno the system refused it with: EAGAIN at a process or
  // thread limit (RLIMIT_NPROC, a container's pids.max), ENOMEM when its stack cannot be mapped.
  // Every thread the library starts outside the CPU runtime starts here.
  virtual Result<std::thread> StartThread(std::function<void()> body) = 0;
};

// The real system calls. Stateless; one instance serves the process.
Sys& RealSys();

}  // namespace hipfile::platform
