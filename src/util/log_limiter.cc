// SPDX-License-Identifier: MIT
#include "util/log_limiter.h"

namespace hipfile {

LogLimiter::Verdict LogLimiter::Admit(int64_t now_ns) {
  // Relaxed throughout: the counters order nothing else, and a line printed a little early or
  // late under a race is harmless.
  Verdict verdict;
  const uint64_t n = seen_.fetch_add(1, std::memory_order_relaxed);
  if (n < kBurst) {
    if (n + 1 == kBurst) {
      next_ns_.store(now_ns + kIntervalNs, std::memory_order_relaxed);
      verdict.last_of_burst = true;
    }
    verdict.print = true;
    return verdict;
  }
  int64_t next = next_ns_.load(std::memory_order_relaxed);
  if (now_ns >= next &&
      next_ns_.compare_exchange_strong(next, now_ns + kIntervalNs, std::memory_order_relaxed)) {
    verdict.print = true;
    verdict.suppressed = suppressed_.exchange(0, std::memory_order_relaxed);
    return verdict;
  }
  suppressed_.fetch_add(1, std::memory_order_relaxed);
  return verdict;
}

}  // namespace hipfile
