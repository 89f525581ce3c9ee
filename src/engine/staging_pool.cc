// SPDX-License-Identifier: MIT
#include "engine/staging_pool.h"

#include <algorithm>
#include <cassert>

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {

StagingPool::StagingPool(runtime::GpuRuntime& gpu, size_t buffer_bytes, size_t max_buffers)
    : gpu_(gpu), buffer_bytes_(buffer_bytes), max_buffers_(std::max<size_t>(max_buffers, 1)) {
  assert(buffer_bytes > 0);
}

StagingPool::~StagingPool() {
  assert(free_.size() == all_.size() && "staging buffers still leased at destruction");
  for (void* buffer : all_) {
    const hipError_t e = gpu_.HostFree(buffer);
    if (e != hipSuccess) HF_LOG(kWarn, "freeing a staging buffer failed: %s", GpuErrorName(e));
  }
}

size_t StagingPool::allocated() const {
  MutexLock lock(mu_);
  return all_.size();
}

void* StagingPool::TakeLocked(hipError_t* error) {
  if (!free_.empty()) {
    void* buffer = free_.back();
    free_.pop_back();
    return buffer;
  }
  if (reserved_ >= max_buffers_) return nullptr;
  // Room for the buffer in both lists first: Release runs in destructors and must not allocate
  // (a std::bad_alloc there would end the process). What throws here throws to the caller, with
  // nothing taken.
  all_.reserve(all_.size() + 1);
  free_.reserve(all_.size() + 1);
  // Allocate without the lock: pinning memory can take milliseconds.
  ++reserved_;
  void* buffer = nullptr;
  hipError_t e = hipSuccess;
  {
    MutexUnlock unlocked(mu_);
    e = gpu_.HostMalloc(&buffer, buffer_bytes_, hipHostMallocPortable);
  }
  if (e != hipSuccess || buffer == nullptr) {
    --reserved_;
    freed_.NotifyAll();  // a waiter may now make the buffer this call could not
    *error = e != hipSuccess ? e : hipErrorOutOfMemory;
    return nullptr;
  }
  all_.push_back(buffer);  // reserved above: cannot throw
  return buffer;
}

Status StagingPool::Reserve() {
  MutexLock lock(mu_);
  std::vector<void*> made;
  hipError_t error = hipSuccess;
  while (reserved_ < max_buffers_) {
    void* buffer = TakeLocked(&error);
    if (buffer == nullptr) break;
    made.push_back(buffer);
  }
  free_.insert(free_.end(), made.begin(), made.end());
  freed_.NotifyAll();
  return Status::FromGpu(error);
}

Status StagingPool::Acquire(size_t want, Lease* lease) {
  want = std::clamp<size_t>(want, 1, kMaxPerLease);
  *lease = Lease();
  MutexLock lock(mu_);
  for (;;) {
    hipError_t error = hipSuccess;
    void* first = TakeLocked(&error);
    // A failed allocation fails the transfer only when no buffer exists that could come back.
    if (error != hipSuccess) {
      if (all_.empty()) return Status::Gpu(error);
      while (free_.empty()) freed_.Wait(mu_);  // one may have come back meanwhile
      continue;
    }
    if (first != nullptr) {
      lease->buffers[lease->count++] = first;
      break;
    }
    freed_.Wait(mu_);
  }
  while (lease->count < want) {
    hipError_t error = hipSuccess;
    void* more = TakeLocked(&error);
    if (more == nullptr) break;
    lease->buffers[lease->count++] = more;
  }
  return Status::Ok();
}

void StagingPool::Release(Lease* lease) {
  {
    MutexLock lock(mu_);
    for (size_t i = 0; i < lease->count; ++i) free_.push_back(lease->buffers[i]);
  }
  if (lease->count > 0) freed_.NotifyAll();
  *lease = Lease();
}

}  // namespace hipfile::engine
