// SPDX-License-Identifier: MIT
// FaultPlan: the fault bookkeeping shared by FaultSys and FaultRuntime.
//
// Operations are small integers below `num_ops`; a fault is a nonzero code (an errno value or a
// hipError_t) that a call returns instead of being forwarded. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/mutex.h"

namespace hipfile::testing {

class FaultPlan {
 public:
  explicit FaultPlan(size_t num_ops) : ops_(num_ops) {}

  // The n-th call from now (1-based) fails with `code`.
  void FailNth(size_t op, uint64_t n, int code);
  // Every call fails with `code`, until Reset.
  void FailAlways(size_t op, int code);
  // The next `count` calls fail with `code`; later ones pass.
  void FailTimes(size_t op, uint64_t count, int code);
  // Drops every fault and zeroes the call counters.
  void Reset();
  // Calls made since construction or the last Reset, failed ones included.
  uint64_t Calls(size_t op) const;

  // Counts one call of `op`; returns the code it must fail with, or 0 to forward it.
  // FailAlways wins over FailNth, which wins over FailTimes.
  int OnCall(size_t op);

 private:
  struct Nth {
    uint64_t call;  // 1-based index of the failing call
    int code;
  };
  struct Op {
    uint64_t calls = 0;
    int always = 0;
    uint64_t times_left = 0;
    int times_code = 0;
    std::vector<Nth> nth;
  };

  mutable Mutex mu_;
  std::vector<Op> ops_ GUARDED_BY(mu_);
};

}  // namespace hipfile::testing
