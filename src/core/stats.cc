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

size_t AisSizeBucket(uint64_t bytes) {
  uint64_t pages = bytes >> 12;
  size_t bucket = 0;
  while (pages != 0 && bucket < kAisSizeBuckets - 1) {
    pages >>= 1;
    ++bucket;
  }
  return bucket;
}

size_t LatencyBucket(uint64_t micros) {
  size_t bucket = 0;
  while (micros != 0 && bucket < kLatencyBuckets - 1) {
    micros >>= 1;
    ++bucket;
  }
  return bucket;
}

namespace {

using Counter = StatsCounters::Counter;

void Bump(Counter& counter, uint64_t n) {
  if (n != 0) counter.fetch_add(n, std::memory_order_relaxed);
}

// Written once: a store on every update would take the line from every other core.
void MarkInUse(StatsCounters::PerGpu& gpu) {
  if (gpu.in_use.load(std::memory_order_relaxed) == 0)
    gpu.in_use.store(1, std::memory_order_relaxed);
}

StatsCounters::PerGpu* GpuOf(StatsCounters& c, int device) {
  return device >= 0 && device < HIPFILE_MAX_GPUS ? &c.gpus[device] : nullptr;
}

// How a transfer's `moved` bytes went: `reported` when it accounts for all of them, else host
// memory moved by the system calls (the only transfers without a report are the engine's tests'
// and those that moved nothing).
const engine::PathBytes& PathsOf(const engine::PathBytes* reported, uint64_t moved,
                                 engine::PathBytes& host) {
  if (reported != nullptr && reported->total() == moved) return *reported;
  host.Add(engine::IoPath::kHost, moved);
  return host;
}

// StatsBackend::kFallback when the compatibility path moved any of the bytes.
size_t BackendOf(const engine::PathBytes& p) {
  const bool compat = p.bytes[static_cast<size_t>(engine::IoPath::kBuffered)] > 0 ||
                      p.bytes[static_cast<size_t>(engine::IoPath::kIoUring)] > 0;
  return static_cast<size_t>(compat ? StatsBackend::kFallback : StatsBackend::kFastpath);
}

constexpr size_t kFastpath = static_cast<size_t>(StatsBackend::kFastpath);

}  // namespace

Stats::Stats() {
  ZeroCounters(own_);
  own_.level.store(1, std::memory_order_relaxed);
}

void Stats::Reset() {
  struct Kept {
    uint64_t in_use, uuid[2], reg_bytes;
  } kept[HIPFILE_MAX_GPUS];
  for (size_t i = 0; i < HIPFILE_MAX_GPUS; ++i) {
    const StatsCounters::PerGpu& gpu = c_->gpus[i];
    kept[i] = {
        gpu.in_use.load(std::memory_order_relaxed),
        {gpu.uuid[0].load(std::memory_order_relaxed), gpu.uuid[1].load(std::memory_order_relaxed)},
        gpu.reg_bytes.load(std::memory_order_relaxed)};
  }
  const uint64_t level = c_->level.load(std::memory_order_relaxed);
  ZeroCounters(*c_);
  c_->level.store(level, std::memory_order_relaxed);
  for (size_t i = 0; i < HIPFILE_MAX_GPUS; ++i) {
    StatsCounters::PerGpu& gpu = c_->gpus[i];
    gpu.in_use.store(kept[i].in_use, std::memory_order_relaxed);
    gpu.uuid[0].store(kept[i].uuid[0], std::memory_order_relaxed);
    gpu.uuid[1].store(kept[i].uuid[1], std::memory_order_relaxed);
    gpu.reg_bytes.store(kept[i].reg_bytes, std::memory_order_relaxed);
  }
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

void Stats::PublishUuid(int device, const char (&uuid)[16]) {
  StatsCounters::PerGpu* gpu = GpuOf(*c_, device);
  if (gpu == nullptr) return;
  uint64_t words[2];
  std::memcpy(words, uuid, sizeof words);
  gpu->uuid[0].store(words[0], std::memory_order_relaxed);
  gpu->uuid[1].store(words[1], std::memory_order_relaxed);
}

void Stats::Waited(bool slept, std::chrono::nanoseconds polled, std::chrono::nanoseconds asleep) {
  if (!Enabled()) return;
  const auto add = [this](CopyWaitCounter k, int64_t n) {
    if (n > 0) c_->copy_waits[static_cast<size_t>(k)].fetch_add(n, std::memory_order_relaxed);
  };
  add(CopyWaitCounter::kWaits, 1);
  if (slept) add(CopyWaitCounter::kSlept, 1);
  add(CopyWaitCounter::kPollNs, polled.count());
  add(CopyWaitCounter::kSleepNs, asleep.count());
}

void IoTally::Record(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
                     bool unaligned, const engine::PathBytes* paths) {
  if (!stats_.enabled()) return;
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

void IoTally::Part::Count(bool moved, uint64_t n, uint64_t took_us, bool is_unaligned,
                          const engine::PathBytes* by_path) {
  if (!moved) {
    ++err;
    const size_t b = AisSizeBucket(n);
    ++size_errors[kFastpath][b];
    sized |= 1u << (kFastpath * kAisSizeBuckets + b);
    return;
  }
  ++ok;
  bytes += n;
  micros += took_us;
  ++hist[SizeHistogramBucket(n)];
  ++latency[LatencyBucket(took_us)];
  engine::PathBytes host;
  const engine::PathBytes& p = PathsOf(by_path, n, host);
  paths += p;
  ++path_ops[static_cast<size_t>(p.primary())];
  const size_t backend = BackendOf(p);
  const size_t b = AisSizeBucket(n);
  size_bytes[backend][b] += n;
  ++size_count[backend][b];
  size_micros[backend][b] += took_us;
  sized |= 1u << (backend * kAisSizeBuckets + b);
  if (is_unaligned) ++unaligned[backend];
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
  // Straight to the counters, as IoTally::Part::Count and AddPart would for one transfer: this
  // is every synchronous transfer's path, and a Part is large.
  const size_t dir = direction == IoDirection::kRead ? 0 : 1;
  StatsCounters::Direction& d = dir == 0 ? c_->read : c_->write;
  StatsCounters::PerGpu* gpu = GpuOf(*c_, device);
  if (!ok) {
    Bump(d.err, 1);
    if (gpu != nullptr) {
      MarkInUse(*gpu);
      Bump(gpu->sizes[kFastpath][dir].errors[AisSizeBucket(bytes)], 1);
    }
    return;
  }
  Bump(d.ok, 1);
  Bump(d.bytes, bytes);
  Bump(d.micros, micros);
  Bump(d.hist[SizeHistogramBucket(bytes)], 1);
  Bump(d.latency[LatencyBucket(micros)], 1);
  engine::PathBytes host;
  const engine::PathBytes& p = PathsOf(paths, bytes, host);
  for (size_t i = 0; i < engine::kIoPathCount; ++i) Bump(d.path_bytes[i], p.bytes[i]);
  for (size_t i = 0; i < engine::kFallbackCount; ++i) Bump(d.fallback_bytes[i], p.fallback[i]);
  Bump(d.path_ops[static_cast<size_t>(p.primary())], 1);
  if (gpu == nullptr) return;
  MarkInUse(*gpu);
  const size_t backend = BackendOf(p);
  const size_t b = AisSizeBucket(bytes);
  StatsCounters::SizeBuckets& h = gpu->sizes[backend][dir];
  Bump(h.bytes[b], bytes);
  Bump(h.count[b], 1);
  Bump(h.micros[b], micros);
  if (unaligned) Bump(gpu->unaligned[backend][dir], 1);
}

void Stats::Add(const IoTally& tally) {
  if (!Enabled()) return;
  for (size_t i = 0; i < tally.used_; ++i) AddPart(tally.parts_[i]);
}

void Stats::AddPart(const IoTally::Part& part) {
  const size_t dir = part.direction == IoDirection::kRead ? 0 : 1;
  StatsCounters::Direction& d = dir == 0 ? c_->read : c_->write;
  Bump(d.ok, part.ok);
  Bump(d.err, part.err);
  Bump(d.bytes, part.bytes);
  Bump(d.micros, part.micros);
  for (size_t b = 0; b < kSizeHistogramBuckets; ++b) Bump(d.hist[b], part.hist[b]);
  for (size_t b = 0; b < kLatencyBuckets; ++b) Bump(d.latency[b], part.latency[b]);
  for (size_t i = 0; i < engine::kIoPathCount; ++i) {
    Bump(d.path_bytes[i], part.paths.bytes[i]);
    Bump(d.path_ops[i], part.path_ops[i]);
  }
  for (size_t i = 0; i < engine::kFallbackCount; ++i) {
    Bump(d.fallback_bytes[i], part.paths.fallback[i]);
  }
  StatsCounters::PerGpu* gpu = GpuOf(*c_, part.device);
  if (gpu == nullptr) return;
  MarkInUse(*gpu);
  for (uint32_t touched = part.sized; touched != 0; touched &= touched - 1) {
    const size_t bit = static_cast<size_t>(__builtin_ctz(touched));
    const size_t backend = bit / kAisSizeBuckets, b = bit % kAisSizeBuckets;
    StatsCounters::SizeBuckets& h = gpu->sizes[backend][dir];
    Bump(h.bytes[b], part.size_bytes[backend][b]);
    Bump(h.count[b], part.size_count[backend][b]);
    Bump(h.micros[b], part.size_micros[backend][b]);
    Bump(h.errors[b], part.size_errors[backend][b]);
  }
  for (size_t backend = 0; backend < kStatsBackends; ++backend) {
    Bump(gpu->unaligned[backend][dir], part.unaligned[backend]);
  }
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
