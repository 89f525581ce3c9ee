// SPDX-License-Identifier: MIT
// RingIo: runs a set of whole-range reads and writes at once through io_uring, each with the
// rules of PreadFull/PwriteFull (engine/retry.h): short counts are continued, a read that
// completes 0 is end of file, a write that completes 0 is tried once more and then EIO, EINTR and
// EAGAIN are resubmitted up to kMaxConsecutiveRetries times in a row, and any other error stops
// that transfer only.
//
// Where io_uring is not available (built without liburing, an old kernel, seccomp,
// /proc/sys/kernel/io_uring_disabled) or turned off, the same transfers run one after another
// through PreadFull/PwriteFull, with the same results. Thread-safe.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/retry.h"
#include "platform/io_ring.h"
#include "platform/sys.h"
#include "util/mutex.h"

namespace hipfile::engine {

struct RingTransfer {
  platform::RingOp::Kind kind = platform::RingOp::Kind::kRead;
  int fd = -1;
  void* buf = nullptr;
  size_t size = 0;
  off_t offset = 0;
  // Reads on an O_DIRECT descriptor: the alignment its offsets keep (PreadDirect). A count that
  // is not a multiple of it can only come from end of file, so it ends the transfer. 0: buffered.
  size_t direct_align = 0;
};

// A whole-range read into (write from) buf of `size` bytes at `offset` of fd.
inline RingTransfer RingRead(int fd, void* buf, size_t size, off_t offset) {
  RingTransfer t;
  t.kind = platform::RingOp::Kind::kRead;
  t.fd = fd;
  t.buf = buf;
  t.size = size;
  t.offset = offset;
  return t;
}
inline RingTransfer RingWrite(int fd, const void* buf, size_t size, off_t offset) {
  RingTransfer t = RingRead(fd, const_cast<void*>(buf), size, offset);
  t.kind = platform::RingOp::Kind::kWrite;
  return t;
}

struct RingIoOptions {
  // false: never create a ring; every transfer runs through pread/pwrite (HIPFILE_IO_URING=0).
  bool enabled = true;
  // Entries of each ring: the most ops one RunAll keeps in flight.
  unsigned depth = 64;
  // Most rings at once, one per concurrent RunAll. A RunAll that finds all of them in use runs
  // its transfers through pread/pwrite rather than wait.
  unsigned max_rings = 16;
};

class RingIo {
 public:
  explicit RingIo(platform::Sys& sys, RingIoOptions options = {});
  ~RingIo();
  RingIo(const RingIo&) = delete;
  RingIo& operator=(const RingIo&) = delete;

  // Runs t[0..n) to completion and sets results[i] to transfer i's bytes (from its start) and
  // the error that stopped it (Ok when complete or, for a read, at end of file). The buffers must
  // not overlap where written. Returns only when no op of this call is left in the kernel; true
  // when a ring took them (statistics: the io_uring path), false when pread/pwrite ran them all.
  bool RunAll(const RingTransfer* t, size_t n, Transfer* results);

  // False once ring creation has failed (logged once at info level) or when disabled: all
  // transfers then run through pread/pwrite.
  bool ring_available() const { return available_.load(std::memory_order_relaxed); }

  struct Counters {
    uint64_t ring_calls = 0;    // RunAll calls that used a ring
    uint64_t serial_calls = 0;  // RunAll calls that ran every transfer through pread/pwrite
    uint64_t rings_created = 0;
  };
  Counters counters() const;

 private:
  class Run;

  // A ring from the pool, or nullptr when none is available now.
  std::unique_ptr<platform::IoRing> Lease() EXCLUDES(mu_);
  // Returns a ring to the pool; a ring that failed a submission is destroyed instead.
  void Release(std::unique_ptr<platform::IoRing> ring, bool healthy) EXCLUDES(mu_);
  void RunSerially(const RingTransfer* t, size_t n, Transfer* results);

  platform::Sys& sys_;
  const RingIoOptions options_;
  std::atomic<bool> available_;
  std::atomic<uint64_t> ring_calls_{0};
  std::atomic<uint64_t> serial_calls_{0};

  mutable Mutex mu_;
  std::vector<std::unique_ptr<platform::IoRing>> idle_ GUARDED_BY(mu_);
  unsigned rings_ GUARDED_BY(mu_) = 0;  // created and not destroyed
  unsigned max_rings_ GUARDED_BY(mu_);  // lowered when creation fails
  uint64_t rings_created_ GUARDED_BY(mu_) = 0;
};

}  // namespace hipfile::engine
