// SPDX-License-Identifier: MIT
// CpuRuntime: the class behind CreateCpuRuntime(). Its methods are split by topic:
// cpu_runtime.cc (devices, lifetime), cpu_device.cc (properties, attributes, versions, reset),
// cpu_memory.cc (allocations, copies, fills),
// cpu_streams.cc (streams, host functions, stream memory operations), cpu_events.cc (events).
// The behaviour it promises is in cpu_runtime.h.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/cpu/cpu_runtime.h"
#include "runtime/cpu/memory_table.h"
#include "runtime/cpu/stream_worker.h"
#include "runtime/cpu/timeline.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"

namespace hipfile::runtime::cpu {

class CpuRuntime final : public GpuRuntime {
 public:
  explicit CpuRuntime(const CpuRuntimeOptions& options);
  // Finishes queued work, joins every stream thread, frees what Malloc and HostMalloc still hold.
  ~CpuRuntime() override;

  const char* Name() const override { return host_memory_ ? "cpu" : "cpu-staged"; }
  bool DeviceMemoryIsHostMemory() const override { return host_memory_; }

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
  hipError_t PointerGetInfo(const void* ptr, PointerInfo* info) override;

  hipError_t Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) override;
  hipError_t MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                         Stream stream) override;
  bool SupportsCopyTable(int device) override { return ValidDevice(device); }
  hipError_t CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) override;
  hipError_t CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                               const uint32_t* ready, uint32_t* copied, CopyTable* mirror,
                               Stream stream) override;
  hipError_t Memset(void* dst, int value, size_t size) override;
  hipError_t MemsetAsync(void* dst, int value, size_t size, Stream stream) override;

  hipError_t StreamCreate(Stream* stream, unsigned flags) override;
  hipError_t StreamDestroy(Stream stream) override;
  hipError_t StreamSynchronize(Stream stream) override;
  hipError_t StreamQuery(Stream stream) override;
  hipError_t StreamWaitEvent(Stream stream, Event event, unsigned flags) override;
  hipError_t StreamGetDevice(Stream stream, int* device) override;
  hipError_t StreamGetFlags(Stream stream, unsigned* flags) override;
  hipError_t LaunchHostFunc(Stream stream, HostFn fn, void* user_data) override;
  bool HostFunctionsRunPerStream() const override { return true; }  // each stream's worker's

  bool SupportsStreamMemOps(int device) override;
  hipError_t StreamWaitValue32(Stream stream, uint32_t* addr, uint32_t value) override;
  hipError_t StreamWriteValue32(Stream stream, uint32_t* addr, uint32_t value) override;

  hipError_t EventCreate(Event* event, unsigned flags) override;
  hipError_t EventRecord(Event event, Stream stream) override;
  hipError_t EventSynchronize(Event event) override;
  hipError_t EventQuery(Event event) override;
  hipError_t EventElapsedTime(float* ms, Event start, Event stop) override;
  hipError_t EventDestroy(Event event) override;

 private:
  // Written by an event's marker task before its point completes; read once the point is reached.
  struct Stamp {
    std::chrono::steady_clock::time_point when;
  };
  struct EventState {
    unsigned flags = 0;
    int device = 0;                // current when it was made; recorded on that device's streams
    SyncPoint point;               // the latest record; no timeline when never recorded
    std::shared_ptr<Stamp> stamp;  // null when never recorded
  };

  // Opaque handle values for streams and events: never reused, never null.
  uintptr_t NewHandle();

  // Devices (cpu_runtime.cc).
  bool ValidDevice(int device) const { return device >= 0 && device < devices_; }
  // The calling thread's current device for this runtime (0 until it sets another).
  int CurrentDevice() const;

  // Memory (cpu_memory.cc).
  // hipErrorInvalidValue when [p, p + size) starts inside a known region and runs past its end.
  hipError_t CheckRange(const void* p, size_t size) const;
  // A kernel's: as CheckRange, but [p, p + size) may run on through known regions that follow
  // one another, as a kernel's loads and stores go on through pages each mapped for the device
  // (a copy table's copy across adjacent page-cache windows), which one DMA may not.
  hipError_t CheckKernelRange(const void* p, size_t size) const;
  hipError_t CheckCopy(void* dst, const void* src, size_t size, hipMemcpyKind kind) const;
  // A kernel's copy (a copy table's): as CheckCopy, its ranges as CheckKernelRange.
  hipError_t CheckKernelCopy(void* dst, const void* src, size_t size) const;
  hipError_t CheckFill(void* dst, size_t size) const;
  // For the stream memory operations: a 4-byte aligned word inside a known region.
  hipError_t CheckWord(const uint32_t* addr) const;
  // `count` copy tables from `tables` in host memory the device can reach.
  hipError_t CheckTables(const CopyTable* tables, size_t count) const;
  // A CopyTableRunAsync mirror: two tables' room in device memory.
  hipError_t CheckMirror(const CopyTable* mirror) const;
  // What a launch of the table kernel for `token` does, on the stream's thread.
  void CopyTableNow(const CopyTable* table, uint32_t token) const;

  // Streams (cpu_streams.cc).
  // Each device has a null stream of its own, made on first use.
  void EnsureNullStream(int device) EXCLUDES(streams_mu_);
  // hipStreamPerThread (per_thread_streams.h): replaces *stream by the calling thread's own
  // stream of the current device, made on its first use (a blocking stream, as CUDA's), where it
  // is that handle. hipErrorOutOfMemory when it cannot be made or remembered.
  hipError_t Resolve(Stream* stream) EXCLUDES(streams_mu_);
  // The worker behind a handle (the current device's null stream for a null handle); null when
  // unknown.
  StreamWorker* FindLocked(Stream stream) const REQUIRES_SHARED(streams_mu_);
  // The device a stream belongs to (a null stream: the current device's).
  hipError_t DeviceOf(Stream stream, int* device) EXCLUDES(streams_mu_);
  // Waits for the queued work of every stream of every device (what freeing memory waits for).
  void SynchronizeAll() EXCLUDES(streams_mu_);
  // Adds the legacy default stream's ordering to waits for work about to go on worker.
  void AddLegacyWaitsLocked(const StreamWorker& worker, std::vector<SyncPoint>* waits) const
      REQUIRES_SHARED(streams_mu_);
  // The points a synchronous operation (or a null-stream synchronize) on `device` must wait for.
  std::vector<SyncPoint> LegacyBarrier(int device) EXCLUDES(streams_mu_);
  // Queues task on stream after waits and the legacy ordering; *point (if given) is its point.
  hipError_t Enqueue(Stream stream, std::vector<SyncPoint> waits, std::function<void()> task,
                     SyncPoint* point = nullptr) EXCLUDES(streams_mu_, queues_mu_);
  // Joins retired streams whose queue has drained.
  void ReapRetiredLocked() REQUIRES(streams_mu_);
  // The hardware queue of the next stream made on `device` (CpuRuntimeOptions::hardware_queues).
  unsigned NextQueue(int device) EXCLUDES(queues_mu_);

  const size_t page_size_;
  const int devices_;  // CpuRuntimeOptions::devices, clamped to [1, kMaxCpuDevices]
  // Names this runtime in each thread's table of current devices (cpu_runtime.cc); never reused,
  // so a runtime made where a destroyed one was finds no stale entry.
  const uint64_t id_;
  std::atomic<uintptr_t> next_handle_{0};
  // Set by the destructor: stream waits on memory values give up so that workers can be joined.
  std::atomic<bool> shutting_down_{false};

  MemoryTable memory_;

  mutable SharedMutex streams_mu_;
  // By device; null until first used.
  std::vector<std::unique_ptr<StreamWorker>> null_streams_ GUARDED_BY(streams_mu_);
  std::map<Stream, std::unique_ptr<StreamWorker>> streams_ GUARDED_BY(streams_mu_);
  // Destroyed streams still finishing their queue (StreamDestroy does not wait).
  std::vector<std::unique_ptr<StreamWorker>> retired_ GUARDED_BY(streams_mu_);

  // CpuRuntimeOptions::hardware_queues (per device): per queue, the last task queued on any of
  // its streams, device d's queues at [d * hardware_queues_, (d + 1) * hardware_queues_).
  const unsigned hardware_queues_;
  const bool host_memory_;  // CpuRuntimeOptions::device_memory_is_host_memory
  Mutex queues_mu_;
  std::vector<SyncPoint> queue_last_ GUARDED_BY(queues_mu_);
  std::vector<unsigned> next_queue_ GUARDED_BY(queues_mu_);  // by device

  Mutex events_mu_;
  std::map<Event, EventState> events_ GUARDED_BY(events_mu_);
};

}  // namespace hipfile::runtime::cpu
