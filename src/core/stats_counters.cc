// SPDX-License-Identifier: MIT
#include "core/stats_counters.h"

#include <algorithm>
#include <cstring>

namespace hipfile::core {
namespace {

uint64_t Ratio(uint64_t num, uint64_t den) { return den == 0 ? 0 : num / den; }

uint64_t BytesPerSecond(uint64_t bytes, uint64_t micros) {
  if (micros == 0) return 0;
  return static_cast<uint64_t>(static_cast<long double>(bytes) * 1e6L / micros);
}

uint64_t Load(const StatsCounters::Counter& c) { return c.load(std::memory_order_relaxed); }

}  // namespace

void ZeroCounters(StatsCounters& c) {
  constexpr size_t kWords = sizeof(StatsCounters) / sizeof(uint64_t);
  auto* words = reinterpret_cast<std::atomic<uint64_t>*>(&c);
  for (size_t i = 0; i < kWords; ++i) words[i].store(0, std::memory_order_relaxed);
}

void FillPaths(const StatsCounters& c, hipFileExtPathStats_t* out) {
  std::memset(out, 0, sizeof *out);
  static_assert(engine::kIoPathCount <= HIPFILE_EXT_MAX_PATHS, "hipfile_ext.h's path arrays");
  static_assert(engine::kFallbackCount <= HIPFILE_EXT_MAX_FALLBACKS, "hipfile_ext.h's reasons");
  for (size_t i = 0; i < engine::kIoPathCount; ++i) {
    out->read_bytes[i] = Load(c.read.path_bytes[i]);
    out->write_bytes[i] = Load(c.write.path_bytes[i]);
    out->read_ops[i] = Load(c.read.path_ops[i]);
    out->write_ops[i] = Load(c.write.path_ops[i]);
  }
  for (size_t i = 0; i < engine::kFallbackCount; ++i) {
    out->read_fallback_bytes[i] = Load(c.read.fallback_bytes[i]);
    out->write_fallback_bytes[i] = Load(c.write.fallback_bytes[i]);
  }
}

void FillL1(const StatsCounters& c, hipFileStatsLevel1_t* out) {
  std::memset(out, 0, sizeof *out);
  out->read_ops = {Load(c.read.ok), Load(c.read.err)};
  out->write_ops = {Load(c.write.ok), Load(c.write.err)};
  out->hdl_register_ops = {Load(c.hdl_register_ok), Load(c.hdl_register_err)};
  out->hdl_deregister_ops = {Load(c.hdl_deregister_ok), Load(c.hdl_deregister_err)};
  out->buf_register_ops = {Load(c.buf_register_ok), Load(c.buf_register_err)};
  out->buf_deregister_ops = {Load(c.buf_deregister_ok), Load(c.buf_deregister_err)};
  out->read_bytes = Load(c.read.bytes);
  out->write_bytes = Load(c.write.bytes);
  out->read_lat_sum_us = Load(c.read.micros);
  out->write_lat_sum_us = Load(c.write.micros);
  out->read_lat_avg_us = Ratio(out->read_lat_sum_us, out->read_ops.ok);
  out->write_lat_avg_us = Ratio(out->write_lat_sum_us, out->write_ops.ok);
  out->read_bw_bytes_per_sec = BytesPerSecond(out->read_bytes, out->read_lat_sum_us);
  out->write_bw_bytes_per_sec = BytesPerSecond(out->write_bytes, out->write_lat_sum_us);
  // ops_per_sec and the batch counters stay 0 (as in hipFile): there is no batch API yet and no
  // wall-clock window to divide by.
  FillBatchL1(c.batch, out);
}

void FillL2(const StatsCounters& c, hipFileStatsLevel2_t* out) {
  std::memset(out, 0, sizeof *out);
  FillL1(c, &out->basic);
  for (size_t i = 0; i < kSizeHistogramBuckets; ++i) {
    out->read_size_kb_hist[i] = Load(c.read.hist[i]);
    out->write_size_kb_hist[i] = Load(c.write.hist[i]);
  }
}

namespace {

uint64_t Sum(const StatsCounters::Counter (&buckets)[kAisSizeBuckets]) {
  uint64_t total = 0;
  for (const StatsCounters::Counter& b : buckets) total += Load(b);
  return total;
}

// One direction (0 read, 1 write) of one GPU, both backends together and the Fallback share.
struct GpuDirection {
  uint64_t ok = 0, err = 0, bytes = 0, micros = 0, unaligned = 0;
  uint64_t compat_ops = 0, compat_bytes = 0, compat_micros = 0, compat_unaligned = 0;
};

GpuDirection SumGpu(const StatsCounters::PerGpu& g, size_t dir) {
  GpuDirection d;
  for (size_t b = 0; b < kStatsBackends; ++b) {
    const StatsCounters::SizeBuckets& h = g.sizes[b][dir];
    const uint64_t ok = Sum(h.count), bytes = Sum(h.bytes), micros = Sum(h.micros);
    const uint64_t unaligned = Load(g.unaligned[b][dir]);
    d.ok += ok;
    d.err += Sum(h.errors);
    d.bytes += bytes;
    d.micros += micros;
    d.unaligned += unaligned;
    if (b == static_cast<size_t>(StatsBackend::kFallback)) {
      d.compat_ops = ok;
      d.compat_bytes = bytes;
      d.compat_micros = micros;
      d.compat_unaligned = unaligned;
    }
  }
  return d;
}

void LoadUuid(const StatsCounters::PerGpu& g, char (&uuid)[HIPFILE_GPU_UUID_LEN]) {
  const uint64_t words[2] = {Load(g.uuid[0]), Load(g.uuid[1])};
  static_assert(sizeof words == HIPFILE_GPU_UUID_LEN, "two words hold a uuid");
  std::memcpy(uuid, words, sizeof words);
}

}  // namespace

void FillL3(const StatsCounters& c, hipFileStatsLevel3_t* out) {
  std::memset(out, 0, sizeof *out);
  FillL2(c, &out->detailed);
  const uint64_t registrations = Load(c.buf_register_ok);
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    const StatsCounters::PerGpu& g = c.gpus[device];
    if (Load(g.in_use) == 0) continue;
    ++out->num_gpus;
    hipFilePerGpuStats_t& s = out->per_gpu_stats[device];  // indexed by device id, not compacted
    LoadUuid(g, s.uuid);
    const GpuDirection r = SumGpu(g, 0), w = SumGpu(g, 1);
    s.read_bytes = r.bytes;
    s.read_duration_us = r.micros;
    s.read_bw_bytes_per_sec = BytesPerSecond(s.read_bytes, s.read_duration_us);
    s.n_total_reads = r.ok;
    // hipFile's split: nvfs = its fast path, posix = its compatibility path (StatsBackend).
    s.n_posix_reads = r.compat_ops;
    s.n_nvfs_reads = r.ok - r.compat_ops;
    s.n_unaligned_reads = r.unaligned;
    s.n_reads_err = r.err;
    s.write_bytes = w.bytes;
    s.write_duration_us = w.micros;
    s.write_bw_bytes_per_sec = BytesPerSecond(s.write_bytes, s.write_duration_us);
    s.n_total_writes = w.ok;
    s.n_posix_writes = w.compat_ops;
    s.n_nvfs_writes = w.ok - w.compat_ops;
    s.n_unaligned_writes = w.unaligned;
    s.n_writes_err = w.err;
    s.n_mmap = registrations;  // hipFile reports the process's buffer registrations here
    s.n_mmap_ok = registrations;
    s.reg_bytes = Load(g.reg_bytes);
  }
}

void FillProcessExtras(const StatsCounters& c, hipFileExtProcessStats_t* out) {
  for (const StatsCounters::PerGpu& g : c.gpus) {
    const GpuDirection r = SumGpu(g, 0), w = SumGpu(g, 1);
    out->read_compat_ops += r.compat_ops;
    out->write_compat_ops += w.compat_ops;
    out->read_compat_bytes += r.compat_bytes;
    out->write_compat_bytes += w.compat_bytes;
    out->read_compat_us += r.compat_micros;
    out->write_compat_us += w.compat_micros;
    out->read_compat_unaligned += r.compat_unaligned;
    out->write_compat_unaligned += w.compat_unaligned;
  }
}

void FillLatency(const StatsCounters& c, hipFileExtLatencyStats_t* out) {
  std::memset(out, 0, sizeof *out);
  static_assert(kLatencyBuckets == HIPFILE_EXT_LATENCY_BUCKETS, "hipfile_ext.h's buckets");
  for (size_t i = 0; i < kLatencyBuckets; ++i) {
    out->read_us_hist[i] = Load(c.read.latency[i]);
    out->write_us_hist[i] = Load(c.write.latency[i]);
  }
}

void FillGpu(const StatsCounters& c, int device, hipFileExtGpuStats_t* out) {
  std::memset(out, 0, sizeof *out);
  static_assert(kAisSizeBuckets == HIPFILE_EXT_SIZE_BUCKETS, "hipfile_ext.h's buckets");
  static_assert(kStatsBackends == HIPFILE_EXT_BACKEND_COUNT &&
                    hipFileExtBackendFastpath == static_cast<int>(StatsBackend::kFastpath) &&
                    hipFileExtBackendFallback == static_cast<int>(StatsBackend::kFallback),
                "hipfile_ext.h's backends");
  const StatsCounters::PerGpu& g = c.gpus[device];
  out->in_use = Load(g.in_use);
  LoadUuid(g, out->uuid);
  for (size_t b = 0; b < kStatsBackends; ++b) {
    for (size_t dir = 0; dir < 2; ++dir) {
      const StatsCounters::SizeBuckets& from = g.sizes[b][dir];
      hipFileExtSizeHistogram_t& to = dir == 0 ? out->read[b] : out->write[b];
      for (size_t i = 0; i < kAisSizeBuckets; ++i) {
        to.bytes[i] = Load(from.bytes[i]);
        to.count[i] = Load(from.count[i]);
        to.time_us[i] = Load(from.micros[i]);
        to.errors[i] = Load(from.errors[i]);
      }
    }
    out->read_unaligned[b] = Load(g.unaligned[b][0]);
    out->write_unaligned[b] = Load(g.unaligned[b][1]);
  }
}

void FillAsyncWays(const StatsCounters& c, hipFileExtAsyncWayStats_t* out) {
  std::memset(out, 0, sizeof *out);
  static_assert(
      kAsyncWays == HIPFILE_EXT_ASYNC_WAY_COUNT && kAsyncWays <= HIPFILE_EXT_MAX_ASYNC_WAYS &&
          hipFileExtAsyncWayRunAtOnce == static_cast<int>(AsyncWay::kRunAtOnce) &&
          hipFileExtAsyncWayReadAtSubmission == static_cast<int>(AsyncWay::kReadAtSubmission) &&
          hipFileExtAsyncWayCopiedAtSubmission == static_cast<int>(AsyncWay::kCopiedAtSubmission) &&
          hipFileExtAsyncWayStaged == static_cast<int>(AsyncWay::kStaged) &&
          hipFileExtAsyncWayWorker == static_cast<int>(AsyncWay::kWorker) &&
          hipFileExtAsyncWayHostFunc == static_cast<int>(AsyncWay::kHostFunc),
      "hipfile_ext.h's ways");
  for (size_t i = 0; i < kAsyncWays; ++i) {
    out->read_ops[i] = Load(c.async_ways[0][i]);
    out->write_ops[i] = Load(c.async_ways[1][i]);
  }
  const auto event = [&c](AsyncEvent e) { return Load(c.async_events[static_cast<size_t>(e)]); };
  out->large_chunks = event(AsyncEvent::kLargeChunks);
  out->chains_alone = event(AsyncEvent::kChainAlone);
  out->staging_waits = event(AsyncEvent::kStagingWait);
  out->copied_ahead = event(AsyncEvent::kCopiedAhead);
  out->used_ahead = event(AsyncEvent::kUsedAhead);
  out->ahead_on_companion = event(AsyncEvent::kAheadOnCompanion);
  out->one_launch = event(AsyncEvent::kOneLaunch);
  out->ahead_in_parts = event(AsyncEvent::kAheadInParts);
  out->ahead_not_pinned = event(AsyncEvent::kAheadNotPinned);
  out->ahead_no_room = event(AsyncEvent::kAheadNoRoom);
  out->ahead_windows_chosen = event(AsyncEvent::kAheadWindowsChosen);
}

void FillCopyWaits(const StatsCounters& c, hipFileExtCopyWaitStats_t* out) {
  std::memset(out, 0, sizeof *out);
  const auto counter = [&c](CopyWaitCounter k) {
    return Load(c.copy_waits[static_cast<size_t>(k)]);
  };
  out->waits = counter(CopyWaitCounter::kWaits);
  out->slept = counter(CopyWaitCounter::kSlept);
  out->poll_ns = counter(CopyWaitCounter::kPollNs);
  out->sleep_ns = counter(CopyWaitCounter::kSleepNs);
}

}  // namespace hipfile::core
