// SPDX-License-Identifier: MIT
#include "fakes/fault_runtime.h"

#include <algorithm>

namespace hipfile::testing {

hipError_t FaultRuntime::GetDeviceCount(int* count) {
  if (const hipError_t e = Injected(GpuOp::kGetDeviceCount)) return e;
  return Forwarded(GpuOp::kGetDeviceCount, base_.GetDeviceCount(count));
}

hipError_t FaultRuntime::SetDevice(int device) {
  if (const hipError_t e = Injected(GpuOp::kSetDevice)) return e;
  return Forwarded(GpuOp::kSetDevice, base_.SetDevice(device));
}

hipError_t FaultRuntime::GetDevice(int* device) {
  if (const hipError_t e = Injected(GpuOp::kGetDevice)) return e;
  return Forwarded(GpuOp::kGetDevice, base_.GetDevice(device));
}

hipError_t FaultRuntime::DeviceSynchronize() {
  if (const hipError_t e = Injected(GpuOp::kDeviceSynchronize)) return e;
  return Forwarded(GpuOp::kDeviceSynchronize, base_.DeviceSynchronize());
}

hipError_t FaultRuntime::MemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (const hipError_t e = Injected(GpuOp::kMemGetInfo)) return e;
  return Forwarded(GpuOp::kMemGetInfo, base_.MemGetInfo(free_bytes, total_bytes));
}

hipError_t FaultRuntime::GetDeviceUuid(int device, char uuid[16]) {
  if (const hipError_t e = Injected(GpuOp::kGetDeviceUuid)) return e;
  return Forwarded(GpuOp::kGetDeviceUuid, base_.GetDeviceUuid(device, uuid));
}

hipError_t FaultRuntime::GetDeviceName(int device, char* name, size_t size) {
  if (const hipError_t e = Injected(GpuOp::kGetDeviceName)) return e;
  return Forwarded(GpuOp::kGetDeviceName, base_.GetDeviceName(device, name, size));
}

hipError_t FaultRuntime::GetDeviceTotalMem(int device, size_t* bytes) {
  if (const hipError_t e = Injected(GpuOp::kGetDeviceTotalMem)) return e;
  return Forwarded(GpuOp::kGetDeviceTotalMem, base_.GetDeviceTotalMem(device, bytes));
}

hipError_t FaultRuntime::GetDeviceAttribute(int device, hipDeviceAttribute_t attribute,
                                            int* value) {
  if (const hipError_t e = Injected(GpuOp::kGetDeviceAttribute)) return e;
  return Forwarded(GpuOp::kGetDeviceAttribute, base_.GetDeviceAttribute(device, attribute, value));
}

hipError_t FaultRuntime::DriverGetVersion(int* version) {
  if (const hipError_t e = Injected(GpuOp::kDriverGetVersion)) return e;
  return Forwarded(GpuOp::kDriverGetVersion, base_.DriverGetVersion(version));
}

hipError_t FaultRuntime::DeviceReset() {
  if (const hipError_t e = Injected(GpuOp::kDeviceReset)) return e;
  return Forwarded(GpuOp::kDeviceReset, base_.DeviceReset());
}

hipError_t FaultRuntime::Malloc(void** ptr, size_t size) {
  if (const hipError_t e = Injected(GpuOp::kMalloc)) return e;
  return Forwarded(GpuOp::kMalloc, base_.Malloc(ptr, size));
}

hipError_t FaultRuntime::MallocManaged(void** ptr, size_t size, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kMallocManaged)) return e;
  return Forwarded(GpuOp::kMallocManaged, base_.MallocManaged(ptr, size, flags));
}

hipError_t FaultRuntime::Free(void* ptr) {
  if (const hipError_t e = Injected(GpuOp::kFree)) return e;
  return Forwarded(GpuOp::kFree, base_.Free(ptr));
}

hipError_t FaultRuntime::HostMalloc(void** ptr, size_t size, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kHostMalloc)) return e;
  const hipError_t e = Forwarded(GpuOp::kHostMalloc, base_.HostMalloc(ptr, size, flags));
  if (e == hipSuccess) {
    MutexLock lock(pinned_mu_);
    pinned_[*ptr] = size;
    pinned_bytes_ += size;
    peak_pinned_bytes_ = std::max(peak_pinned_bytes_, pinned_bytes_);
  }
  return e;
}

hipError_t FaultRuntime::HostFree(void* ptr) {
  if (const hipError_t e = Injected(GpuOp::kHostFree)) return e;
  const hipError_t e = Forwarded(GpuOp::kHostFree, base_.HostFree(ptr));
  if (e == hipSuccess) {
    MutexLock lock(pinned_mu_);
    const auto it = pinned_.find(ptr);
    if (it != pinned_.end()) {
      pinned_bytes_ -= it->second;
      pinned_.erase(it);
    }
  }
  return e;
}

uint64_t FaultRuntime::PinnedHostBytes() const {
  MutexLock lock(pinned_mu_);
  return pinned_bytes_;
}

void FaultRuntime::ResetPeakPinnedHostBytes() {
  MutexLock lock(pinned_mu_);
  peak_pinned_bytes_ = pinned_bytes_;
}

uint64_t FaultRuntime::PeakPinnedHostBytes() const {
  MutexLock lock(pinned_mu_);
  return peak_pinned_bytes_;
}

hipError_t FaultRuntime::HostRegister(void* ptr, size_t size, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kHostRegister)) return e;
  return Forwarded(GpuOp::kHostRegister, base_.HostRegister(ptr, size, flags));
}

hipError_t FaultRuntime::HostUnregister(void* ptr) {
  if (const hipError_t e = Injected(GpuOp::kHostUnregister)) return e;
  return Forwarded(GpuOp::kHostUnregister, base_.HostUnregister(ptr));
}

hipError_t FaultRuntime::HostRegisterAside(void* ptr, size_t size, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kHostRegisterAside)) return e;
  return Forwarded(GpuOp::kHostRegisterAside, base_.HostRegisterAside(ptr, size, flags));
}

hipError_t FaultRuntime::HostUnregisterAside(void* ptr) {
  if (const hipError_t e = Injected(GpuOp::kHostUnregisterAside)) return e;
  return Forwarded(GpuOp::kHostUnregisterAside, base_.HostUnregisterAside(ptr));
}

hipError_t FaultRuntime::PointerGetInfo(const void* ptr, runtime::PointerInfo* info) {
  if (const hipError_t e = Injected(GpuOp::kPointerGetInfo)) return e;
  return Forwarded(GpuOp::kPointerGetInfo, base_.PointerGetInfo(ptr, info));
}

hipError_t FaultRuntime::Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) {
  if (const hipError_t e = Injected(GpuOp::kMemcpy)) return e;
  return Forwarded(GpuOp::kMemcpy, base_.Memcpy(dst, src, size, kind));
}

hipError_t FaultRuntime::MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                                     runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kMemcpyAsync)) return e;
  const uintptr_t touching = touching_.load();
  const auto holds = [&](const void* p) {
    const auto begin = reinterpret_cast<uintptr_t>(p);
    return touching >= begin && touching - begin < size;
  };
  if (touching != 0 && (holds(dst) || holds(src))) return touching_error_.load();
  if (runtime::HostFn hold = hold_memcpy_fn_.load(); hold != nullptr) {
    if (const hipError_t e = base_.LaunchHostFunc(stream, hold, hold_memcpy_arg_.load())) return e;
  }
  return Forwarded(GpuOp::kMemcpyAsync, base_.MemcpyAsync(dst, src, size, kind, stream));
}

hipError_t FaultRuntime::CopyTableAsync(const runtime::CopyTable* table, uint32_t token,
                                        runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kCopyTableAsync)) return e;
  if (runtime::HostFn hold = hold_copies_fn_.load(); hold != nullptr) {
    if (const hipError_t e = base_.LaunchHostFunc(stream, hold, hold_copies_arg_.load())) return e;
  }
  return Forwarded(GpuOp::kCopyTableAsync, base_.CopyTableAsync(table, token, stream));
}

hipError_t FaultRuntime::CopyTableRunAsync(const runtime::CopyTable* tables, uint32_t first,
                                           uint32_t last, const uint32_t* ready, uint32_t* copied,
                                           runtime::CopyTable* mirror, runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kCopyTableRunAsync)) return e;
  last_run_mirror_.store(mirror);
  last_run_tokens_.store(uint64_t{first} << 32 | last);
  if (runtime::HostFn hold = hold_copies_fn_.load(); hold != nullptr) {
    if (const hipError_t e = base_.LaunchHostFunc(stream, hold, hold_copies_arg_.load())) return e;
  }
  return Forwarded(GpuOp::kCopyTableRunAsync,
                   base_.CopyTableRunAsync(tables, first, last, ready, copied, mirror, stream));
}

hipError_t FaultRuntime::Memset(void* dst, int value, size_t size) {
  if (const hipError_t e = Injected(GpuOp::kMemset)) return e;
  return Forwarded(GpuOp::kMemset, base_.Memset(dst, value, size));
}

hipError_t FaultRuntime::MemsetAsync(void* dst, int value, size_t size, runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kMemsetAsync)) return e;
  return Forwarded(GpuOp::kMemsetAsync, base_.MemsetAsync(dst, value, size, stream));
}

hipError_t FaultRuntime::StreamCreate(runtime::Stream* stream, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kStreamCreate)) return e;
  return Forwarded(GpuOp::kStreamCreate, base_.StreamCreate(stream, flags));
}

hipError_t FaultRuntime::StreamDestroy(runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kStreamDestroy)) return e;
  return Forwarded(GpuOp::kStreamDestroy, base_.StreamDestroy(stream));
}

// An injected failure of a wait models work that ended in that failure: the base's work is
// drained first, so that nothing it does (a CPU-runtime copy into a staging buffer) outlives a
// caller that gave up on it. An injected hipErrorNotReady means "still running" and drains
// nothing.
hipError_t FaultRuntime::StreamSynchronize(runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kStreamSynchronize)) {
    (void)base_.StreamSynchronize(stream);
    return e;
  }
  return Forwarded(GpuOp::kStreamSynchronize, base_.StreamSynchronize(stream));
}

hipError_t FaultRuntime::StreamQuery(runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kStreamQuery)) {
    if (e != hipErrorNotReady) (void)base_.StreamSynchronize(stream);
    return e;
  }
  return Forwarded(GpuOp::kStreamQuery, base_.StreamQuery(stream));
}

hipError_t FaultRuntime::StreamWaitEvent(runtime::Stream stream, runtime::Event event,
                                         unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kStreamWaitEvent)) return e;
  return Forwarded(GpuOp::kStreamWaitEvent, base_.StreamWaitEvent(stream, event, flags));
}

hipError_t FaultRuntime::StreamGetDevice(runtime::Stream stream, int* device) {
  if (const hipError_t e = Injected(GpuOp::kStreamGetDevice)) return e;
  return Forwarded(GpuOp::kStreamGetDevice, base_.StreamGetDevice(stream, device));
}

hipError_t FaultRuntime::StreamGetFlags(runtime::Stream stream, unsigned* flags) {
  if (const hipError_t e = Injected(GpuOp::kStreamGetFlags)) return e;
  return Forwarded(GpuOp::kStreamGetFlags, base_.StreamGetFlags(stream, flags));
}

hipError_t FaultRuntime::StreamIsCapturing(runtime::Stream stream, bool* capturing) {
  if (const hipError_t e = Injected(GpuOp::kStreamIsCapturing)) return e;
  hipError_t e = base_.StreamIsCapturing(stream, capturing);
  if (e == hipSuccess && capturing_.load() && capturing_stream_.load() == stream) *capturing = true;
  return Forwarded(GpuOp::kStreamIsCapturing, e);
}

hipError_t FaultRuntime::LaunchHostFunc(runtime::Stream stream, runtime::HostFn fn,
                                        void* user_data) {
  if (const hipError_t e = Injected(GpuOp::kLaunchHostFunc)) return e;
  return Forwarded(GpuOp::kLaunchHostFunc, base_.LaunchHostFunc(stream, fn, user_data));
}

hipError_t FaultRuntime::StreamWaitValue32(runtime::Stream stream, uint32_t* addr, uint32_t value) {
  if (const hipError_t e = Injected(GpuOp::kStreamWaitValue32)) return e;
  return Forwarded(GpuOp::kStreamWaitValue32, base_.StreamWaitValue32(stream, addr, value));
}

hipError_t FaultRuntime::StreamWriteValue32(runtime::Stream stream, uint32_t* addr,
                                            uint32_t value) {
  if (const hipError_t e = Injected(GpuOp::kStreamWriteValue32)) return e;
  return Forwarded(GpuOp::kStreamWriteValue32, base_.StreamWriteValue32(stream, addr, value));
}

hipError_t FaultRuntime::EventCreate(runtime::Event* event, unsigned flags) {
  if (const hipError_t e = Injected(GpuOp::kEventCreate)) return e;
  return Forwarded(GpuOp::kEventCreate, base_.EventCreate(event, flags));
}

hipError_t FaultRuntime::EventRecord(runtime::Event event, runtime::Stream stream) {
  if (const hipError_t e = Injected(GpuOp::kEventRecord)) return e;
  return Forwarded(GpuOp::kEventRecord, base_.EventRecord(event, stream));
}

hipError_t FaultRuntime::EventSynchronize(runtime::Event event) {
  if (const hipError_t e = Injected(GpuOp::kEventSynchronize)) {
    (void)base_.EventSynchronize(event);
    return e;
  }
  return Forwarded(GpuOp::kEventSynchronize, base_.EventSynchronize(event));
}

hipError_t FaultRuntime::EventQuery(runtime::Event event) {
  if (const hipError_t e = Injected(GpuOp::kEventQuery)) return e;
  return Forwarded(GpuOp::kEventQuery, base_.EventQuery(event));
}

hipError_t FaultRuntime::EventElapsedTime(float* ms, runtime::Event start, runtime::Event stop) {
  if (const hipError_t e = Injected(GpuOp::kEventElapsedTime)) return e;
  return Forwarded(GpuOp::kEventElapsedTime, base_.EventElapsedTime(ms, start, stop));
}

hipError_t FaultRuntime::EventDestroy(runtime::Event event) {
  if (const hipError_t e = Injected(GpuOp::kEventDestroy)) return e;
  return Forwarded(GpuOp::kEventDestroy, base_.EventDestroy(event));
}

bool FaultRuntime::SupportsStreamMemOps(int device) {
  const int answer = stream_mem_ops_.load();
  return answer < 0 ? base_.SupportsStreamMemOps(device) : answer != 0;
}

}  // namespace hipfile::testing
