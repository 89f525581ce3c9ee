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
// ais-stats' size buckets (hipFile's PerGpuStatsV1): bucket = min(15, bit_length(bytes >> 12)),
// so 0 holds [0, 4 KiB), k [2^(k+11), 2^(k+12)) bytes, 15 64 MiB and more.
inline constexpr size_t kAisSizeBuckets = 16;
// Transfers by latency: bucket = min(31, bit_length(microseconds)), so 0 holds those under 1 us,
// k (1..30) [2^(k-1), 2^k) us, 31 2^30 us (about 18 minutes) and more.
inline constexpr size_t kLatencyBuckets = 32;
// hipFile's two backends, by transfer: one that took the compatibility path (buffered or
// io_uring) for any of its bytes is a Fallback one (hipFileGetStatsL3's n_posix_*); the others
// (page-cache windows, O_DIRECT, host memory) are Fastpath ones (n_nvfs_*). A failure counts
// under Fastpath, the path hipFile tries first.
enum class StatsBackend : size_t { kFastpath = 0, kFallback = 1 };
inline constexpr size_t kStatsBackends = 2;
// Stream-ordered operations by the way they went (hipFileExtAsyncWay_t, whose values these are),
// and what happened to the staged ones (hipFileExtAsyncWayStats_t's other fields).
enum class AsyncWay : size_t {
  kRunAtOnce = 0,
  kReadAtSubmission = 1,
  kCopiedAtSubmission = 2,
  kStaged = 3,
  kWorker = 4,
  kHostFunc = 5
};
inline constexpr size_t kAsyncWays = 6;
enum class AsyncEvent : size_t {
  kLargeChunks = 0,
  kChainAlone = 1,
  kStagingWait = 2,
  kCopiedAhead = 3,
  kUsedAhead = 4,
  kAheadOnCompanion = 5,
  kOneLaunch = 6,
  kAheadInParts = 7,
  kAheadNotPinned = 8,
  kAheadNoRoom = 9,
  kAheadWindowsChosen = 10
};
inline constexpr size_t kAsyncEvents = 11;
// The engine's waits for its copies (hipFileExtCopyWaitStats_t's fields, in its order).
enum class CopyWaitCounter : size_t { kWaits = 0, kSlept = 1, kPollNs = 2, kSleepNs = 3 };
inline constexpr size_t kCopyWaitCounters = 4;

struct StatsCounters {
  using Counter = std::atomic<uint64_t>;
  // Process-wide, per direction.
  struct Direction {
    Counter ok, err, bytes, micros;
    Counter hist[kSizeHistogramBuckets];
    Counter latency[kLatencyBuckets];  // successful transfers by how long they took
    Counter path_bytes[engine::kIoPathCount];
    Counter path_ops[engine::kIoPathCount];  // by the transfer's primary path
    Counter fallback_bytes[engine::kFallbackCount];
  };
  // One backend's transfers of one direction on one GPU, by ais-stats size bucket: bytes moved,
  // transfers, the sum of their latencies; failures by the size asked for.
  struct SizeBuckets {
    Counter bytes[kAisSizeBuckets], count[kAisSizeBuckets], micros[kAisSizeBuckets];
    Counter errors[kAisSizeBuckets];
  };
  struct PerGpu {
    std::atomic<uint64_t> in_use;  // 0 or 1; a word, so that the layout has no padding
    Counter uuid[2];               // the device's 16-byte uuid, published when the driver opens
    Counter reg_bytes;
    // [backend][0 read, 1 write]: everything hipFileGetStatsL3 says of this GPU derives from them.
    SizeBuckets sizes[kStatsBackends][2];
    Counter unaligned[kStatsBackends][2];  // successful transfers off the O_DIRECT alignment
  };

  std::atomic<uint64_t> level;
  Counter hdl_register_ok, hdl_register_err;
  Counter hdl_deregister_ok, hdl_deregister_err;
  Counter buf_register_ok, buf_register_err;
  Counter buf_deregister_ok, buf_deregister_err;
  Direction read, write;  // all GPUs, and failures with no GPU known
  PerGpu gpus[HIPFILE_MAX_GPUS];
  BatchCounters batch;  // L1's batch fields
  // Stream-ordered operations: [0 read, 1 write][AsyncWay], and AsyncEvent counts.
  Counter async_ways[2][kAsyncWays];
  Counter async_events[kAsyncEvents];
  Counter copy_waits[kCopyWaitCounters];  // by CopyWaitCounter
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
// Each GPU's uuid is the one published in the counters (zero before the driver opened).
void FillL3(const StatsCounters& c, hipFileStatsLevel3_t* out);
// What hipFileExtProcessStats_t adds to the two above: the transfers that took the compatibility
// path, their latency and how many were unaligned, per direction.
void FillProcessExtras(const StatsCounters& c, hipFileExtProcessStats_t* out);
void FillLatency(const StatsCounters& c, hipFileExtLatencyStats_t* out);
// GPU `device`'s ais-stats tables (0 <= device < HIPFILE_MAX_GPUS).
void FillGpu(const StatsCounters& c, int device, hipFileExtGpuStats_t* out);
void FillAsyncWays(const StatsCounters& c, hipFileExtAsyncWayStats_t* out);
void FillCopyWaits(const StatsCounters& c, hipFileExtCopyWaitStats_t* out);

}  // namespace hipfile::core
