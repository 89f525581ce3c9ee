// SPDX-License-Identifier: MIT
// The CPU runtime: a GpuRuntime for machines without a GPU.
//
// One emulated device (device 0) by default, or several (CpuRuntimeOptions::devices), each named
// "hipFile CPU device", device d's UUID the 16 bytes "hipfile-cpu-dev" and the hex digit of d
// ("hipfile-cpu-dev0"); each one's total memory (GetDeviceTotalMem, MemGetInfo) is physical RAM and
// MemGetInfo's free is the kernel's free RAM. Attributes: multiprocessor count = online CPUs;
// 1 for warp size, threads per block and per multiprocessor, blocks per multiprocessor, block and
// grid dimensions, and for integrated, can-map-host-memory, host-pointer-for-registered-memory,
// unified addressing, managed memory, concurrent and direct managed access, pageable memory
// access (through the host's page tables) and host registration; every other supported attribute
// (compute capability, PCI ids, clocks, caches, ...) is 0. DriverGetVersion is kHipVersion.
// DeviceReset only waits for queued work: memory, streams and events stay valid.
//
// Several devices behave as several GPUs do: the current device is per thread (0 until the
// thread sets another; a thread remembers it for the 8 runtimes it most recently made current
// something other than device 0 on, which a process with one runtime never reaches); streams,
// events, allocations and pinned or registered memory belong to the device current when they were
// made (StreamGetDevice, PointerGetInfo's device); a stream of any device may be used whatever
// device is current (its work runs on its device); each device has its own null stream, its own
// legacy ordering with its blocking streams and, with hardware_queues, its own queues;
// DeviceSynchronize and DeviceReset wait for the current device's work; an event is recorded only
// on a stream of its device (else hipErrorInvalidHandle), and two events of different devices have
// no elapsed time (hipErrorInvalidHandle). All devices share the host's memory, so memory of one is
// addressable from every other (peer access).
//
// Device memory is page-aligned host memory that the runtime tracks, so PointerGetInfo reports it
// as hipMemoryTypeDevice (no host pointer) with its allocation's base and size for any pointer
// inside it; pinned host memory (HostMalloc / HostRegister) is reported as hipMemoryTypeHost, and
// managed memory (MallocManaged, the same host memory) as hipMemoryTypeManaged with both
// pointers. Malloc(0) and MallocManaged(0) give a null pointer; Malloc, MallocManaged or
// HostMalloc of physical RAM or more is hipErrorOutOfMemory; Free (device and managed memory),
// HostFree and HostUnregister wait for all queued work first (every device's), as cudaFree and
// cudaHostUnregister do.
//
// Each stream is an in-order worker thread running a queue of tasks; the default (null) stream
// is one more, started on first use. hipStreamPerThread names the calling thread's default stream
// of the current device: a blocking stream made on the thread's first use of it and destroyed
// when the thread exits (queued work still runs; per_thread_streams.h). Host functions run on
// their stream's worker, so one that blocks stalls only its own stream. Events record a point in
// a stream and the time it completed.
//
// Where it differs from a GPU, on purpose:
// - Ordering with the default stream follows HIP's legacy default stream: work on the null
//   stream waits for earlier work on every blocking stream (flags 0), and work on a blocking
//   stream waits for earlier null-stream work; hipStreamNonBlocking streams order with nothing.
//   Memcpy and Memset are null-stream work done on the calling thread: they wait as above, then
//   copy.
// - StreamDestroy returns at once, as in CUDA; queued work still runs and the worker thread is
//   joined later (next StreamCreate/StreamDestroy, or the destructor).
// - Copies accept any hipMemcpyKind for any pointers (unified addressing); only a kind outside
//   the enum is refused. A copy that runs past the end of a tracked allocation is refused.
// - StreamWaitValue32 / StreamWriteValue32 need a 4-byte aligned word in tracked memory
//   (HostMalloc, HostRegister or Malloc), as a GPU needs memory it can reach. The wait polls
//   with sleeps from 1 us growing to 100 us.
// - Stream and event handles are opaque numbers, never reused; unknown or destroyed handles give
//   hipErrorInvalidHandle.
// - As on CUDA, a call that waits for queued work before freeing (Free, HostFree, HostUnregister,
//   DeviceReset) holds every other thread's runtime calls until it returns (driver_lock.h), unless
//   CpuRuntimeOptions::driver_lock is false.
// - Destroying the runtime finishes queued work and joins every worker; stream value waits give
//   up at that point, but a host function that never returns makes it hang.
#pragma once

#include <memory>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

// The most devices a CPU runtime presents (CpuRuntimeOptions::devices, HIPFILE_CPU_DEVICES).
inline constexpr unsigned kMaxCpuDevices = 16;

struct CpuRuntimeOptions {
  // How many devices it presents, 1 (the default) to kMaxCpuDevices (values outside are clamped):
  // for tests of several GPUs in one process without them. Set for the process's runtime by
  // HIPFILE_CPU_DEVICES (docs/environment.md).
  unsigned devices = 1;
  // 0 (the default): streams run independently. n > 0: streams share n in-order queues, the k-th
  // stream made (the null stream counts when first used) on queue k % n, and work queued on a
  // stream also waits for all work queued before it on its queue, whatever the stream - as a GPU
  // feeds streams to a few hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default) and runs
  // what shares one in order. For tests of that hazard: a stream stalled on a value wait stalls
  // every stream behind it on its queue.
  unsigned hardware_queues = 0;
  // true (the default): device memory is host memory that the engine reads into directly. false:
  // the runtime says it is not (DeviceMemoryIsHostMemory), so the library takes a GPU's data
  // paths - pinned staging and copies, page-cache windows, stream-ordered copies on streams -
  // and its name is "cpu-staged". For tests of those paths without a GPU.
  bool device_memory_is_host_memory = true;
  // true (the default): CUDA's driver lock (driver_lock.h) - while Free, HostFree, HostUnregister
  // or DeviceReset waits for queued work, every other call of the runtime waits for it. false:
  // calls never wait for each other's waits (for tests of the runtime alone).
  bool driver_lock = true;
};

std::unique_ptr<GpuRuntime> CreateCpuRuntime(const CpuRuntimeOptions& options = {});

}  // namespace hipfile::runtime
