// SPDX-License-Identifier: MIT
#include "runtime/cpu/timeline.h"

namespace hipfile::runtime::cpu {

uint64_t Timeline::Advance() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++submitted_;
}

void Timeline::Complete(uint64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (seq > completed_) completed_ = seq;
  }
  cv_.notify_all();
}

uint64_t Timeline::submitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}

bool Timeline::Reached(uint64_t seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= seq;
}

void Timeline::Wait(uint64_t seq) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return completed_ >= seq; });
}

}  // namespace hipfile::runtime::cpu
