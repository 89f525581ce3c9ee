// SPDX-License-Identifier: MIT
#include "engine/device_scratch.h"

#include <algorithm>
#include <new>
#include <utility>

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {

DeviceScratch::DeviceScratch(runtime::GpuRuntime& gpu) : state_(std::make_shared<State>(gpu)) {}

DeviceScratch::~DeviceScratch() = default;

DeviceScratch::State::~State() {
  // No lease is left (each holds the state): no stream copies into or out of an arena.
  for (const Arena& arena : arenas) {
    const hipError_t e = gpu.Free(arena.ptr);
    if (e != hipSuccess) {
      HF_LOG(kWarn, "freeing %zu bytes of stream-ordered read scratch failed: %s",
             arena.grains.size() * kGrain, GpuErrorName(e));
    }
  }
}

uint64_t DeviceScratch::State::ArenaBytesLocked(int device) const {
  uint64_t bytes = 0;
  for (const Arena& arena : arenas) {
    if (arena.device == device) bytes += arena.grains.size() * kGrain;
  }
  return bytes;
}

bool DeviceScratch::State::TakeLocked(int device, size_t count, Run* run) {
  // The smallest run of free grains that holds it (the first of those the same size), so that
  // the larger runs stay whole for larger reads.
  bool found = false;
  size_t best = 0;
  for (size_t a = 0; a < arenas.size(); ++a) {
    const std::vector<uint8_t>& grains = arenas[a].grains;
    if (arenas[a].device != device) continue;
    for (size_t i = 0; i < grains.size();) {
      if (grains[i] != kFree) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < grains.size() && grains[end] == kFree) ++end;
      if (end - i >= count && (!found || end - i < best)) {
        found = true;
        best = end - i;
        *run = Run{a, i, count};
      }
      i = end;
    }
  }
  if (!found) return false;
  std::vector<uint8_t>& grains = arenas[run->arena].grains;
  std::fill_n(grains.begin() + static_cast<ptrdiff_t>(run->first), run->count, uint8_t{kLeased});
  return true;
}

void DeviceScratch::State::GiveBack(const Run& run) {
  MutexLock lock(mu);
  std::vector<uint8_t>& grains = arenas[run.arena].grains;
  const uint8_t now = grains[run.first] == kRetiring ? kRetired : kFree;
  std::fill_n(grains.begin() + static_cast<ptrdiff_t>(run.first), run.count, now);
}

void DeviceScratch::Retire(const std::shared_ptr<void>& region) {
  if (region == nullptr) return;
  const auto* at = static_cast<const unsigned char*>(region.get());
  MutexLock lock(state_->mu);
  for (Arena& arena : state_->arenas) {
    if (at < arena.ptr || at >= arena.ptr + arena.grains.size() * kGrain) continue;
    uint8_t& first = arena.grains[static_cast<size_t>(at - arena.ptr) / kGrain];
    if (first == kLeased) first = kRetiring;
  }
}

std::shared_ptr<void> DeviceScratch::Wrap(const Run& run, void* ptr) {
  try {
    std::shared_ptr<State> state = state_;
    return std::shared_ptr<void>(ptr, [state, run](void*) { state->GiveBack(run); });
  } catch (...) {
    state_->GiveBack(run);  // no memory for the lease's count: the grains stay free
    return nullptr;
  }
}

std::shared_ptr<void> DeviceScratch::Lease(int device, size_t bytes, size_t* got) {
  const uint64_t budget = Budget();
  if (bytes == 0 || budget == 0 || bytes > budget) return nullptr;
  const size_t count = (bytes + kGrain - 1) / kGrain;
  const uint64_t region_bytes = uint64_t{count} * kGrain;
  State& s = *state_;
  Run run{};
  void* taken = nullptr;
  uint64_t arena_bytes = 0;
  {
    MutexLock lock(s.mu);
    if (s.TakeLocked(device, count, &run)) {
      taken = s.arenas[run.arena].ptr + run.first * kGrain;
    } else {
      // A new arena: kArenaBytes, or the region's size where larger, within what the budget
      // leaves (arenas being allocated count against it).
      uint64_t spent = s.ArenaBytesLocked(device);
      for (const auto& [d, b] : s.allocating) {
        if (d == device) spent += b;
      }
      const uint64_t left = spent < budget ? (budget - spent) / kGrain * kGrain : 0;
      arena_bytes = std::min<uint64_t>(left, std::max<uint64_t>(region_bytes, kArenaBytes));
      if (arena_bytes < region_bytes) return nullptr;
      try {
        s.arenas.reserve(s.arenas.size() + s.allocating.size() + 1);  // room for it when made
        s.allocating.emplace_back(device, arena_bytes);
      } catch (...) {
        return nullptr;
      }
    }
  }
  if (taken != nullptr) {  // wrapped outside the lock: a failed Wrap gives it back
    if (got != nullptr) *got = region_bytes;
    return Wrap(run, taken);
  }
  // Allocated without the lock: the runtime call may take a while. A whole arena first; where the
  // runtime refuses it (a device nearly full), the region alone.
  std::vector<uint8_t> grains;
  void* ptr = nullptr;
  hipError_t e = hipErrorOutOfMemory;
  const auto allocate = [&](uint64_t size) {
    try {
      grains.assign(size / kGrain, kFree);
      e = s.gpu.Malloc(&ptr, size);
    } catch (...) {
      e = hipErrorOutOfMemory;  // no memory for its grains, or a CPU runtime out of memory
    }
    if (e != hipSuccess) ptr = nullptr;
    return ptr != nullptr;
  };
  uint64_t tried = arena_bytes;
  bool made = allocate(tried);
  if (!made && tried > region_bytes) {
    tried = region_bytes;
    made = allocate(tried);
  }
  {
    MutexLock lock(s.mu);
    const auto pending = std::find(s.allocating.begin(), s.allocating.end(),
                                   std::pair<int, uint64_t>(device, arena_bytes));
    if (pending != s.allocating.end()) s.allocating.erase(pending);
    if (made) {
      std::fill_n(grains.begin(), count, uint8_t{kLeased});
      run = Run{s.arenas.size(), 0, count};
      s.arenas.push_back(Arena{static_cast<unsigned char*>(ptr), device, std::move(grains)});
    }  // room made above
  }
  if (!made) {
    HF_LOG_LIMITED(kInfo,
                   "stream-ordered reads: %llu bytes of device scratch could not be allocated "
                   "(%s); reads go without it",
                   static_cast<unsigned long long>(tried),
                   e != hipSuccess ? GpuErrorName(e) : "no memory");
    return nullptr;
  }
  if (got != nullptr) *got = region_bytes;
  return Wrap(run, ptr);
}

uint64_t DeviceScratch::Allocated(int device) {
  MutexLock lock(state_->mu);
  return state_->ArenaBytesLocked(device);
}

uint64_t DeviceScratch::Leased(int device) {
  MutexLock lock(state_->mu);
  uint64_t grains = 0;
  for (const Arena& arena : state_->arenas) {
    if (arena.device != device) continue;
    grains += static_cast<uint64_t>(std::count_if(arena.grains.begin(), arena.grains.end(),
                                                  [](uint8_t g) { return g != kFree; }));
  }
  return grains * kGrain;
}

}  // namespace hipfile::engine
