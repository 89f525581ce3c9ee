// SPDX-License-Identifier: MIT
#include "engine/stream_pool.h"

#include <algorithm>

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {

StreamPool::~StreamPool() {
  for (const auto& [device, lane] : all_) {
    if (lane.word != nullptr) (void)gpu_.HostFree(lane.word);
    hipError_t e = gpu_.EventDestroy(lane.done);
    if (e == hipSuccess) e = gpu_.StreamDestroy(lane.stream);
    if (e != hipSuccess) {
      HF_LOG(kWarn, "destroying a copy lane of device %d failed: %s", device, GpuErrorName(e));
    }
  }
}

Result<Lane> StreamPool::Acquire(int device) {
  {
    MutexLock lock(mu_);
    std::vector<Lane>& free = free_[device];
    if (!free.empty()) {
      const Lane lane = free.back();
      free.pop_back();
      return lane;
    }
  }
  {
    // Room for the lane's return first: Release runs in destructors and must not allocate.
    MutexLock lock(mu_);
    all_.reserve(all_.size() + 1);
    std::vector<Lane>& free = free_[device];
    free.reserve(
        free.size() + 1 +
        static_cast<size_t>(std::count_if(all_.begin(), all_.end(), [device](const auto& entry) {
          return entry.first == device;
        })));
  }
  Lane lane;
  HF_RETURN_IF_ERROR(Create(device, &lane));
  MutexLock lock(mu_);
  all_.emplace_back(device, lane);  // reserved above: cannot throw
  return lane;
}

void StreamPool::Release(int device, Lane lane) {
  MutexLock lock(mu_);
  free_[device].push_back(lane);
}

Status StreamPool::Create(int device, Lane* lane) {
  // Streams and events belong to a device; make it current for the creation only.
  int previous = 0;
  HF_RETURN_IF_ERROR(Status::FromGpu(gpu_.GetDevice(&previous)));
  if (previous != device) HF_RETURN_IF_ERROR(Status::FromGpu(gpu_.SetDevice(device)));
  hipError_t created = gpu_.StreamCreate(&lane->stream, hipStreamNonBlocking);
  if (created == hipSuccess) {
    created = gpu_.EventCreate(&lane->done, hipEventBlockingSync | hipEventDisableTiming);
    if (created != hipSuccess) (void)gpu_.StreamDestroy(lane->stream);
  }
  // The word is optional: without it (no memory operations, no memory) the lane's waits poll
  // the stream.
  if (created == hipSuccess && words_ && gpu_.SupportsStreamMemOps(device)) {
    void* word = nullptr;
    if (gpu_.HostMalloc(&word, 2 * sizeof(uint32_t), hipHostMallocPortable | hipHostMallocMapped) ==
        hipSuccess) {
      lane->word = static_cast<uint32_t*>(word);
      lane->word[0] = 0;
      lane->word[1] = 0;
    }
  }
  if (previous != device) {
    const hipError_t restored = gpu_.SetDevice(previous);
    if (restored != hipSuccess) {
      HF_LOG(kWarn, "restoring device %d failed: %s", previous, GpuErrorName(restored));
    }
  }
  return Status::FromGpu(created);
}

}  // namespace hipfile::engine
