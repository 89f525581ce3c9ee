// SPDX-License-Identifier: MIT
#include "runtime/cpu/timeline.h"

namespace hipfile::runtime::cpu {

uint64_t Timeline::Advance() {
  MutexLock lock(mu_);
  return ++submitted_;
}

void Timeline::Complete(uint64_t seq) {
  {
    MutexLock lock(mu_);
    if (seq > completed_) completed_ = seq;
  }
  cv_.NotifyAll();
}

uint64_t Timeline::submitted() const {
  MutexLock lock(mu_);
  return submitted_;
}

bool Timeline::Reached(uint64_t seq) const {
  MutexLock lock(mu_);
  return completed_ >= seq;
}

void Timeline::Wait(uint64_t seq) const {
  MutexLock lock(mu_);
  while (completed_ < seq) cv_.Wait(mu_);
}

}  // namespace hipfile::runtime::cpu
