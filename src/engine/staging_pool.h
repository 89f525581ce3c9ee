// SPDX-License-Identifier: MIT
// StagingPool: pinned, page-aligned host buffers of one size, shared by all transfers of an engine.
//
// Lifetime: buffers are made with GpuRuntime::HostMalloc - all at once by Reserve (what the
// engine does when it is built), else on demand - never more than `max_buffers`, kept and reused
// after their transfer, and freed only by the destructor (no lease may be outstanding then). A
// caller that finds none free and the cap reached waits. Thread-safe.
//
// Why Reserve: on CUDA, allocating pinned memory is an implicit synchronization - it waits for
// work on the device's streams. A stream stalled on a stream-ordered hipFile operation waits for
// the engine; if the engine then allocated, each would wait for the other.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

class StagingPool {
 public:
  // The most buffers one lease holds: two let a copy overlap the next system call.
  static constexpr size_t kMaxPerLease = 2;

  // Buffers held by one transfer; given back by Release.
  struct Lease {
    void* buffers[kMaxPerLease] = {};
    size_t count = 0;
  };

  StagingPool(runtime::GpuRuntime& gpu, size_t buffer_bytes, size_t max_buffers);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  // Waits until at least one buffer is free or can be made, then takes up to `want` (at most
  // kMaxPerLease) without waiting for more: a lease never holds one buffer while waiting for
  // another, so concurrent callers cannot deadlock. A failed HostMalloc of the first buffer is
  // returned as Status::Gpu when the pool has no buffer at all; otherwise the caller waits for
  // one to be released. A failed HostMalloc of a second one: the lease just holds one.
  Status Acquire(size_t want, Lease* lease);
  // Makes every buffer up to max_buffers now. On a failure the buffers made so far stay and the
  // rest are made on demand.
  Status Reserve();
  void Release(Lease* lease);

  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t max_buffers() const { return max_buffers_; }
  // Buffers made so far (free or leased).
  size_t allocated() const;

 private:
  // Takes a free buffer or makes one; drops mu_ while allocating. nullptr and *error set when
  // HostMalloc failed; nullptr alone when the cap is reached and none is free.
  void* TakeLocked(hipError_t* error) REQUIRES(mu_);

  runtime::GpuRuntime& gpu_;
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  mutable Mutex mu_;
  CondVar freed_;
  std::vector<void*> free_ GUARDED_BY(mu_);
  std::vector<void*> all_ GUARDED_BY(mu_);
  size_t reserved_ GUARDED_BY(mu_) = 0;  // buffers made or being made
};

}  // namespace hipfile::engine
