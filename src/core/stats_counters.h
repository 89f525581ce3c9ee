// SPDX-License-Identifier: MIT
// StatsCounters: every counter behind the statistics, as plain data that may live in memory
// shared with another process (core/stats_region.h), and the functions that turn them into
// hipFileStatsLevel1/2/3_t and hipFileExtPathStats_t - one place for the process's own calls and
// for a tool reading another process's counters.
//
// Address-free: std::atomic<uint64_t> is lock-free on the platforms built for (asserted below),
// so an atomic in a shared mapping is the plain word, updated and read with the CPU's own
// instructions. A zero-filled region is a valid StatsCounters with every counter 0 (level 0).
// Relaxed throughout: counters are independent, and a snapshot taken while I/O runs may mix counts
// from before and after an operation.
#pragma once

#include <hipfile.h>
#include <hipfile_ext.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/batch_stats.h"
#include "engine/io_path.h"

namespace hipfile::core {

inline constexpr size_t kSizeHistogramBuckets = 32;

struct StatsCounters {
  using Counter = std::atomic<uint64_t>;
  struct Direction {
    Counter ok, err, bytes, micros;
    Counter hist[kSizeHistogramBuckets];
    Counter compat_ops;  // transfers that took the compatibility path for some bytes
    // Their bytes (by every path), latency and unaligned count: the report's Fallback lines. Only
    // the compatibility path adds to them, so the fast path pays nothing for them.
    Counter compat_bytes, compat_micros, compat_unaligned;
    Counter path_bytes[engine::kIoPathCount];
    Counter path_ops[engine::kIoPathCount];  // by the transfer's primary path
    Counter fallback_bytes[engine::kFallbackCount];
  };
  struct PerGpu {
    std::atomic<uint64_t> in_use;  // 0 or 1; a word, so that the layout has no padding
    Direction read, write;
    Counter unaligned_reads, unaligned_writes;
    Counter reg_bytes;
  };

  std::atomic<uint64_t> level;
  Counter hdl_register_ok, hdl_register_err;
  Counter hdl_deregister_ok, hdl_deregister_err;
  Counter buf_register_ok, buf_register_err;
  Counter buf_deregister_ok, buf_deregister_err;
  Direction read, write;  // all GPUs, and failures with no GPU known
  PerGpu gpus[HIPFILE_MAX_GPUS];
  BatchCounters batch;  // L1's batch fields
};

static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "StatsCounters is shared between processes: its atomics must be plain words");
static_assert(std::is_standard_layout_v<StatsCounters>, "StatsCounters is shared memory");
static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t), "no lock inside an atomic");

// Zero: every counter 0 and `level` 0, as a fresh zero-filled region.
void ZeroCounters(StatsCounters& c);

void FillPaths(const StatsCounters& c, hipFileExtPathStats_t* out);
void FillL1(const StatsCounters& c, hipFileStatsLevel1_t* out);
void FillL2(const StatsCounters& c, hipFileStatsLevel2_t* out);
// Everything but each GPU's uuid (left zero: only the process that runs the GPU can ask).
void FillL3(const StatsCounters& c, hipFileStatsLevel3_t* out);
// What hipFileExtProcessStats_t adds to the two above: the transfers that took the compatibility
// path, their latency and how many were unaligned, per direction.
void FillProcessExtras(const StatsCounters& c, hipFileExtProcessStats_t* out);

}  // namespace hipfile::core
