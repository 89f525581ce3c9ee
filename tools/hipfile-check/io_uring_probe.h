// SPDX-License-Identifier: MIT
// Whether this process can use io_uring: io_uring_setup called directly (no liburing), the
// io_uring_disabled sysctl, and RLIMIT_MEMLOCK. The classification is a pure function of what
// was observed, so a unit test can give it every refusal.
#pragma once

#include <cstdint>
#include <optional>

#include "report.h"

namespace hipfile_check {

struct IoUringFacts {
  int setup_errno = 0;                    // 0: io_uring_setup returned a ring
  std::optional<int> disabled_sysctl;     // /proc/sys/kernel/io_uring_disabled, if present
  bool seccomp_filtered = false;          // /proc/self/status Seccomp: 2
  std::optional<uint64_t> memlock_bytes;  // RLIMIT_MEMLOCK's soft limit; nullopt: unlimited
  bool memlock_charged = false;  // the kernel charges rings to RLIMIT_MEMLOCK (before 5.12)
};

// The verdict and its reason from the facts.
IoUring ClassifyIoUring(const IoUringFacts& facts);

// Observes this process and classifies it.
IoUring ProbeIoUring();

// Bytes of locked memory a ring of the library's depth takes where the kernel charges rings to
// RLIMIT_MEMLOCK (before Linux 5.12): its submission and completion rings and entries, rounded
// up to pages (src/engine/ring_io.cc: 64 entries, 128 completions).
inline constexpr uint64_t kRingLockedBytes = 4 * 4096;

}  // namespace hipfile_check
