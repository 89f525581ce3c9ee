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

void FillL3(const StatsCounters& c, hipFileStatsLevel3_t* out) {
  std::memset(out, 0, sizeof *out);
  FillL2(c, &out->detailed);
  const uint64_t registrations = Load(c.buf_register_ok);
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    const StatsCounters::PerGpu& g = c.gpus[device];
    if (Load(g.in_use) == 0) continue;
    ++out->num_gpus;
    hipFilePerGpuStats_t& s = out->per_gpu_stats[device];  // indexed by device id, not compacted
    s.read_bytes = Load(g.read.bytes);
    s.read_duration_us = Load(g.read.micros);
    s.read_bw_bytes_per_sec = BytesPerSecond(s.read_bytes, s.read_duration_us);
    s.n_total_reads = Load(g.read.ok);
    // hipFile's split: nvfs = its fast path, posix = its compatibility path. Here the
    // compatibility path is buffered I/O through staging (docs/environment.md); a transfer that
    // took it for any byte counts as posix, the rest (page-cache pinning, O_DIRECT, host memory)
    // as nvfs.
    s.n_posix_reads = Load(g.read.compat_ops);
    s.n_nvfs_reads = s.n_total_reads - std::min(s.n_total_reads, s.n_posix_reads);
    s.n_unaligned_reads = Load(g.unaligned_reads);
    s.n_reads_err = Load(g.read.err);
    s.write_bytes = Load(g.write.bytes);
    s.write_duration_us = Load(g.write.micros);
    s.write_bw_bytes_per_sec = BytesPerSecond(s.write_bytes, s.write_duration_us);
    s.n_total_writes = Load(g.write.ok);
    s.n_posix_writes = Load(g.write.compat_ops);
    s.n_nvfs_writes = s.n_total_writes - std::min(s.n_total_writes, s.n_posix_writes);
    s.n_unaligned_writes = Load(g.unaligned_writes);
    s.n_writes_err = Load(g.write.err);
    s.n_mmap = registrations;  // hipFile reports the process's buffer registrations here
    s.n_mmap_ok = registrations;
    s.reg_bytes = Load(g.reg_bytes);
  }
}

void FillProcessExtras(const StatsCounters& c, hipFileExtProcessStats_t* out) {
  out->read_compat_ops = Load(c.read.compat_ops);
  out->write_compat_ops = Load(c.write.compat_ops);
  out->read_compat_bytes = Load(c.read.compat_bytes);
  out->write_compat_bytes = Load(c.write.compat_bytes);
  out->read_compat_us = Load(c.read.compat_micros);
  out->write_compat_us = Load(c.write.compat_micros);
  out->read_compat_unaligned = Load(c.read.compat_unaligned);
  out->write_compat_unaligned = Load(c.write.compat_unaligned);
}

}  // namespace hipfile::core
