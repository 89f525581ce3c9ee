// SPDX-License-Identifier: MIT
// Timeline: how far the work queued on one emulated stream has got.
//
// Tasks on a stream are numbered 1, 2, 3, ... in submission order and complete in that order, so
// progress is two counters. A SyncPoint names one task on one timeline; events and cross-stream
// waits hold SyncPoints. Timelines are shared (shared_ptr) so a point stays valid after its stream
// is destroyed.
#pragma once

#include <cstdint>
#include <memory>

#include "util/mutex.h"

namespace hipfile::runtime::cpu {

class Timeline {
 public:
  // Numbers the next task: returns its sequence number.
  uint64_t Advance();
  // Marks every task up to seq done and wakes waiters. Called in order by the stream's worker.
  void Complete(uint64_t seq);

  uint64_t submitted() const;
  bool Reached(uint64_t seq) const;
  void Wait(uint64_t seq) const;

 private:
  mutable Mutex mu_;
  mutable CondVar cv_;
  uint64_t submitted_ GUARDED_BY(mu_) = 0;
  uint64_t completed_ GUARDED_BY(mu_) = 0;
};

// A task on a timeline. The default point (no timeline) is always reached. Reached() and Wait()
// synchronize with the completing worker: whatever the task wrote is visible afterwards.
struct SyncPoint {
  std::shared_ptr<Timeline> timeline;
  uint64_t seq = 0;

  bool Reached() const { return !timeline || timeline->Reached(seq); }
  void Wait() const {
    if (timeline) timeline->Wait(seq);
  }
};

}  // namespace hipfile::runtime::cpu
