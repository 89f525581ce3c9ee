// SPDX-License-Identifier: MIT
// Device memory of the library's own for stream-ordered reads copied ahead (docs/async.md, "Reads
// copied ahead into device memory"): regions leased to operations and handed back when the last
// lease goes, within a budget per device - hipFile's "max device cache size"
// (PropertiesMaxDeviceCacheSizeKB, cuFile's GPU bounce-buffer budget).
//
// Memory is allocated in arenas (kArenaBytes, or a larger read's size, within the budget) on the
// leasing thread and freed only when the pool goes (freeing device memory waits for every
// stream). An arena is cut into grains; a region is a run of free grains, and grains handed back
// are free again at once, so runs next to each other serve a larger read later (regions that
// never merged left a pool spent on small regions with no room for a larger read). Handing a
// region back makes no runtime call and allocates nothing, so it may happen on any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/gpu_runtime.h"
#include "util/mutex.h"

namespace hipfile::engine {

class DeviceScratch {
 public:
  // Regions are whole multiples of this (so that one region serves reads of nearby sizes).
  static constexpr size_t kGrain = size_t{2} << 20;
  // An arena's size where the budget leaves room for it; a region larger than this gets an arena
  // of its own size. Two with hipFile's default budget (128 MiB).
  static constexpr size_t kArenaBytes = size_t{64} << 20;

  explicit DeviceScratch(runtime::GpuRuntime& gpu);
  // Frees the arenas. Only once no stream can still use one (the executor's teardown); a lease
  // still held keeps the pool's state, and the arenas are freed when the last lease goes.
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // The most bytes of arenas each device may have allocated; 0 (the default) leases none.
  // Lowering it frees nothing (that would wait for the streams): arenas allocated stay, and
  // no new one is allocated until the device is under it.
  void SetBudget(uint64_t bytes) { budget_.store(bytes, std::memory_order_relaxed); }
  uint64_t Budget() const { return budget_.load(std::memory_order_relaxed); }

  // A region of at least `bytes` of `device`'s memory, which must be the calling thread's current
  // device: the smallest run of free grains that holds it, else one in a new arena within the
  // budget (an arena of the region's own size where the runtime refuses a larger one). Null when
  // the budget leaves no room, the runtime refuses the allocation, or there is no memory to track
  // it. The region goes back to the pool when the last copy of the pointer goes; *got (if given)
  // receives its size.
  std::shared_ptr<void> Lease(int device, size_t bytes, size_t* got = nullptr);

  // `region` (a lease of this pool) is never leased again: when its last lease goes its grains
  // stay taken, counted as leased, until the pool goes. For a region a stream may still copy into
  // with nothing to say when it has (a refused submission's copies ahead). Allocates nothing, so
  // it cannot fail.
  void Retire(const std::shared_ptr<void>& region);

  // Bytes of arenas allocated on `device` so far, and of them leased now (for tests and
  // statistics). A region comes back when its last lease goes, which may be a moment after the
  // read holding it finished (finished operations are destroyed on another thread).
  uint64_t Allocated(int device);
  uint64_t Leased(int device);

 private:
  // A grain's state. A retired lease's first grain says so until the lease goes; then all its
  // grains are kRetired.
  enum Grain : uint8_t { kFree, kLeased, kRetiring, kRetired };
  struct Arena {
    unsigned char* ptr;
    int device;
    std::vector<uint8_t> grains;  // Grain, one per kGrain bytes
  };
  // A lease: grains [first, first + count) of arena `arena`.
  struct Run {
    size_t arena;
    size_t first;
    size_t count;
  };
  // What leases and the pool share: a lease handed back after the pool went still finds it.
  struct State {
    explicit State(runtime::GpuRuntime& g) : gpu(g) {}
    ~State();
    runtime::GpuRuntime& gpu;
    Mutex mu;
    std::vector<Arena> arenas GUARDED_BY(mu);  // indices stay: arenas are only added
    // Arenas being allocated (device, bytes): they count against the budget meanwhile.
    std::vector<std::pair<int, uint64_t>> allocating GUARDED_BY(mu);
    bool TakeLocked(int device, size_t count, Run* run) REQUIRES(mu);
    uint64_t ArenaBytesLocked(int device) const REQUIRES(mu);  // allocated, not being allocated
    void GiveBack(const Run& run) EXCLUDES(mu);
  };
  std::shared_ptr<void> Wrap(const Run& run, void* ptr);

  std::atomic<uint64_t> budget_{0};
  std::shared_ptr<State> state_;
};

}  // namespace hipfile::engine
