// SPDX-License-Identifier: MIT
// Where a stream-ordered operation's time goes (docs/async.md, "Where a stream-ordered
// operation's time goes"): steady-clock stamps taken at each step of its round trip, when asked,
// added up per part (hipFileExtGetAsyncStageStats). Off, an operation costs one relaxed load and
// a branch at submission; on, one allocation per operation and relaxed atomic adds.
#pragma once

#include <hipfile_ext.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace hipfile::core {

// The stamps of one operation, in the order the parts are defined (hipfile_ext.h). Written by
// the submitting thread (kCall, kReturned) and by the poller, the workers or the stream's host
// function (the rest); the last of the two sides to finish (pending reaching 0, acq_rel)
// records them, so each side's stamps are visible to the one that records.
struct AsyncStamps {
  enum Point { kCall, kReturned, kReached, kStarted, kIoDone, kReleased, kCopied, kPoints };
  uint64_t t[kPoints] = {};
  std::atomic<int> pending{2};
};

// Steady clock, ns.
uint64_t StampNow();

class AsyncStageStats {
 public:
  static constexpr int kParts = HIPFILE_EXT_ASYNC_STAGES;
  static constexpr int kBuckets = HIPFILE_EXT_ASYNC_STAGE_BUCKETS;

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }

  // A fresh stamp record for an operation submitted now, or null when timing is off.
  std::shared_ptr<AsyncStamps> Start() const;
  // One side is done with `stamps`; the second records them.
  void Finish(const std::shared_ptr<AsyncStamps>& stamps);
  // Adds one operation's parts: each stamp is taken no earlier than the one before it (a staged
  // operation may be reached before its submission returns: that part counts 0), so the parts
  // add up to kCopied - kCall, the total.
  void Record(const uint64_t (&t)[AsyncStamps::kPoints]);
  void Fill(hipFileExtAsyncStageStats_t* out) const;

  // Bucket of a part that took `ns`: 0 for 0 ns, i for [2^(i-1), 2^i) ns, the last for the rest.
  static int Bucket(uint64_t ns);

 private:
  std::atomic<bool> enabled_{false};
  std::atomic<uint64_t> count_[kParts] = {};
  std::atomic<uint64_t> sum_ns_[kParts] = {};
  std::atomic<uint64_t> hist_[kParts][kBuckets] = {};
};

}  // namespace hipfile::core
