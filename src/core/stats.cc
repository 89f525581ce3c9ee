// SPDX-License-Identifier: MIT
#include "core/stats.h"

#include <algorithm>
#include <cstring>

namespace hipfile::core {
namespace {

uint64_t Ratio(uint64_t num, uint64_t den) { return den == 0 ? 0 : num / den; }

uint64_t BytesPerSecond(uint64_t bytes, uint64_t micros) {
  if (micros == 0) return 0;
  return static_cast<uint64_t>(static_cast<long double>(bytes) * 1e6L / micros);
}

}  // namespace

size_t SizeHistogramBucket(uint64_t bytes) {
  uint64_t kib = bytes >> 10;
  size_t bucket = 0;
  while (kib > 1 && bucket < kSizeHistogramBuckets - 1) {
    kib >>= 1;
    ++bucket;
  }
  return bucket;
}

void Stats::RecordBufRegister(bool ok, int device, size_t bytes) {
  Count(ok ? buf_register_ok_ : buf_register_err_);
  if (ok && Enabled() && device >= 0 && device < HIPFILE_MAX_GPUS) {
    gpus_[device].reg_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
}

void Stats::RecordBufDeregister(bool ok, int device, size_t bytes) {
  Count(ok ? buf_deregister_ok_ : buf_deregister_err_);
  if (ok && Enabled() && device >= 0 && device < HIPFILE_MAX_GPUS) {
    // Never below zero: registrations made while the level was 0 were not added.
    uint64_t current = gpus_[device].reg_bytes.load(std::memory_order_relaxed);
    while (!gpus_[device].reg_bytes.compare_exchange_weak(
        current, current >= bytes ? current - bytes : 0, std::memory_order_relaxed)) {
    }
  }
}

void IoTally::Record(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
                     bool unaligned, const engine::PathBytes* paths) {
  Part* part = nullptr;
  for (size_t i = 0; i < used_ && part == nullptr; ++i) {
    if (parts_[i].direction == direction && parts_[i].device == device) part = &parts_[i];
  }
  if (part == nullptr) {
    if (used_ == kMaxParts) Flush();
    part = &parts_[used_++];
    part->direction = direction;
    part->device = device;
  }
  part->Count(ok, bytes, micros, unaligned, paths);
}

void IoTally::Part::Count(bool moved, uint64_t bytes_moved, uint64_t took_us, bool is_unaligned,
                          const engine::PathBytes* by_path) {
  if (!moved) {
    ++err;
    return;
  }
  ++ok;
  bytes += bytes_moved;
  micros += took_us;
  ++hist[SizeHistogramBucket(bytes_moved)];
  if (is_unaligned) ++unaligned;
  // A path the engine did not report: host memory, moved by the system calls (the only transfers
  // without a report are the engine's tests' and those that moved nothing).
  engine::PathBytes host;
  host.Add(engine::IoPath::kHost, bytes_moved);
  const engine::PathBytes& p =
      by_path != nullptr && by_path->total() == bytes_moved ? *by_path : host;
  paths += p;
  ++path_ops[static_cast<size_t>(p.primary())];
  if (p.bytes[static_cast<size_t>(engine::IoPath::kBuffered)] > 0 ||
      p.bytes[static_cast<size_t>(engine::IoPath::kIoUring)] > 0) {
    ++compat_ops;
  }
}

void IoTally::Flush() {
  if (used_ == 0) return;
  stats_.Add(*this);
  for (size_t i = 0; i < used_; ++i) parts_[i] = Part();
  used_ = 0;
}

void Stats::RecordIo(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
                     bool unaligned, const engine::PathBytes* paths) {
  if (!Enabled()) return;
  // One part, not a whole tally: this is every synchronous transfer's path.
  IoTally::Part part;
  part.direction = direction;
  part.device = device;
  part.Count(ok, bytes, micros, unaligned, paths);
  AddPart(part);
}

void Stats::Add(const IoTally& tally) {
  if (!Enabled()) return;
  for (size_t i = 0; i < tally.used_; ++i) AddPart(tally.parts_[i]);
}

void Stats::AddPart(const IoTally::Part& part) {
  const auto add = [](Counter& counter, uint64_t n) {
    if (n != 0) counter.fetch_add(n, std::memory_order_relaxed);
  };
  const bool is_read = part.direction == IoDirection::kRead;
  const auto record = [&](Direction& d) {
    add(d.ok, part.ok);
    add(d.err, part.err);
    add(d.bytes, part.bytes);
    add(d.micros, part.micros);
    for (size_t b = 0; b < kSizeHistogramBuckets; ++b) add(d.hist[b], part.hist[b]);
    add(d.compat_ops, part.compat_ops);
    for (size_t i = 0; i < engine::kIoPathCount; ++i) {
      add(d.path_bytes[i], part.paths.bytes[i]);
      add(d.path_ops[i], part.path_ops[i]);
    }
    for (size_t i = 0; i < engine::kFallbackCount; ++i) {
      add(d.fallback_bytes[i], part.paths.fallback[i]);
    }
  };
  record(is_read ? read_ : write_);
  if (part.device < 0 || part.device >= HIPFILE_MAX_GPUS) return;
  PerGpu& gpu = gpus_[part.device];
  // Written once: a store on every update would take the line from every other core.
  if (!gpu.in_use.load(std::memory_order_relaxed))
    gpu.in_use.store(true, std::memory_order_relaxed);
  record(is_read ? gpu.read : gpu.write);
  add(is_read ? gpu.unaligned_reads : gpu.unaligned_writes, part.unaligned);
}

void Stats::FillPaths(hipFileExtPathStats_t* out) const {
  std::memset(out, 0, sizeof *out);
  static_assert(engine::kIoPathCount <= HIPFILE_EXT_MAX_PATHS, "hipfile_ext.h's path arrays");
  static_assert(engine::kFallbackCount <= HIPFILE_EXT_MAX_FALLBACKS, "hipfile_ext.h's reasons");
  for (size_t i = 0; i < engine::kIoPathCount; ++i) {
    out->read_bytes[i] = Load(read_.path_bytes[i]);
    out->write_bytes[i] = Load(write_.path_bytes[i]);
    out->read_ops[i] = Load(read_.path_ops[i]);
    out->write_ops[i] = Load(write_.path_ops[i]);
  }
  for (size_t i = 0; i < engine::kFallbackCount; ++i) {
    out->read_fallback_bytes[i] = Load(read_.fallback_bytes[i]);
    out->write_fallback_bytes[i] = Load(write_.fallback_bytes[i]);
  }
}

void Stats::FillL1(hipFileStatsLevel1_t* out) const {
  std::memset(out, 0, sizeof *out);
  out->read_ops = {Load(read_.ok), Load(read_.err)};
  out->write_ops = {Load(write_.ok), Load(write_.err)};
  out->hdl_register_ops = {Load(hdl_register_ok_), Load(hdl_register_err_)};
  out->hdl_deregister_ops = {Load(hdl_deregister_ok_), Load(hdl_deregister_err_)};
  out->buf_register_ops = {Load(buf_register_ok_), Load(buf_register_err_)};
  out->buf_deregister_ops = {Load(buf_deregister_ok_), Load(buf_deregister_err_)};
  out->read_bytes = Load(read_.bytes);
  out->write_bytes = Load(write_.bytes);
  out->read_lat_sum_us = Load(read_.micros);
  out->write_lat_sum_us = Load(write_.micros);
  out->read_lat_avg_us = Ratio(out->read_lat_sum_us, out->read_ops.ok);
  out->write_lat_avg_us = Ratio(out->write_lat_sum_us, out->write_ops.ok);
  out->read_bw_bytes_per_sec = BytesPerSecond(out->read_bytes, out->read_lat_sum_us);
  out->write_bw_bytes_per_sec = BytesPerSecond(out->write_bytes, out->write_lat_sum_us);
  // ops_per_sec stay 0: there is no wall-clock window to divide by.
  batch_.FillL1(out);
}

void Stats::FillL2(hipFileStatsLevel2_t* out) const {
  std::memset(out, 0, sizeof *out);
  FillL1(&out->basic);
  for (size_t i = 0; i < kSizeHistogramBuckets; ++i) {
    out->read_size_kb_hist[i] = Load(read_.hist[i]);
    out->write_size_kb_hist[i] = Load(write_.hist[i]);
  }
}

void Stats::FillL3(hipFileStatsLevel3_t* out, runtime::GpuRuntime& gpu) const {
  std::memset(out, 0, sizeof *out);
  FillL2(&out->detailed);
  const uint64_t registrations = Load(buf_register_ok_);
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    const PerGpu& g = gpus_[device];
    if (!g.in_use.load(std::memory_order_relaxed)) continue;
    ++out->num_gpus;
    hipFilePerGpuStats_t& s = out->per_gpu_stats[device];  // indexed by device id, not compacted
    if (gpu.GetDeviceUuid(device, s.uuid) != hipSuccess) std::memset(s.uuid, 0, sizeof s.uuid);
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

}  // namespace hipfile::core
