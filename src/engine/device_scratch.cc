// SPDX-License-Identifier: MIT
#include "engine/device_scratch.h"

#include <algorithm>
#include <new>

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {
namespace {

template <class Regions>
uint64_t BytesOf(const Regions& regions, int device) {
  uint64_t bytes = 0;
  for (const auto& region : regions) {
    if (region.device == device) bytes += region.bytes;
  }
  return bytes;
}

}  // namespace

DeviceScratch::DeviceScratch(runtime::GpuRuntime& gpu) : state_(std::make_shared<State>(gpu)) {}

DeviceScratch::~DeviceScratch() = default;

DeviceScratch::State::~State() {
  // No lease is left (each holds the state): no stream copies into or out of a region.
  for (const Region& region : all) {
    const hipError_t e = gpu.Free(region.ptr);
    if (e != hipSuccess) {
      HF_LOG(kWarn, "freeing %zu bytes of stream-ordered read scratch failed: %s", region.bytes,
             GpuErrorName(e));
    }
  }
}

void DeviceScratch::State::GiveBack(const Region& region) {
  MutexLock lock(mu);
  for (const Region& r : all) {
    if (r.ptr == region.ptr && r.retired) return;
  }
  free.push_back(region);  // room was made when it was allocated: does not throw
}

void DeviceScratch::Retire(const std::shared_ptr<void>& region) {
  if (region == nullptr) return;
  MutexLock lock(state_->mu);
  for (Region& r : state_->all) {
    if (r.ptr == region.get()) r.retired = true;
  }
}

std::shared_ptr<void> DeviceScratch::Wrap(const Region& region) {
  try {
    std::shared_ptr<State> state = state_;
    return std::shared_ptr<void>(region.ptr, [state, region](void*) { state->GiveBack(region); });
  } catch (...) {
    state_->GiveBack(region);  // no memory for the lease's count: the region stays free
    return nullptr;
  }
}

std::shared_ptr<void> DeviceScratch::Lease(int device, size_t bytes, size_t* got) {
  const uint64_t budget = Budget();
  if (bytes == 0 || budget == 0 || bytes > budget) return nullptr;
  const size_t want = (bytes + kGrain - 1) / kGrain * kGrain;
  State& s = *state_;
  Region found{nullptr, 0, device};
  {
    MutexLock lock(s.mu);
    // The smallest free region of the device that holds it.
    auto best = s.free.end();
    for (auto it = s.free.begin(); it != s.free.end(); ++it) {
      if (it->device == device && it->bytes >= want &&
          (best == s.free.end() || it->bytes < best->bytes)) {
        best = it;
      }
    }
    if (best != s.free.end()) {
      found = *best;
      s.free.erase(best);
    }
  }
  if (found.ptr != nullptr) {
    if (got != nullptr) *got = found.bytes;
    return Wrap(found);
  }  // (outside the lock: a failed Wrap gives it back)
  {
    MutexLock lock(s.mu);
    // Regions being allocated count against the budget and have room made for them.
    if (BytesOf(s.all, device) + BytesOf(s.allocating, device) + want > budget) return nullptr;
    try {
      const size_t room = s.all.size() + s.allocating.size() + 1;
      s.all.reserve(room);
      s.free.reserve(room);  // every region fits back in `free`
      s.allocating.push_back(Region{nullptr, want, device});
    } catch (...) {
      return nullptr;
    }
  }
  // Allocated without the lock: the runtime call may take a while.
  void* ptr = nullptr;
  hipError_t e = hipErrorOutOfMemory;
  try {
    e = s.gpu.Malloc(&ptr, want);
  } catch (...) {
    ptr = nullptr;  // a CPU runtime out of memory
  }
  Region region{ptr, want, device};
  {
    MutexLock lock(s.mu);
    for (auto it = s.allocating.begin(); it != s.allocating.end(); ++it) {
      if (it->device == device && it->bytes == want) {
        s.allocating.erase(it);
        break;
      }
    }
    if (e == hipSuccess && ptr != nullptr) s.all.push_back(region);  // room made above
  }
  if (e != hipSuccess || ptr == nullptr) {
    HF_LOG_LIMITED(kInfo,
                   "stream-ordered reads: %zu bytes of device scratch could not be allocated (%s); "
                   "reads go without it",
                   want, e != hipSuccess ? GpuErrorName(e) : "null");
    return nullptr;
  }
  if (got != nullptr) *got = want;
  return Wrap(region);
}

uint64_t DeviceScratch::Allocated(int device) {
  MutexLock lock(state_->mu);
  return BytesOf(state_->all, device);
}

uint64_t DeviceScratch::Leased(int device) {
  MutexLock lock(state_->mu);
  return BytesOf(state_->all, device) - BytesOf(state_->free, device);
}

}  // namespace hipfile::engine
