// SPDX-License-Identifier: MIT
// Stats: the counters behind hipFileGetStatsL1/L2/L3 and hipFileExtGetPathStats, in process memory
// or in the region the process publishes for tools (core/stats_region.h). Lock-free (relaxed
// atomics); a snapshot taken while I/O runs may mix counts from before and after an operation.
#pragma once

#include <hipfile.h>
#include <hipfile_ext.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/stats_counters.h"
#include "engine/copy_wait.h"
#include "engine/io_path.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::core {

enum class IoDirection { kRead, kWrite };

// read_size_kb_hist / write_size_kb_hist bucket of a transfer of `bytes`: bucket 0 holds
// transfers below 2 KiB, bucket i (1..30) those in [2^i KiB, 2^(i+1) KiB), bucket 31 the rest.
size_t SizeHistogramBucket(uint64_t bytes);
// ais-stats' size bucket of a transfer of `bytes` (kAisSizeBuckets: stats_counters.h).
size_t AisSizeBucket(uint64_t bytes);
// The latency bucket of a transfer that took `micros` (kLatencyBuckets: stats_counters.h).
size_t LatencyBucket(uint64_t micros);

class Stats;

// Sums of RecordIo calls made by one thread, added to a Stats' shared counters at once (when the
// tally is destroyed, or when it holds its limit of distinct direction/GPU pairs): a batch group
// records its entries with one atomic update per counter rather than one per entry - every worker
// updates the same cache lines, and at a million entries a second per-entry updates cost cores.
// Not thread-safe; the Stats must outlive it.
class IoTally {
 public:
  explicit IoTally(Stats& stats) : stats_(stats) {}
  ~IoTally() { Flush(); }
  IoTally(const IoTally&) = delete;
  IoTally& operator=(const IoTally&) = delete;

  // As Stats::RecordIo.
  void Record(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
              bool unaligned, const engine::PathBytes* paths = nullptr);
  // Adds what was recorded to the Stats and starts again from zero.
  void Flush();

 private:
  friend class Stats;
  struct Part {
    IoDirection direction = IoDirection::kRead;
    int device = -1;
    uint64_t ok = 0, err = 0, bytes = 0, micros = 0;
    uint64_t hist[kSizeHistogramBuckets] = {};
    uint64_t latency[kLatencyBuckets] = {};
    engine::PathBytes paths;                       // bytes by path, buffered bytes by why
    uint64_t path_ops[engine::kIoPathCount] = {};  // transfers by their primary path
    // The GPU's ais-stats buckets, [backend][bucket]; `sized` has bit backend * 16 + bucket set
    // for each bucket touched, so that adding a part costs what it holds.
    uint64_t size_bytes[kStatsBackends][kAisSizeBuckets] = {};
    uint64_t size_count[kStatsBackends][kAisSizeBuckets] = {};
    uint64_t size_micros[kStatsBackends][kAisSizeBuckets] = {};
    uint64_t size_errors[kStatsBackends][kAisSizeBuckets] = {};
    uint32_t sized = 0;
    uint64_t unaligned[kStatsBackends] = {};
    // Counts one transfer of this direction and GPU.
    void Count(bool moved, uint64_t bytes_moved, uint64_t took_us, bool is_unaligned,
               const engine::PathBytes* by_path);
  };
  static_assert(kStatsBackends * kAisSizeBuckets <= 32, "Part::sized is 32 bits");
  static constexpr size_t kMaxParts = 4;

  Stats& stats_;
  Part parts_[kMaxParts];
  size_t used_ = 0;
};

// Also what the engine tells of each wait for its copies (engine::CopyWaitCounts).
class Stats final : public engine::CopyWaitCounts {
 public:
  Stats();
  ~Stats() = default;
  Stats(const Stats&) = delete;
  Stats& operator=(const Stats&) = delete;

  // 0 records nothing (each record call costs one relaxed load); 1 and above record everything.
  void set_level(unsigned level) { c_->level.store(level, std::memory_order_relaxed); }
  unsigned level() const {
    return static_cast<unsigned>(c_->level.load(std::memory_order_relaxed));
  }
  bool enabled() const { return Enabled(); }
  // L1's batch fields: the batch API records there when enabled().
  BatchStats batch() { return BatchStats(c_->batch); }

  // From now on the counters live in `shared` (a published region, which must outlive this
  // Stats), starting from the values counted so far. Call it before the Stats is shared between
  // threads: the switch itself is not synchronized.
  void MoveCountersTo(StatsCounters* shared);
  // Every counter back to zero (cuFileStatsReset), except what describes the process rather than
  // counts its work: the level, each GPU's uuid and in-use mark, and the bytes registered now (a
  // later deregistration subtracts from them). Not atomic as a whole: a transfer recorded during
  // the reset may keep part of its counts.
  void Reset();
  // cuFileStatsStop / cuFileStatsStart: Pause records nothing from now on, remembering the level
  // when it was above 0; Resume, at level 0, records again at the level Pause remembered (1 if
  // none was), and at another level changes nothing.
  void Pause() {
    const unsigned was = level();
    if (was > 0) paused_level_.store(was, std::memory_order_relaxed);
    set_level(0);
  }
  void Resume() {
    uint64_t expected = 0;
    c_->level.compare_exchange_strong(expected, paused_level_.load(std::memory_order_relaxed),
                                      std::memory_order_relaxed);
  }
  // Back to process memory, with the values counted so far (a forked child, single-threaded).
  void MoveCountersHome() { MoveCountersTo(&own_); }
  const StatsCounters& counters() const { return *c_; }

  void RecordHandleRegister(bool ok);
  void RecordHandleDeregister(bool ok);
  void RecordBufRegister(bool ok, int device, size_t bytes);
  void RecordBufDeregister(bool ok, int device, size_t bytes);
  // One hipFileRead/Write. `device` is -1 when the failure came before the buffer was known;
  // `bytes`: moved when `ok`, else asked for (a failure's ais-stats size bucket); `unaligned`: the
  // transfer did not meet the file's O_DIRECT alignment; `paths`: how its bytes went (null: the
  // path is not known, counted as host memory moved by the system calls).
  void RecordIo(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
                bool unaligned, const engine::PathBytes* paths = nullptr);
  // One stream-ordered operation accepted, by the way it went; one AsyncEvent of a staged one.
  void RecordAsyncWay(IoDirection direction, AsyncWay way) {
    Count(c_->async_ways[direction == IoDirection::kRead ? 0 : 1][static_cast<size_t>(way)]);
  }
  void RecordAsyncEvent(AsyncEvent event) { Count(c_->async_events[static_cast<size_t>(event)]); }
  // One wait for the engine's copies (engine::CopyWaitCounts; hipFileExtGetCopyWaitStats).
  void Waited(bool slept, std::chrono::nanoseconds polled,
              std::chrono::nanoseconds asleep) override;
  // Device `device`'s uuid, for tools reading the counters (hipFileGetStatsL3 in another process).
  void PublishUuid(int device, const char (&uuid)[16]);
  // Everything an IoTally recorded (IoTally::Flush calls it).
  void Add(const IoTally& tally);

  // Bytes by path and direction, transfers by primary path, buffered bytes by why
  // (hipFileExtGetPathStats).
  void FillPaths(hipFileExtPathStats_t* out) const { core::FillPaths(*c_, out); }

  void FillL1(hipFileStatsLevel1_t* out) const { core::FillL1(*c_, out); }
  void FillL2(hipFileStatsLevel2_t* out) const { core::FillL2(*c_, out); }
  void FillLatency(hipFileExtLatencyStats_t* out) const { core::FillLatency(*c_, out); }
  void FillGpu(int device, hipFileExtGpuStats_t* out) const { core::FillGpu(*c_, device, out); }
  void FillAsyncWays(hipFileExtAsyncWayStats_t* out) const { core::FillAsyncWays(*c_, out); }
  void FillCopyWaits(hipFileExtCopyWaitStats_t* out) const { core::FillCopyWaits(*c_, out); }
  // uuid of each GPU in use from gpu.GetDeviceUuid (zeros when it fails).
  void FillL3(hipFileStatsLevel3_t* out, runtime::GpuRuntime& gpu) const;

 private:
  using Counter = StatsCounters::Counter;

  void AddPart(const IoTally::Part& part);
  bool Enabled() const { return level() > 0; }
  void Count(Counter& counter) {
    if (Enabled()) counter.fetch_add(1, std::memory_order_relaxed);
  }

  std::atomic<unsigned> paused_level_{1};
  StatsCounters own_;
  StatsCounters* c_ = &own_;  // own_, or the published region's
};

}  // namespace hipfile::core
