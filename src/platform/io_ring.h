// SPDX-License-Identifier: MIT
// IoRing: a submission queue of reads and writes that run at once (io_uring), behind an interface
// so that tests can inject faults into it as they do into Sys (tests/fakes/fault_sys.h).
//
// A ring comes from Sys::CreateIoRing. Each op the kernel takes completes exactly once, through
// Wait, with the number of bytes moved or -errno; no retrying or continuation happens here (that
// is engine::RingIo's). A ring is used by one thread at a time; hand it to another thread only
// through something that orders memory (a mutex).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "util/status.h"

namespace hipfile::platform {

struct RingOp {
  enum class Kind : unsigned char { kRead, kWrite };
  Kind kind = Kind::kRead;
  int fd = -1;
  void* buf = nullptr;  // read into, or written from
  // At most kMaxRingOpBytes: the kernel's length field is 32 bits.
  size_t size = 0;
  off_t offset = 0;
  uint64_t tag = 0;  // returned with the completion
};

// The largest count one read or write moves in Linux (MAX_RW_COUNT); larger transfers are split.
inline constexpr size_t kMaxRingOpBytes = 0x7ffff000;

struct RingCompletion {
  uint64_t tag = 0;
  int64_t result = 0;  // bytes moved, or -errno
};

class IoRing {
 public:
  virtual ~IoRing() = default;

  // Most ops in flight at once.
  virtual unsigned depth() const = 0;

  // Passes ops[0..n) to the kernel; n must not exceed depth() minus the ops in flight. Returns
  // how many it took, in order; an error only when it took none. When it takes fewer than n, the
  // rest never run, and the ring must not be submitted to again: reap what it took with Wait,
  // then destroy it.
  virtual Result<size_t> Submit(const RingOp* ops, size_t n) = 0;

  // Blocks until at least `min` completions are ready (min must not exceed the ops in flight),
  // then returns up to `max` of them in `out`. EINTR is the caller's to retry.
  virtual Result<size_t> Wait(RingCompletion* out, size_t max, size_t min) = 0;
};

// A ring over the kernel's io_uring with `depth` submission entries. ENOSYS when the library was
// built without liburing; otherwise the errno of io_uring_setup (ENOSYS: no io_uring in this
// kernel; EPERM: refused by seccomp or /proc/sys/kernel/io_uring_disabled; ENOMEM...).
Result<std::unique_ptr<IoRing>> CreateKernelIoRing(unsigned depth);

}  // namespace hipfile::platform
