// SPDX-License-Identifier: MIT
// FaultSys: a platform::Sys that forwards to another and injects failures and short counts.
//
//   testing::FaultSys sys;                       // over the real system calls
//   sys.FailTimes(testing::SysOp::kPread, 3, EINTR);
//   sys.FailNth(testing::SysOp::kPwrite, 2, ENOSPC);
//   sys.ShortTransfers(testing::SysOp::kPread, 4096);
//
// Rings from CreateIoRing are wrapped too (FaultRing below): kRingSetup fails the creation,
// kRingSubmit and kRingWait the ring's Submit and Wait, and kRingRead / kRingWrite count each
// read or write op submitted, which fails (its completion carries -errno) or is capped like a
// pread/pwrite. A ring must not outlive the FaultSys that made it.
//
// A failed call does not reach the base Sys. Getenv, GetPid, PageSize and PhysicalMemoryBytes are
// forwarded untouched. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fakes/fault_plan.h"
#include "platform/sys.h"
#include "util/mutex.h"

namespace hipfile::testing {

enum class SysOp : size_t {
  kOpen,
  kClose,
  kPread,
  kPreadCached,  // PreadCached; ShortTransfers(kPread) caps it too
  kPwrite,
  kFsync,
  kFdatasync,
  kGetFileFlags,
  kFstat,
  kStatx,
  kMmap,
  kMunmap,
  kReadTextFile,
  kMincore,
  kRingSetup,   // CreateIoRing
  kRingSubmit,  // IoRing::Submit (the whole call fails; no op is taken)
  kRingWait,    // IoRing::Wait
  kRingRead,    // each read op of a Submit: its completion is -errno, or capped
  kRingWrite,   // each write op of a Submit
  kStartThread,
  kCreateMemoryFile,
  kFtruncate,
  kReadLink,
  kListDirectory,
  kMadvise,
  kCount,
};

class FaultSys : public platform::Sys {
 public:
  explicit FaultSys(platform::Sys& base = platform::RealSys()) : base_(base) {}

  // The n-th call of `op` from now (1-based) fails with errno `error`.
  void FailNth(SysOp op, uint64_t n, int error) { plan_.FailNth(Index(op), n, error); }
  void FailAlways(SysOp op, int error) { plan_.FailAlways(Index(op), error); }
  // The next `count` calls fail with `error` (e.g. EINTR three times, then success).
  void FailTimes(SysOp op, uint64_t count, int error) { plan_.FailTimes(Index(op), count, error); }
  // Caps each kPread, kPwrite, kRingRead or kRingWrite at `max_bytes`; 0 makes every call (op)
  // return 0 bytes without reaching the base (end of file for reads, no progress for writes).
  void ShortTransfers(SysOp op, size_t max_bytes);
  // Drops every fault and cap and zeroes the counters.
  void Reset();
  uint64_t Calls(SysOp op) const { return plan_.Calls(Index(op)); }

  Result<int> Open(const char* path, int flags, mode_t mode) override;
  Status Close(int fd) override;
  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override;
  Result<size_t> PreadCached(int fd, void* buf, size_t size, off_t offset) override;
  Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) override;
  Status Fsync(int fd) override;
  Status Fdatasync(int fd) override;
  Result<int> GetFileFlags(int fd) override;
  Status Fstat(int fd, struct stat* st) override;
  Status Statx(int fd, unsigned mask, struct statx* out) override;
  Result<void*> Mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) override;
  Status Munmap(void* addr, size_t length) override;
  Status Mincore(void* addr, size_t length, unsigned char* vec) override;
  Status Madvise(void* addr, size_t length, int advice) override;
  Result<std::string> ReadTextFile(const char* path) override;
  Result<int> CreateMemoryFile(const char* name, unsigned flags) override;
  Status Ftruncate(int fd, off_t length) override;
  Result<std::string> ReadLink(const char* path) override;
  pid_t GetPid() override { return base_.GetPid(); }
  Result<std::vector<std::string>> ListDirectory(const char* path) override;
  const char* Getenv(const char* name) override { return base_.Getenv(name); }
  long PageSize() override { return base_.PageSize(); }
  uint64_t PhysicalMemoryBytes() override { return base_.PhysicalMemoryBytes(); }
  void Nap(std::chrono::microseconds d) override {
    naps_.fetch_add(1, std::memory_order_relaxed);
    base_.Nap(d);
  }
  // How many Nap calls were made.
  uint64_t naps() const { return naps_.load(std::memory_order_relaxed); }
  Result<std::unique_ptr<platform::IoRing>> CreateIoRing(unsigned depth) override;
  Result<std::thread> StartThread(std::function<void()> body) override;

 private:
  std::atomic<uint64_t> naps_{0};
  friend class FaultRing;
  static constexpr size_t kNoCap = std::numeric_limits<size_t>::max();
  static size_t Index(SysOp op) { return static_cast<size_t>(op); }
  size_t Cap(SysOp op) const;

  platform::Sys& base_;
  FaultPlan plan_{Index(SysOp::kCount)};
  mutable Mutex mu_;
  size_t pread_cap_ GUARDED_BY(mu_) = kNoCap;
  size_t pwrite_cap_ GUARDED_BY(mu_) = kNoCap;
  size_t ring_read_cap_ GUARDED_BY(mu_) = kNoCap;
  size_t ring_write_cap_ GUARDED_BY(mu_) = kNoCap;
};

// The ring FaultSys::CreateIoRing returns: forwards to the base Sys's ring, applying the
// FaultSys's plan. An op that fails, or is capped at 0 bytes, never reaches the base ring: its
// completion is made here and returned by the next Wait, before the base ring's.
class FaultRing final : public platform::IoRing {
 public:
  FaultRing(FaultSys& sys, std::unique_ptr<platform::IoRing> base)
      : sys_(sys), base_(std::move(base)) {}

  unsigned depth() const override { return base_->depth(); }
  Result<size_t> Submit(const platform::RingOp* ops, size_t n) override;
  Result<size_t> Wait(platform::RingCompletion* out, size_t max, size_t min) override;

 private:
  FaultSys& sys_;
  std::unique_ptr<platform::IoRing> base_;
  std::vector<platform::RingCompletion> made_;  // completions of ops that failed here
};

}  // namespace hipfile::testing
