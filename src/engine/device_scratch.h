// SPDX-License-Identifier: MIT
// Device memory of the library's own for stream-ordered reads copied ahead (docs/async.md, "Reads
// copied ahead into device memory"): regions leased to operations and handed back to the pool when
// the last lease goes, within a budget per device - hipFile's "max device cache size"
// (PropertiesMaxDeviceCacheSizeKB, cuFile's GPU bounce-buffer budget). Regions are allocated on
// the leasing thread and freed only when the pool goes (freeing device memory waits for every
// stream), so handing one back makes no runtime call and may happen on any thread.
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

  explicit DeviceScratch(runtime::GpuRuntime& gpu);
  // Frees the regions. Only once no stream can still use one (the executor's teardown); a lease
  // still held keeps the pool's state, and its regions are freed when the last lease goes.
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // The most bytes of regions each device may have allocated; 0 (the default) leases none.
  // Lowering it frees nothing (that would wait for the streams): regions allocated stay, and
  // no new one is allocated until the device is under it.
  void SetBudget(uint64_t bytes) { budget_.store(bytes, std::memory_order_relaxed); }
  uint64_t Budget() const { return budget_.load(std::memory_order_relaxed); }

  // A region of at least `bytes` of `device`'s memory, which must be the calling thread's current
  // device: a free one where one is large enough, else a new one within the budget. Null when the
  // budget leaves no room, the runtime refuses the allocation, or there is no memory to track it.
  // The region goes back to the pool when the last copy of the pointer goes; *got (if given)
  // receives its size.
  std::shared_ptr<void> Lease(int device, size_t bytes, size_t* got = nullptr);

  // `region` (a lease of this pool) is never leased again: when its last lease goes it stays
  // allocated, counted as leased, until the pool goes. For a region a stream may still copy into
  // with nothing to say when it has (a refused submission's copies ahead). Allocates nothing, so
  // it cannot fail.
  void Retire(const std::shared_ptr<void>& region);

  // Bytes allocated on `device` so far, and of them leased now (for tests and statistics). A
  // region comes back when its last lease goes, which may be a moment after the read holding it
  // finished (finished operations are destroyed on another thread).
  uint64_t Allocated(int device);
  uint64_t Leased(int device);

 private:
  struct Region {
    void* ptr;
    size_t bytes;
    int device;
    bool retired = false;  // in `all`: Retire'd, never free again
  };
  // What leases and the pool share: a lease handed back after the pool went still finds it.
  struct State {
    explicit State(runtime::GpuRuntime& g) : gpu(g) {}
    ~State();
    runtime::GpuRuntime& gpu;
    Mutex mu;
    std::vector<Region> free GUARDED_BY(mu);
    std::vector<Region> all GUARDED_BY(mu);         // every region allocated (room made before)
    std::vector<Region> allocating GUARDED_BY(mu);  // being allocated (ptr null), counted
    void GiveBack(const Region& region) EXCLUDES(mu);
  };
  std::shared_ptr<void> Wrap(const Region& region);

  std::atomic<uint64_t> budget_{0};
  std::shared_ptr<State> state_;
};

}  // namespace hipfile::engine
