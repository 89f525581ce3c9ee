// SPDX-License-Identifier: MIT
#include "core/async/async_stage_stats.h"

#include <algorithm>
#include <chrono>

namespace hipfile::core {

uint64_t StampNow() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::shared_ptr<AsyncStamps> AsyncStageStats::Start() const {
  if (!enabled()) return nullptr;
  auto stamps = std::make_shared<AsyncStamps>();
  stamps->t[AsyncStamps::kCall] = StampNow();
  return stamps;
}

void AsyncStageStats::Finish(const std::shared_ptr<AsyncStamps>& stamps) {
  if (stamps == nullptr) return;
  if (stamps->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) Record(stamps->t);
}

int AsyncStageStats::Bucket(uint64_t ns) {
  if (ns == 0) return 0;
  const int bits = 64 - __builtin_clzll(ns);  // ns in [2^(bits-1), 2^bits)
  return std::min(bits, kBuckets - 1);
}

void AsyncStageStats::Record(const uint64_t (&t)[AsyncStamps::kPoints]) {
  uint64_t at = t[0];
  uint64_t parts[kParts] = {};
  for (int p = 1; p < AsyncStamps::kPoints; ++p) {
    const uint64_t next = std::max(at, t[p]);
    parts[p - 1] = next - at;
    at = next;
  }
  parts[kParts - 1] = at - t[0];  // the total
  for (int p = 0; p < kParts; ++p) {
    count_[p].fetch_add(1, std::memory_order_relaxed);
    sum_ns_[p].fetch_add(parts[p], std::memory_order_relaxed);
    hist_[p][Bucket(parts[p])].fetch_add(1, std::memory_order_relaxed);
  }
}

void AsyncStageStats::Fill(hipFileExtAsyncStageStats_t* out) const {
  for (int p = 0; p < kParts; ++p) {
    out->count[p] = count_[p].load(std::memory_order_relaxed);
    out->sum_ns[p] = sum_ns_[p].load(std::memory_order_relaxed);
    for (int b = 0; b < kBuckets; ++b) {
      out->ns_hist[p][b] = hist_[p][b].load(std::memory_order_relaxed);
    }
  }
}

}  // namespace hipfile::core
