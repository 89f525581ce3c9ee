// SPDX-License-Identifier: MIT
// FaultRuntime: a runtime::GpuRuntime that forwards to another and injects hipError_t failures.
//
//   auto cpu = runtime::CreateCpuRuntime();
//   testing::FaultRuntime gpu(*cpu);
//   gpu.FailNth(testing::GpuOp::kMemcpyAsync, 3, hipErrorIllegalAddress);
//
// A failed call does not reach the base runtime and leaves its outputs untouched.
// SupportsStreamMemOps can be overridden with SetStreamMemOps. Calls the base answered with
// hipSuccess are counted (Succeeded), so that a test can balance allocations against frees.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "fakes/fault_plan.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"

namespace hipfile::testing {

enum class GpuOp : size_t {
  kGetDeviceCount,
  kSetDevice,
  kGetDevice,
  kDeviceSynchronize,
  kMemGetInfo,
  kGetDeviceUuid,
  kGetDeviceName,
  kGetDeviceTotalMem,
  kGetDeviceAttribute,
  kDriverGetVersion,
  kDeviceReset,
  kMalloc,
  kMallocManaged,
  kFree,
  kHostMalloc,
  kHostFree,
  kHostRegister,
  kHostUnregister,
  kHostRegisterAside,
  kHostUnregisterAside,
  kPointerGetInfo,
  kMemcpy,
  kMemcpyAsync,
  kCopyTableAsync,
  kCopyTableRunAsync,
  kMemset,
  kMemsetAsync,
  kStreamCreate,
  kStreamDestroy,
  kStreamSynchronize,
  kStreamQuery,
  kStreamWaitEvent,
  kStreamGetDevice,
  kStreamGetFlags,
  kStreamIsCapturing,
  kLaunchHostFunc,
  kStreamWaitValue32,
  kStreamWriteValue32,
  kEventCreate,
  kEventRecord,
  kEventSynchronize,
  kEventQuery,
  kEventElapsedTime,
  kEventDestroy,
  kCount,
};

class FaultRuntime : public runtime::GpuRuntime {
 public:
  explicit FaultRuntime(runtime::GpuRuntime& base) : base_(base) {}

  // The n-th call of `op` from now (1-based) fails with `error`.
  void FailNth(GpuOp op, uint64_t n, hipError_t error) { plan_.FailNth(Index(op), n, error); }
  void FailAlways(GpuOp op, hipError_t error) { plan_.FailAlways(Index(op), error); }
  void FailTimes(GpuOp op, uint64_t count, hipError_t error) {
    plan_.FailTimes(Index(op), count, error);
  }
  // Every MemcpyAsync whose source or destination range holds `address` fails with `error`, until
  // Reset: a fault on the copy of one part of a buffer, whichever thread makes it and whenever.
  void FailMemcpyAsyncTouching(const void* address, hipError_t error) {
    touching_error_ = error;
    touching_.store(reinterpret_cast<uintptr_t>(address));
  }
  // Runs `hook` at the start of every call of `op` (on the calling thread) until Reset: to hold a
  // call the way a runtime does whose queue is full, until something else happened.
  void BeforeCall(GpuOp op, std::function<void()> hook) {
    MutexLock lock(hooks_mu_);
    hooks_[Index(op)] = std::move(hook);
  }
  // Runs `hook` after the base answered each call of `op` (whatever it answered; on the calling
  // thread, before the call returns) until Reset: to let something happen between a call and
  // what its caller does next, such as a stream passing work just queued.
  void AfterCall(GpuOp op, std::function<void()> hook) {
    MutexLock lock(hooks_mu_);
    after_hooks_[Index(op)] = std::move(hook);
  }
  // Each CopyTableAsync (and CopyTableRunAsync) queued from now on is preceded on its stream by the
  // host function fn(arg) (null: none), until Reset: a stream held between a staged operation's
  // `ready` and its copy, e.g. by a testing::StreamGate (fakes/gate.h: &StreamGate::Wait, &gate).
  void HoldCopyTables(runtime::HostFn fn, void* arg) {
    hold_copies_arg_.store(arg);
    hold_copies_fn_.store(fn);
  }
  // The same for each MemcpyAsync: a host function ahead of it on its stream (a slow DMA).
  void HoldMemcpies(runtime::HostFn fn, void* arg) {
    hold_memcpy_arg_.store(arg);
    hold_memcpy_fn_.store(fn);
  }
  // The mirror the last CopyTableRunAsync passed on (null: none, or no call yet).
  const void* LastRunMirror() const { return last_run_mirror_.load(); }
  // The first and last tokens the last CopyTableRunAsync passed on ({0, 0}: no call yet).
  std::pair<uint32_t, uint32_t> LastRunTokens() const {
    const uint64_t span = last_run_tokens_.load();
    return {static_cast<uint32_t>(span >> 32), static_cast<uint32_t>(span)};
  }
  // What SupportsStreamMemOps answers: -1 forwards (the default), 0 false, 1 true.
  void SetStreamMemOps(int answer) { stream_mem_ops_ = answer; }
  // StreamIsCapturing answers true for `stream` until Reset, as CUDA does between a program's
  // cuStreamBeginCapture and cuStreamEndCapture (the CPU runtime has no graphs).
  void SetCapturing(runtime::Stream stream) {
    capturing_stream_.store(stream);
    capturing_.store(true);
  }
  // Drops every fault and override and zeroes the call counters (Calls, not Succeeded).
  void Reset() {
    plan_.Reset();
    {
      MutexLock lock(hooks_mu_);
      for (auto& hook : hooks_) hook = nullptr;
      for (auto& hook : after_hooks_) hook = nullptr;
    }
    stream_mem_ops_ = -1;
    capturing_ = false;
    touching_ = 0;
    hold_copies_fn_ = nullptr;
    hold_memcpy_fn_ = nullptr;
  }
  uint64_t Calls(GpuOp op) const { return plan_.Calls(Index(op)); }
  // Calls of `op` that reached the base and succeeded, since construction (Reset keeps them).
  uint64_t Succeeded(GpuOp op) const { return succeeded_[Index(op)].load(); }

  const char* Name() const override { return base_.Name(); }
  // False by default, whatever the base says, so that engine tests over the CPU runtime exercise
  // the staged path a GPU takes; SetDeviceMemoryIsHostMemory(true) gives the base's direct path.
  bool DeviceMemoryIsHostMemory() const override { return host_memory_; }
  void SetDeviceMemoryIsHostMemory(bool value) { host_memory_ = value; }
  // False by default as on a GPU, whatever the base says, so that tests take a GPU's ways;
  // SetHostFunctionsRunPerStream(true) gives the CPU runtime's (the base's host functions run on
  // its stream workers either way).
  bool HostFunctionsRunPerStream() const override { return host_fns_per_stream_; }
  void SetHostFunctionsRunPerStream(bool value) { host_fns_per_stream_ = value; }
  // False by default, as the CPU runtime says; SetHostReadsCrossALink(true) answers as CUDA does,
  // so that the library measures the copies' rates (which holds can then set).
  bool HostReadsCrossALink() const override { return host_link_; }
  void SetHostReadsCrossALink(bool value) { host_link_ = value; }
  hipError_t GetDeviceCount(int* count) override;
  hipError_t SetDevice(int device) override;
  hipError_t GetDevice(int* device) override;
  hipError_t DeviceSynchronize() override;
  hipError_t MemGetInfo(size_t* free_bytes, size_t* total_bytes) override;
  hipError_t GetDeviceUuid(int device, char uuid[16]) override;
  hipError_t GetDeviceName(int device, char* name, size_t size) override;
  hipError_t GetDeviceTotalMem(int device, size_t* bytes) override;
  hipError_t GetDeviceAttribute(int device, hipDeviceAttribute_t attribute, int* value) override;
  hipError_t DriverGetVersion(int* version) override;
  hipError_t DeviceReset() override;
  hipError_t Malloc(void** ptr, size_t size) override;
  hipError_t MallocManaged(void** ptr, size_t size, unsigned flags) override;
  hipError_t Free(void* ptr) override;
  hipError_t HostMalloc(void** ptr, size_t size, unsigned flags) override;
  hipError_t HostFree(void* ptr) override;
  hipError_t HostRegister(void* ptr, size_t size, unsigned flags) override;
  hipError_t HostUnregister(void* ptr) override;
  hipError_t HostRegisterAside(void* ptr, size_t size, unsigned flags) override;
  hipError_t HostUnregisterAside(void* ptr) override;
  hipError_t PointerGetInfo(const void* ptr, runtime::PointerInfo* info) override;
  hipError_t Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) override;
  hipError_t MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                         runtime::Stream stream) override;
  bool SupportsCopyTable(int device) override { return base_.SupportsCopyTable(device); }
  hipError_t CopyTableAsync(const runtime::CopyTable* table, uint32_t token,
                            runtime::Stream stream) override;
  hipError_t CopyTableRunAsync(const runtime::CopyTable* tables, uint32_t first, uint32_t last,
                               const uint32_t* ready, uint32_t* copied, runtime::CopyTable* mirror,
                               runtime::Stream stream) override;
  hipError_t Memset(void* dst, int value, size_t size) override;
  hipError_t MemsetAsync(void* dst, int value, size_t size, runtime::Stream stream) override;
  hipError_t StreamCreate(runtime::Stream* stream, unsigned flags) override;
  hipError_t StreamDestroy(runtime::Stream stream) override;
  hipError_t StreamSynchronize(runtime::Stream stream) override;
  hipError_t StreamQuery(runtime::Stream stream) override;
  hipError_t StreamWaitEvent(runtime::Stream stream, runtime::Event event, unsigned flags) override;
  hipError_t StreamGetDevice(runtime::Stream stream, int* device) override;
  hipError_t StreamGetFlags(runtime::Stream stream, unsigned* flags) override;
  hipError_t StreamIsCapturing(runtime::Stream stream, bool* capturing) override;
  hipError_t LaunchHostFunc(runtime::Stream stream, runtime::HostFn fn, void* user_data) override;
  bool SupportsStreamMemOps(int device) override;
  hipError_t StreamWaitValue32(runtime::Stream stream, uint32_t* addr, uint32_t value) override;
  hipError_t StreamWriteValue32(runtime::Stream stream, uint32_t* addr, uint32_t value) override;
  hipError_t EventCreate(runtime::Event* event, unsigned flags) override;
  hipError_t EventRecord(runtime::Event event, runtime::Stream stream) override;
  hipError_t EventSynchronize(runtime::Event event) override;
  hipError_t EventQuery(runtime::Event event) override;
  hipError_t EventElapsedTime(float* ms, runtime::Event start, runtime::Event stop) override;
  hipError_t EventDestroy(runtime::Event event) override;

  // Bytes of pinned host memory (HostMalloc) allocated through this runtime and not yet freed,
  // and the most there were since the last ResetPeakPinnedHostBytes.
  uint64_t PinnedHostBytes() const;
  uint64_t PeakPinnedHostBytes() const;
  void ResetPeakPinnedHostBytes();

 private:
  static size_t Index(GpuOp op) { return static_cast<size_t>(op); }
  // The injected error for this call of `op`, or hipSuccess to forward it.
  hipError_t Injected(GpuOp op) {
    RunHook(/*after=*/false, op);
    return static_cast<hipError_t>(plan_.OnCall(Index(op)));
  }
  // The base's answer `e` to a call of `op`, counted when it is hipSuccess, after AfterCall's hook.
  hipError_t Forwarded(GpuOp op, hipError_t e) {
    if (e == hipSuccess) ++succeeded_[Index(op)];
    RunHook(/*after=*/true, op);
    return e;
  }
  // Runs a copy of op's hook (AfterCall's when `after`), taken under hooks_mu_ and run without
  // it: a hook may call into this runtime, or set hooks.
  void RunHook(bool after, GpuOp op) EXCLUDES(hooks_mu_) {
    std::function<void()> hook;
    {
      MutexLock lock(hooks_mu_);
      hook = after ? after_hooks_[Index(op)] : hooks_[Index(op)];
    }
    if (hook) hook();
  }

  runtime::GpuRuntime& base_;
  FaultPlan plan_{Index(GpuOp::kCount)};
  std::atomic<int> stream_mem_ops_{-1};
  std::atomic<bool> capturing_{false};
  std::atomic<runtime::Stream> capturing_stream_{nullptr};
  std::atomic<uint64_t> succeeded_[static_cast<size_t>(GpuOp::kCount)] = {};
  std::atomic<uintptr_t> touching_{0};  // FailMemcpyAsyncTouching's address; 0: none
  std::atomic<hipError_t> touching_error_{hipSuccess};
  std::atomic<runtime::HostFn> hold_copies_fn_{nullptr};  // HoldCopyTables
  std::atomic<void*> hold_copies_arg_{nullptr};
  std::atomic<runtime::HostFn> hold_memcpy_fn_{nullptr};  // HoldMemcpies
  std::atomic<void*> hold_memcpy_arg_{nullptr};
  std::atomic<const void*> last_run_mirror_{nullptr};  // LastRunMirror
  std::atomic<uint64_t> last_run_tokens_{0};           // LastRunTokens: first << 32 | last
  bool host_memory_ = false;
  bool host_fns_per_stream_ = false;
  bool host_link_ = false;
  Mutex hooks_mu_;
  std::function<void()> hooks_[static_cast<size_t>(GpuOp::kCount)] GUARDED_BY(hooks_mu_);
  std::function<void()> after_hooks_[static_cast<size_t>(GpuOp::kCount)] GUARDED_BY(hooks_mu_);
  mutable Mutex pinned_mu_;
  std::map<const void*, size_t> pinned_ GUARDED_BY(pinned_mu_);
  uint64_t pinned_bytes_ GUARDED_BY(pinned_mu_) = 0;
  uint64_t peak_pinned_bytes_ GUARDED_BY(pinned_mu_) = 0;
};

}  // namespace hipfile::testing
