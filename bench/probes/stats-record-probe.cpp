// SPDX-License-Identifier: MIT
// stats-record-probe: what recording one transfer in the statistics costs (core/stats.h), in
// nanoseconds per call on one thread, at levels 0 and 1: the synchronous path (Stats::RecordIo,
// one update of the shared counters per transfer) and a batch group's (IoTally, one update per
// group). The counters are in process memory, as in a published region (both are plain words).
// Compare with a 4 KiB synchronous read on a GPU, about 12 us (docs/stats.md).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "core/stats.h"
#include "engine/io_path.h"

using hipfile::core::IoDirection;
using hipfile::core::IoTally;
using hipfile::core::Stats;

namespace {

template <typename F>
double NanosPerCall(long n, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) f(i);
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 5000000;
  static Stats stats;  // large: not on the stack
  hipfile::engine::PathBytes direct;
  direct.Add(hipfile::engine::IoPath::kDirect, 4096);
  hipfile::engine::PathBytes buffered;
  buffered.AddBuffered(hipfile::engine::Fallback::kSmall, 4096);
  for (const unsigned level : {0u, 1u}) {
    stats.set_level(level);
    // Warm the code and the lines first, then measure the best of three.
    double sync = 1e9, compat = 1e9, tally = 1e9;
    for (int round = 0; round < 4; ++round) {
      const double s = NanosPerCall(n, [&](long i) {
        stats.RecordIo(IoDirection::kRead, 0, true, 4096, 10 + (i & 7), false, &direct);
      });
      const double c = NanosPerCall(n, [&](long i) {
        stats.RecordIo(IoDirection::kWrite, 0, true, 4096, 20 + (i & 7), true, &buffered);
      });
      const double t = NanosPerCall(n / 64,
                                    [&](long i) {
                                      IoTally group(stats);
                                      for (int e = 0; e < 64; ++e) {
                                        group.Record(IoDirection::kRead, 0, true, 4096,
                                                     10 + ((i + e) & 7), false, &direct);
                                      }
                                    }) /
                       64;
      if (round == 0) continue;
      sync = sync < s ? sync : s;
      compat = compat < c ? compat : c;
      tally = tally < t ? tally : t;
    }
    std::printf(
        "level %u: RecordIo fast path %.1f ns, compatibility path %.1f ns; "
        "IoTally %.1f ns per entry\n",
        level, sync, compat, tally);
  }
  return 0;
}
