// SPDX-License-Identifier: MIT
// GpuRuntime: every GPU call the library makes goes through this interface.
//
// Two implementations: CUDA (driver API loaded at run time; src/runtime/cuda) and CPU (device
// memory is host memory, each stream an in-order worker thread; src/runtime/cpu). HIP on AMD fits
// behind it later. Tests compose fault injectors over it (tests/fakes).
//
// Conventions: every method returns a hipError_t with HIP's numbering (hipSuccess on success) and
// is thread-safe. Streams and events are opaque handles; on CUDA they are the CUstream/CUevent
// themselves, so handles created by other CUDA code work. A null Stream is the default stream.
// hipStreamPerThread (CUDA's CU_STREAM_PER_THREAD) names the calling thread's default stream of
// the current device: every method taking a Stream takes it, and it is a different stream in
// each thread (IsPerThreadStream).
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hipfile::runtime {

// The HIP release whose semantics the runtimes follow, in HIP_VERSION's encoding
// (major * 10000000 + minor * 100000 + patch): HIP 6.0. hipRuntimeGetVersion reports it, and so
// does DriverGetVersion on runtimes with no driver of their own (the CPU runtime).
inline constexpr int kHipVersion = 60000000;

using Stream = hipStream_t;

// Whether `stream` is hipStreamPerThread: one handle that each thread resolves to a stream of its
// own, so whoever keys state by stream must tell the threads apart (core/async/stream_key.h).
inline bool IsPerThreadStream(Stream stream) { return stream == hipStreamPerThread; }
using Event = hipEvent_t;
using HostFn = void (*)(void* user_data);

// What the runtime knows about a pointer.
struct PointerInfo {
  hipMemoryType type = hipMemoryTypeUnregistered;  // Unregistered: plain host memory
  int device = -1;                                 // owning device; -1 for unregistered memory
  void* base = nullptr;            // start of the allocation or registration holding the pointer
  size_t size = 0;                 // its length in bytes (0 when unregistered)
  void* device_pointer = nullptr;  // address the device uses for the pointer
  void* host_pointer = nullptr;    // address the host uses (null for device-only memory)
  bool is_managed = false;
  unsigned flags = 0;  // allocation / registration flags
};

// One copy of a MemcpyBatchAsync.
struct CopyOp {
  void* dst = nullptr;
  const void* src = nullptr;
  size_t size = 0;
};

// Copies a stream reads when it gets to them (CopyTableAsync). The layout is fixed: the CUDA
// runtime's copy kernel reads it from host memory (runtime/cuda/gather_kernel.h).
struct CopyTable {
  static constexpr size_t kMaxCopies = 128;
  struct Copy {
    uint64_t dst = 0;  // addresses as integers: device memory, or pinned host memory
    uint64_t src = 0;
    uint64_t bytes = 0;
  };
  uint32_t count = 0;  // copies [0, count) are made; at most kMaxCopies
  // Which launch the copies are for (CopyTableAsync's `token`): a launch for another token
  // copies nothing, so whoever fills the table need not touch it for a launch with nothing to
  // copy while the stream may still be running an earlier one that reads it.
  uint32_t token = 0;
  // 1: no later token of the launch's run (the operation, or its part: CopyTableRunAsync's
  // first..last) copies anything (a CopyTableRunAsync launch that finds this table filled for its
  // first token copies it with its whole grid and stops); 0: later tokens may copy.
  uint32_t last = 0;
  uint32_t spare = 0;
  Copy copy[kMaxCopies];

  // Whether the launch for `token` copies nothing from the table as it is now.
  bool CopiesNothingFor(uint32_t launch_token) const { return token != launch_token || count == 0; }
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;

  // "cuda" or "cpu"; reported by logs, hipFileDriverGetProperties and the tools.
  virtual const char* Name() const = 0;
  // Whether device memory is ordinary host memory that the CPU may read and write directly (the
  // CPU runtime): the engine then moves file data straight into it, without staging.
  virtual bool DeviceMemoryIsHostMemory() const = 0;
  // Whether the device reads host memory over a link, where a DMA copy (MemcpyAsync) and the
  // copy kernel (CopyTableAsync) may read it at rates of their own, which only a measurement tells
  // (the stream-ordered reads' choice of way: core/async/host_read_probe.h). The CPU runtimes copy
  // with memcpy either way.
  virtual bool HostReadsCrossALink() const { return false; }

  // Devices. The current device is per thread, as in HIP.
  virtual hipError_t GetDeviceCount(int* count) = 0;
  virtual hipError_t SetDevice(int device) = 0;
  virtual hipError_t GetDevice(int* device) = 0;
  virtual hipError_t DeviceSynchronize() = 0;
  virtual hipError_t MemGetInfo(size_t* free_bytes, size_t* total_bytes) = 0;
  // 16-byte device UUID.
  virtual hipError_t GetDeviceUuid(int device, char uuid[16]) = 0;
  // The device's name, NUL-terminated and cut to fit `size` bytes.
  virtual hipError_t GetDeviceName(int device, char* name, size_t size) = 0;
  // All the memory the device has, in bytes.
  virtual hipError_t GetDeviceTotalMem(int device, size_t* bytes) = 0;
  // One of the attributes in runtime/device_attributes.h (SupportedDeviceAttribute); any other
  // is hipErrorInvalidValue. hipDeviceAttributeTotalGlobalMem is clamped to INT_MAX.
  virtual hipError_t GetDeviceAttribute(int device, hipDeviceAttribute_t attribute, int* value) = 0;
  // The driver's version (CUDA: cuDriverGetVersion, 1000 * major + 10 * minor).
  virtual hipError_t DriverGetVersion(int* version) = 0;
  // Waits for the current device's work, then destroys its state where it has any: on CUDA the
  // primary context is reset, with every allocation, stream and event made on it; the CPU runtime
  // only waits. The caller makes sure nothing else uses the device meanwhile, or later uses what
  // was destroyed.
  virtual hipError_t DeviceReset() = 0;

  // Memory.
  virtual hipError_t Malloc(void** ptr, size_t size) = 0;
  // Managed memory: one address for the host and every device, hipMemAttachGlobal or
  // hipMemAttachHost (exactly one). PointerGetInfo reports it as hipMemoryTypeManaged with
  // is_managed set and both pointers; Free frees it. Size 0 gives a null pointer.
  virtual hipError_t MallocManaged(void** ptr, size_t size, unsigned flags) = 0;
  // Device or managed memory.
  virtual hipError_t Free(void* ptr) = 0;
  // Page-aligned, pinned host memory, accessible to the device.
  virtual hipError_t HostMalloc(void** ptr, size_t size, unsigned flags) = 0;
  virtual hipError_t HostFree(void* ptr) = 0;
  // hipHostRegister* flags; hipHostRegisterReadOnly lets read-only mappings (e.g. a file) be
  // pinned.
  virtual hipError_t HostRegister(void* ptr, size_t size, unsigned flags) = 0;
  virtual hipError_t HostUnregister(void* ptr) = 0;
  // HostRegister from a context of the runtime's own, so that a pin in progress does not hold up
  // the copies other threads queue meanwhile: on CUDA, cuMemHostRegister holds its context's lock
  // for the whole pin, and a copy queued in that context waited 30-45 ms behind a stream of 64
  // MiB pins (H200, bench/probes/pin-lock-probe; from a second context the copies ran at the link
  // while the pins went on). The memory is usable by every context, like HostRegister's. Pins
  // made this way are released with HostUnregisterAside. Default: HostRegister / HostUnregister.
  virtual hipError_t HostRegisterAside(void* ptr, size_t size, unsigned flags) {
    return HostRegister(ptr, size, flags);
  }
  virtual hipError_t HostUnregisterAside(void* ptr) { return HostUnregister(ptr); }
  // Unknown host pointers succeed with type hipMemoryTypeUnregistered; a null pointer is
  // hipErrorInvalidValue.
  virtual hipError_t PointerGetInfo(const void* ptr, PointerInfo* info) = 0;

  // Copies and fills. The synchronous forms are ordered with the default stream, as in HIP.
  virtual hipError_t Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) = 0;
  // MemcpyAsync from ordinary (pageable) host memory takes the bytes before it returns, so the
  // source may be reused at once; the stream copies them in its order. (CUDA's driver copies
  // them into pinned memory of its own; it documents that it may first wait for the stream,
  // which the H200's does not for small copies: docs/async.md, "Small reads at submission".)
  virtual hipError_t MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                                 Stream stream) = 0;
  // Queues `count` copies of one kind on the stream: in stream order as a whole, in no order
  // among themselves (no copy may read or write another's destination). Host memory in the
  // copies must be pinned (HostMalloc, HostRegister): a runtime may have the device read or
  // write it directly. Returns hipSuccess when every copy was queued; otherwise the first error,
  // and errors[i] (when errors is not null) says whether copy i was queued. Few driver calls where
  // the runtime can (CUDA: gather kernels, cuMemcpyBatchAsync), which many threads queueing small
  // copies need: each cuMemcpyAsync takes a context-wide lock. This default queues them one by
  // one.
  virtual hipError_t MemcpyBatchAsync(const CopyOp* copies, size_t count, hipMemcpyKind kind,
                                      Stream stream, hipError_t* errors) {
    hipError_t first = hipSuccess;
    for (size_t i = 0; i < count; ++i) {
      const hipError_t e = MemcpyAsync(copies[i].dst, copies[i].src, copies[i].size, kind, stream);
      if (errors != nullptr) errors[i] = e;
      if (first == hipSuccess) first = e;
    }
    return first;
  }
  // Whether CopyTableAsync works for streams of the device. May load code onto the device: ask
  // before streams can be waiting on the caller.
  virtual bool SupportsCopyTable(int device) {
    (void)device;
    return false;
  }
  // Queues the copies *table holds when the stream gets there, not when it is queued, if the
  // table's `token` is `token` then (nothing otherwise): the table lies in host memory from
  // HostMalloc, and whoever fills it does so before the stream reaches the call (typically before
  // releasing a StreamWaitValue32 queued ahead of it), so the stream copies what was decided while
  // it waited: how many copies, and their sizes. Addresses must be ones the device can use
  // (device memory, pinned host memory); the table must stay untouched from the time the stream
  // may reach the call until it has passed it. hipErrorNotSupported where the runtime cannot.
  virtual hipError_t CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) {
    (void)table;
    (void)token;
    (void)stream;
    return hipErrorNotSupported;
  }
  // One launch for tokens [first, last] of an operation, where CopyTableAsync takes one launch
  // each (a launch that copies nothing still cost a stream ~100 us on the H100:
  // bench/results/h100-2026-12-05-b). `tables` is a stream's two tables (token t reads
  // tables[t % 2]); the stream must have passed `*ready >= first` before the call. When the
  // stream gets there: if tables[first % 2] is filled for `first` and says `last`, its copies
  // are made (as CopyTableAsync's) and nothing more; otherwise, for each token t in turn, it
  // waits until *ready >= t (wrapping compare), makes table t % 2's copies if it is filled for
  // t, and stores *copied = t (release) - one token at a time and slowly (one block of threads
  // on a GPU), the way of an operation whose later chunks are staged, which should be rare.
  // `ready` and `copied` are words as StreamWaitValue32 takes. `mirror`, where not null: two
  // tables of device memory of the stream's device, into whose [first % 2] the stream copies
  // tables[first % 2] (a DMA) before the launch, which then reads its first table there - a
  // launch reading its table from host memory over a link busy with copies cost its stream
  // 5-8% of a 4 MiB read on the H200 (bench/results/h200-2026-12-05-b); the later tokens' tables
  // are read from `tables`. A stream's calls may share one mirror (each writes its first token's
  // half after the launches before it on the stream). hipErrorNotSupported where the runtime
  // cannot: queue CopyTableAsync per token instead.
  virtual hipError_t CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                                       const uint32_t* ready, uint32_t* copied, CopyTable* mirror,
                                       Stream stream) {
    (void)tables;
    (void)first;
    (void)last;
    (void)ready;
    (void)copied;
    (void)mirror;
    (void)stream;
    return hipErrorNotSupported;
  }
  virtual hipError_t Memset(void* dst, int value, size_t size) = 0;
  virtual hipError_t MemsetAsync(void* dst, int value, size_t size, Stream stream) = 0;

  // Streams.
  virtual hipError_t StreamCreate(Stream* stream, unsigned flags) = 0;
  virtual hipError_t StreamDestroy(Stream stream) = 0;
  virtual hipError_t StreamSynchronize(Stream stream) = 0;
  // hipSuccess when all work is done, hipErrorNotReady otherwise.
  virtual hipError_t StreamQuery(Stream stream) = 0;
  virtual hipError_t StreamWaitEvent(Stream stream, Event event, unsigned flags) = 0;
  virtual hipError_t StreamGetDevice(Stream stream, int* device) = 0;
  // The stream's creation flags (hipStreamNonBlocking or 0). Runtimes that cannot say return
  // hipErrorNotSupported, and callers then take the stream for a blocking one.
  virtual hipError_t StreamGetFlags(Stream stream, unsigned* flags) {
    (void)stream;
    (void)flags;
    return hipErrorNotSupported;
  }
  // Whether work queued on the stream now would be recorded into a graph instead of running: a
  // capture begun on it (or on a stream it joined) and not yet ended, live or invalidated. Of
  // the legacy default stream CUDA may answer an error instead (hipErrorStreamCaptureUnsupported:
  // a blocking stream it would wait for is capturing). Asking never disturbs a capture.
  // Runtimes without graphs answer false.
  virtual hipError_t StreamIsCapturing(Stream stream, bool* capturing) {
    (void)stream;
    if (capturing == nullptr) return hipErrorInvalidValue;
    *capturing = false;
    return hipSuccess;
  }
  // Runs fn(user_data) on a runtime thread once earlier work on the stream is done; later work
  // waits for it to return. fn must not call into the runtime.
  virtual hipError_t LaunchHostFunc(Stream stream, HostFn fn, void* user_data) = 0;
  // Whether host functions of different streams run at the same time, each on a thread of its
  // stream's own, so that one may block (on file I/O, say) holding up only its stream and the
  // streams sharing its hardware queue: the CPU runtime's stream workers. CUDA may run every host
  // function of a process on one thread: false.
  virtual bool HostFunctionsRunPerStream() const { return false; }

  // Stream memory operations on host memory from HostMalloc: the stream stalls until
  // *addr >= value, compared cyclically ((int32_t)(*addr - value) >= 0, as CUDA's GEQ wait), or
  // stores value to *addr when it gets there.
  // SupportsStreamMemOps says whether the device can do them; without it, callers use host
  // functions instead.
  virtual bool SupportsStreamMemOps(int device) = 0;
  virtual hipError_t StreamWaitValue32(Stream stream, uint32_t* addr, uint32_t value) = 0;
  virtual hipError_t StreamWriteValue32(Stream stream, uint32_t* addr, uint32_t value) = 0;

  // Events.
  virtual hipError_t EventCreate(Event* event, unsigned flags) = 0;
  virtual hipError_t EventRecord(Event event, Stream stream) = 0;
  virtual hipError_t EventSynchronize(Event event) = 0;
  virtual hipError_t EventQuery(Event event) = 0;
  virtual hipError_t EventElapsedTime(float* ms, Event start, Event stop) = 0;
  virtual hipError_t EventDestroy(Event event) = 0;
};

}  // namespace hipfile::runtime
