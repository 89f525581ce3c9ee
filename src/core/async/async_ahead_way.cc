// SPDX-License-Identifier: MIT
// The executor's choice, per device, of the way its reads past their share of the device budget
// take: in parts or the windows' way, by a measurement of the device's reads of host memory
// (AsyncExecutor::SetChooseAheadWay; docs/async.md, "Parts or the windows' way, by measurement").
#include <hipfile.h>

#include <memory>

#include "core/async/async_channel.h"
#include "core/async/async_executor.h"
#include "util/errors.h"
#include "util/log.h"

namespace hipfile::core {

AsyncExecutor::AheadWay AsyncExecutor::AheadWayOf(int device) {
  if (device < 0 || device >= devices_) return AheadWay::kUndecided;
  return caps_[device].ahead_way.load(std::memory_order_acquire);
}

HostReadRates AsyncExecutor::HostReadRatesOf(int device) {
  HostReadRates rates;
  if (device < 0 || device >= devices_) return rates;
  // Written before ahead_way says what they chose.
  if (caps_[device].ahead_way.load(std::memory_order_acquire) == AheadWay::kUndecided) return rates;
  rates.dma_gib_s = caps_[device].dma_gib_s.load(std::memory_order_relaxed);
  rates.kernel_gib_s = caps_[device].kernel_gib_s.load(std::memory_order_relaxed);
  return rates;
}

void AsyncExecutor::ChooseAheadWay(int device) {
  if (device < 0 || device >= devices_ || !choose_ahead_way_.load(std::memory_order_relaxed)) {
    return;
  }
  DeviceCapsState& caps = caps_[device];
  if (caps.ahead_way.load(std::memory_order_acquire) != AheadWay::kUndecided) return;
  // Nothing to choose: no kernel, no link to cross, no parts, or no budget to measure with.
  if (!caps.tables.load(std::memory_order_relaxed) || !gpu_.HostReadsCrossALink() ||
      ahead_part_bytes_.load(std::memory_order_relaxed) == 0 || scratch_.Budget() < kProbeBytes) {
    return;
  }
  MutexLock probing(probe_mu_);
  if (caps.ahead_way.load(std::memory_order_acquire) != AheadWay::kUndecided) return;
  {
    // The library's own copies in flight would share the link with the probe's: a later new
    // stream's first submission measures. (The program's own work may still; the best of three
    // rounds is kept.)
    MutexLock lock(mutex_);
    if (outstanding_ != 0) return;
  }
  // The region is leased for the thread's device; a thread submitting to another device's
  // stream leaves the measurement to one that is on it.
  int current = -1;
  if (NoThrow([&] { return gpu_.GetDevice(&current); }) != hipSuccess || current != device) return;
  const auto decide = [&](AheadWay way, const HostReadRates& rates) {
    caps.dma_gib_s.store(rates.dma_gib_s, std::memory_order_relaxed);
    caps.kernel_gib_s.store(rates.kernel_gib_s, std::memory_order_relaxed);
    caps.ahead_way.store(way, std::memory_order_release);
  };
  hipError_t e = hipSuccess;
  if (probe_host_ == nullptr) {
    e = NoThrow([&] {
      return gpu_.HostMalloc(&probe_host_, kHostReadProbeTableBytes + kProbeBytes,
                             hipHostMallocPortable | hipHostMallocMapped);
    });
    if (e != hipSuccess) probe_host_ = nullptr;
  }
  HostReadRates rates;
  if (e == hipSuccess) {
    std::shared_ptr<void> region;
    try {
      region = scratch_.Lease(device, kProbeBytes);
    } catch (...) {
      region = nullptr;
    }
    // No room now: the regions of reads just finished come back a moment after them (on the
    // reaper's thread). A later new stream measures.
    if (region == nullptr) return;
    auto* const tables = static_cast<runtime::CopyTable*>(probe_host_);
    const void* data = static_cast<const unsigned char*>(probe_host_) + kHostReadProbeTableBytes;
    e = MeasureHostReads(gpu_, data, region.get(), kProbeBytes, tables, 3, &rates);
  }
  if (e != hipSuccess) {
    HF_LOG(kWarn,
           "stream-ordered I/O on device %d: measuring its reads of host memory failed (%s); "
           "reads past their share of the device budget go in parts",
           device, GpuErrorName(e));
    decide(AheadWay::kParts, HostReadRates());
    return;
  }
  const bool windows = rates.KernelShare() >= kWindowsFromKernelShare;
  HF_LOG(kInfo,
         "stream-ordered I/O on device %d: the copy kernel reads pinned host memory at %.1f GiB/s, "
         "DMA at %.1f (%.2fx): reads past their share of the device budget take %s",
         device, rates.kernel_gib_s, rates.dma_gib_s, rates.KernelShare(),
         windows ? "the windows' way" : "parts");
  decide(windows ? AheadWay::kWindows : AheadWay::kParts, rates);
}

}  // namespace hipfile::core
