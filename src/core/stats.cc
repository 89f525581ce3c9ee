// SPDX-License-Identifier: MIT
#include "core/stats.h"

#include <algorithm>
#include <cstring>

namespace hipfile::core {

size_t SizeHistogramBucket(uint64_t bytes) {
  uint64_t kib = bytes >> 10;
  size_t bucket = 0;
  while (kib > 1 && bucket < kSizeHistogramBuckets - 1) {
    kib >>= 1;
    ++bucket;
  }
  return bucket;
}

Stats::Stats() {
  ZeroCounters(own_);
  own_.level.store(1, std::memory_order_relaxed);
}

void Stats::MoveCountersTo(StatsCounters* shared) {
  if (shared == c_) return;
  // Word by word: both are arrays of lock-free 64-bit atomics (stats_counters.h).
  constexpr size_t kWords = sizeof(StatsCounters) / sizeof(uint64_t);
  static_assert(sizeof(StatsCounters) % sizeof(uint64_t) == 0, "StatsCounters is all words");
  auto* from = reinterpret_cast<const std::atomic<uint64_t>*>(c_);
  auto* to = reinterpret_cast<std::atomic<uint64_t>*>(shared);
  for (size_t i = 0; i < kWords; ++i) {
    to[i].store(from[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  c_ = shared;
}

void Stats::RecordHandleRegister(bool ok) {
  Count(ok ? c_->hdl_register_ok : c_->hdl_register_err);
}

void Stats::RecordHandleDeregister(bool ok) {
  Count(ok ? c_->hdl_deregister_ok : c_->hdl_deregister_err);
}

void Stats::RecordBufRegister(bool ok, int device, size_t bytes) {
  Count(ok ? c_->buf_register_ok : c_->buf_register_err);
  if (ok && Enabled() && device >= 0 && device < HIPFILE_MAX_GPUS) {
    c_->gpus[device].reg_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
}

void Stats::RecordBufDeregister(bool ok, int device, size_t bytes) {
  Count(ok ? c_->buf_deregister_ok : c_->buf_deregister_err);
  if (ok && Enabled() && device >= 0 && device < HIPFILE_MAX_GPUS) {
    // Never below zero: registrations made while the level was 0 were not added.
    Counter& reg = c_->gpus[device].reg_bytes;
    uint64_t current = reg.load(std::memory_order_relaxed);
    while (!reg.compare_exchange_weak(current, current >= bytes ? current - bytes : 0,
                                      std::memory_order_relaxed)) {
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
    compat_bytes += bytes_moved;
    compat_micros += took_us;
    if (is_unaligned) ++compat_unaligned;
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
  const auto record = [&](StatsCounters::Direction& d) {
    add(d.ok, part.ok);
    add(d.err, part.err);
    add(d.bytes, part.bytes);
    add(d.micros, part.micros);
    for (size_t b = 0; b < kSizeHistogramBuckets; ++b) add(d.hist[b], part.hist[b]);
    add(d.compat_ops, part.compat_ops);
    add(d.compat_bytes, part.compat_bytes);
    add(d.compat_micros, part.compat_micros);
    add(d.compat_unaligned, part.compat_unaligned);
    for (size_t i = 0; i < engine::kIoPathCount; ++i) {
      add(d.path_bytes[i], part.paths.bytes[i]);
      add(d.path_ops[i], part.path_ops[i]);
    }
    for (size_t i = 0; i < engine::kFallbackCount; ++i) {
      add(d.fallback_bytes[i], part.paths.fallback[i]);
    }
  };
  record(is_read ? c_->read : c_->write);
  if (part.device < 0 || part.device >= HIPFILE_MAX_GPUS) return;
  StatsCounters::PerGpu& gpu = c_->gpus[part.device];
  // Written once: a store on every update would take the line from every other core.
  if (gpu.in_use.load(std::memory_order_relaxed) == 0)
    gpu.in_use.store(1, std::memory_order_relaxed);
  record(is_read ? gpu.read : gpu.write);
  add(is_read ? gpu.unaligned_reads : gpu.unaligned_writes, part.unaligned);
}

void Stats::FillL3(hipFileStatsLevel3_t* out, runtime::GpuRuntime& gpu) const {
  core::FillL3(*c_, out);
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    if (c_->gpus[device].in_use.load(std::memory_order_relaxed) == 0) continue;
    hipFilePerGpuStats_t& s = out->per_gpu_stats[device];
    if (gpu.GetDeviceUuid(device, s.uuid) != hipSuccess) std::memset(s.uuid, 0, sizeof s.uuid);
  }
}

}  // namespace hipfile::core
