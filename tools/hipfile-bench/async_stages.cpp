// SPDX-License-Identifier: MIT
#include "async_stages.h"

#include <cinttypes>
#include <cstdio>

namespace hipfile_bench {
namespace {

// The upper bound, in us, of the bucket holding the q-th fraction of part p's operations.
double PercentileUs(const hipFileExtAsyncStageStats_t& s, int p, double q) {
  const uint64_t n = s.count[p];
  if (n == 0) return 0;
  const auto want = static_cast<uint64_t>(q * static_cast<double>(n - 1)) + 1;
  uint64_t seen = 0;
  for (int b = 0; b < HIPFILE_EXT_ASYNC_STAGE_BUCKETS; ++b) {
    seen += s.ns_hist[p][b];
    if (seen >= want) return b == 0 ? 0 : static_cast<double>(1ull << b) / 1000.0;
  }
  return static_cast<double>(1ull << (HIPFILE_EXT_ASYNC_STAGE_BUCKETS - 1)) / 1000.0;
}

double MeanUs(const hipFileExtAsyncStageStats_t& s, int p) {
  return s.count[p] == 0
             ? 0
             : static_cast<double>(s.sum_ns[p]) / static_cast<double>(s.count[p]) / 1000.0;
}

}  // namespace

hipFileExtAsyncStageStats_t StagesBetween(const hipFileExtAsyncStageStats_t& before,
                                          const hipFileExtAsyncStageStats_t& after) {
  hipFileExtAsyncStageStats_t d = {};
  for (int p = 0; p < HIPFILE_EXT_ASYNC_STAGES; ++p) {
    d.count[p] = after.count[p] - before.count[p];
    d.sum_ns[p] = after.sum_ns[p] - before.sum_ns[p];
    for (int b = 0; b < HIPFILE_EXT_ASYNC_STAGE_BUCKETS; ++b) {
      d.ns_hist[p][b] = after.ns_hist[p][b] - before.ns_hist[p][b];
    }
  }
  return d;
}

std::string StagesJson(const hipFileExtAsyncStageStats_t& s) {
  std::string out = "{";
  for (int p = 0; p < HIPFILE_EXT_ASYNC_STAGES; ++p) {
    char part[192];
    std::snprintf(part, sizeof part,
                  "%s\"%s\": {\"count\": %" PRIu64
                  ", \"mean_us\": %.3f, \"p50_us\": %.3f, \"p99_us\": %.3f}",
                  p == 0 ? "" : ", ", hipFileExtAsyncStageName(p), s.count[p], MeanUs(s, p),
                  PercentileUs(s, p, 0.50), PercentileUs(s, p, 0.99));
    out += part;
  }
  return out + "}";
}

std::string StagesText(const hipFileExtAsyncStageStats_t& s) {
  std::string out =
      "Async stages (us; p50/p99: upper bound of the log2 bucket):\n"
      "  part        count       mean        p50        p99\n";
  for (int p = 0; p < HIPFILE_EXT_ASYNC_STAGES; ++p) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %8" PRIu64 " %10.2f %10.2f %10.2f\n",
                  hipFileExtAsyncStageName(p), s.count[p], MeanUs(s, p), PercentileUs(s, p, 0.50),
                  PercentileUs(s, p, 0.99));
    out += line;
  }
  return out;
}

}  // namespace hipfile_bench
