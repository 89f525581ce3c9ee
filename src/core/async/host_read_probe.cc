// SPDX-License-Identifier: MIT
#include "core/async/host_read_probe.h"

#include <algorithm>
#include <cstdint>

#include "core/async/no_throw.h"

namespace hipfile::core {
namespace {

using runtime::CopyTable;
using runtime::Event;
using runtime::GpuRuntime;
using runtime::Stream;

constexpr size_t kStreams = kHostReadProbeStreams;

// The probe's streams and events. Going, it waits for each stream (its copies write into the
// caller's memory, which must be the caller's again when the probe returns) and destroys all.
struct Made {
  explicit Made(GpuRuntime& g) : gpu(g) {}
  Made(const Made&) = delete;
  Made& operator=(const Made&) = delete;
  ~Made() {
    for (Stream s : streams) {
      if (s == nullptr) continue;
      (void)NoThrow([&] { return gpu.StreamSynchronize(s); });
      (void)NoThrow([&] { return gpu.StreamDestroy(s); });
    }
    for (Event e : events) {
      if (e != nullptr) (void)NoThrow([&] { return gpu.EventDestroy(e); });
    }
  }
  GpuRuntime& gpu;
  Stream streams[kStreams] = {};
  // [0] start, [1] end (timed); [2 + i] stream i's copies done (i >= 1).
  Event events[2 + kStreams] = {};
};

// One timed round of one way: slice i from stream i, all starting on `start` recorded on stream
// 0, which waits for the others before recording `end`. *ms: from start to end.
hipError_t TimeRound(GpuRuntime& gpu, Made& made, bool kernel, uint32_t token, const void* host,
                     void* device, size_t slice, CopyTable* tables, float* ms) {
  hipError_t e = NoThrow([&] { return gpu.EventRecord(made.events[0], made.streams[0]); });
  for (size_t i = 1; i < kStreams && e == hipSuccess; ++i) {
    e = NoThrow([&] { return gpu.StreamWaitEvent(made.streams[i], made.events[0], 0); });
  }
  for (size_t i = 0; i < kStreams && e == hipSuccess; ++i) {
    const auto src = static_cast<const unsigned char*>(host) + i * slice;
    unsigned char* dst = static_cast<unsigned char*>(device) + i * slice;
    if (!kernel) {
      e = NoThrow(
          [&] { return gpu.MemcpyAsync(dst, src, slice, hipMemcpyHostToDevice, made.streams[i]); });
      continue;
    }
    // The stream that read this table last has passed it: every round ends synchronized.
    CopyTable& table = tables[i];
    table.copy[0] = {reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), slice};
    table.count = 1;
    table.last = 1;
    table.token = token;
    e = NoThrow([&] { return gpu.CopyTableAsync(&table, token, made.streams[i]); });
  }
  for (size_t i = 1; i < kStreams && e == hipSuccess; ++i) {
    e = NoThrow([&] { return gpu.EventRecord(made.events[2 + i], made.streams[i]); });
    if (e == hipSuccess) {
      e = NoThrow([&] { return gpu.StreamWaitEvent(made.streams[0], made.events[2 + i], 0); });
    }
  }
  if (e == hipSuccess)
    e = NoThrow([&] { return gpu.EventRecord(made.events[1], made.streams[0]); });
  if (e == hipSuccess) e = NoThrow([&] { return gpu.EventSynchronize(made.events[1]); });
  if (e == hipSuccess) {
    e = NoThrow([&] { return gpu.EventElapsedTime(ms, made.events[0], made.events[1]); });
  }
  return e;
}

}  // namespace

hipError_t MeasureHostReads(GpuRuntime& gpu, const void* host, void* device, size_t bytes,
                            CopyTable* tables, int rounds, HostReadRates* rates) {
  if (host == nullptr || device == nullptr || tables == nullptr || rates == nullptr || rounds < 1 ||
      bytes == 0 || bytes % (4096 * kStreams) != 0) {
    return hipErrorInvalidValue;
  }
  Made made(gpu);
  hipError_t e = hipSuccess;
  for (size_t i = 0; i < kStreams && e == hipSuccess; ++i) {
    e = NoThrow([&] { return gpu.StreamCreate(&made.streams[i], hipStreamNonBlocking); });
  }
  for (size_t i = 0; i < 2 + kStreams && e == hipSuccess; ++i) {
    if (i == 2) continue;  // stream 0's copies need no event of their own
    const unsigned flags = i < 2 ? hipEventDefault : hipEventDisableTiming;
    e = NoThrow([&] { return gpu.EventCreate(&made.events[i], flags); });
  }
  const size_t slice = bytes / kStreams;
  double best[2] = {0, 0};  // GiB/s: DMA, kernel
  uint32_t token = 0;
  // Round 0 is not counted: the first copies of each way pay for what a first call sets up.
  for (int round = 0; round <= rounds && e == hipSuccess; ++round) {
    for (int way = 0; way < 2 && e == hipSuccess; ++way) {
      float ms = 0;
      e = TimeRound(gpu, made, way == 1, ++token, host, device, slice, tables, &ms);
      if (e == hipSuccess && round > 0 && ms > 0) {
        const double rate = static_cast<double>(bytes) / double(1u << 30) / (ms / 1e3);
        best[way] = std::max(best[way], rate);
      }
    }
  }
  if (e != hipSuccess) return e;
  if (best[0] <= 0 || best[1] <= 0) return hipErrorUnknown;  // no time measured: no rate
  rates->dma_gib_s = best[0];
  rates->kernel_gib_s = best[1];
  return hipSuccess;
}

}  // namespace hipfile::core
