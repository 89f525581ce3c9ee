// SPDX-License-Identifier: MIT
// A rate limit for the log lines of one call site, so that a caller repeating a refused call in a
// loop cannot flood stderr: the first kBurst lines print, then at most one per kIntervalNs, which
// carries the count of the lines suppressed since the last one printed. HF_LOG_LIMITED (log.h)
// keeps one limiter per call site.
#pragma once

#include <atomic>
#include <cstdint>

namespace hipfile {

class LogLimiter {
 public:
  static constexpr uint64_t kBurst = 5;
  static constexpr int64_t kIntervalNs = 1000000000;  // 1 s

  // constexpr: a function-local static limiter is constant-initialized, so a call site pays no
  // initialization guard.
  constexpr LogLimiter() = default;
  LogLimiter(const LogLimiter&) = delete;
  LogLimiter& operator=(const LogLimiter&) = delete;

  struct Verdict {
    bool print = false;
    bool last_of_burst = false;  // the kBurst-th line: limiting starts after it
    uint64_t suppressed = 0;     // lines refused since the last printed one (when print)
  };

  // Whether a line at now_ns (a monotonic clock) prints. Thread-safe, lock-free, no allocation.
  // Counts are exact; under races the interval may let one extra line through (a line that
  // follows the burst before its last line stored the deadline), never lose a count.
  Verdict Admit(int64_t now_ns);

 private:
  std::atomic<uint64_t> seen_{0};        // lines offered, printed or not
  std::atomic<int64_t> next_ns_{0};      // earliest time of the next line after the burst
  std::atomic<uint64_t> suppressed_{0};  // refused since the last printed line
};

}  // namespace hipfile
