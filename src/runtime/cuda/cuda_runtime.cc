// SPDX-License-Identifier: MIT
#include "runtime/cuda/cuda_runtime.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/cuda/cuda_attributes.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_errors.h"
#include "runtime/cuda/gather_kernel.h"
#include "runtime/device_attributes.h"
#include "util/capture_mode.h"
#include "util/log.h"
#include "util/mutex.h"

namespace hipfile::runtime {
namespace {

using cu::CUcontext;
using cu::CUDA_SUCCESS;
using cu::CUdevice;
using cu::CUdeviceptr;
using cu::CUevent;
using cu::CUresult;
using cu::CUstream;

// The device SetDevice chose on this thread; -1 until then. Shared by all CudaRuntime objects,
// as the current device is a property of the thread.
thread_local int t_device = -1;

CUdeviceptr Dptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
CUstream Cu(Stream s) { return reinterpret_cast<CUstream>(s); }
CUevent Cu(Event e) { return reinterpret_cast<CUevent>(e); }

bool ValidKind(hipMemcpyKind kind) {
  return kind >= hipMemcpyHostToHost && kind <= hipMemcpyDefault;
}

class CudaRuntime final : public GpuRuntime {
 public:
  CudaRuntime(const CudaDriver& driver, std::vector<CUdevice> devices,
              const CudaRuntimeOptions& options)
      : d_(driver),
        devices_(std::move(devices)),
        contexts_(new std::atomic<CUcontext>[devices_.size()]),
        mem_ops_(new std::atomic<int>[devices_.size()]),
        options_(options),
        kernel_state_(new std::atomic<int>[devices_.size()]),
        kernels_(new Kernels[devices_.size()]) {
    for (size_t i = 0; i < devices_.size(); ++i) {
      contexts_[i].store(nullptr, std::memory_order_relaxed);
      mem_ops_[i].store(-1, std::memory_order_relaxed);
      kernel_state_[i].store(-1, std::memory_order_relaxed);
    }
  }

  // Frees the probes' words, unloads the gather kernels and balances the retains; a context
  // others still hold stays alive.
  ~CudaRuntime() override {
    if (!probe_words_.empty() || !modules_.empty()) {
      CUcontext saved = nullptr;
      d_.cuCtxGetCurrent(&saved);
      for (const auto& [device, word] : probe_words_) {
        d_.cuCtxSetCurrent(contexts_[device].load());
        d_.cuMemFreeHost(word);
      }
      for (const auto& [device, module] : modules_) {
        d_.cuCtxSetCurrent(contexts_[device].load());
        d_.cuModuleUnload(module);
      }
      d_.cuCtxSetCurrent(saved);
    }
    {
      MutexLock lock(aside_mutex_);
      DestroyAsideLocked();  // and with it any pin still made through it
    }
    for (size_t i = 0; i < devices_.size(); ++i) {
      if (contexts_[i].load() != nullptr) d_.cuDevicePrimaryCtxRelease(devices_[i]);
    }
  }

  const char* Name() const override { return "cuda"; }
  bool DeviceMemoryIsHostMemory() const override { return false; }
  bool HostReadsCrossALink() const override { return true; }

  hipError_t GetDeviceCount(int* count) override {
    if (count == nullptr) return hipErrorInvalidValue;
    *count = DeviceCount();
    return hipSuccess;
  }

  hipError_t SetDevice(int device) override {
    if (device < 0 || device >= DeviceCount()) return hipErrorInvalidDevice;
    const hipError_t err = MakeCurrent(device);
    if (err == hipSuccess) t_device = device;
    return err;
  }

  hipError_t GetDevice(int* device) override {
    if (device == nullptr) return hipErrorInvalidValue;
    *device = CurrentDevice();
    return hipSuccess;
  }

  hipError_t DeviceSynchronize() override {
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuCtxSynchronize());
  }

  hipError_t MemGetInfo(size_t* free_bytes, size_t* total_bytes) override {
    if (free_bytes == nullptr || total_bytes == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemGetInfo(free_bytes, total_bytes));
  }

  hipError_t GetDeviceUuid(int device, char uuid[16]) override {
    if (device < 0 || device >= DeviceCount()) return hipErrorInvalidDevice;
    if (uuid == nullptr) return hipErrorInvalidValue;
    cu::CUuuid id{};
    if (const CUresult r = d_.cuDeviceGetUuid(&id, devices_[device]); r != CUDA_SUCCESS) {
      return Map(r);
    }
    std::memcpy(uuid, id.bytes, sizeof(id.bytes));
    return hipSuccess;
  }

  hipError_t GetDeviceName(int device, char* name, size_t size) override {
    if (device < 0 || device >= DeviceCount()) return hipErrorInvalidDevice;
    if (name == nullptr || size == 0) return hipErrorInvalidValue;
    const int length = static_cast<int>(std::min<size_t>(size, INT_MAX));
    if (const CUresult r = d_.cuDeviceGetName(name, length, devices_[device]); r != CUDA_SUCCESS) {
      return Map(r);
    }
    name[size - 1] = '\0';  // a name as long as the buffer is cut, not left unterminated
    return hipSuccess;
  }

  hipError_t GetDeviceTotalMem(int device, size_t* bytes) override {
    if (device < 0 || device >= DeviceCount()) return hipErrorInvalidDevice;
    if (bytes == nullptr) return hipErrorInvalidValue;
    return Map(d_.cuDeviceTotalMem(bytes, devices_[device]));
  }

  // Device queries need no context: cuInit is enough.
  hipError_t GetDeviceAttribute(int device, hipDeviceAttribute_t attribute, int* value) override {
    if (device < 0 || device >= DeviceCount()) return hipErrorInvalidDevice;
    if (value == nullptr || !SupportedDeviceAttribute(attribute)) return hipErrorInvalidValue;
    if (attribute == hipDeviceAttributeTotalGlobalMem) {
      size_t bytes = 0;
      if (const hipError_t err = GetDeviceTotalMem(device, &bytes); err != hipSuccess) return err;
      *value = static_cast<int>(std::min<size_t>(bytes, INT_MAX));
      return hipSuccess;
    }
    const int cu_attribute = CudaDeviceAttributeOf(attribute);
    if (cu_attribute < 0) return hipErrorInvalidValue;
    return Map(d_.cuDeviceGetAttribute(value, cu_attribute, devices_[device]));
  }

  hipError_t DriverGetVersion(int* version) override {
    if (version == nullptr) return hipErrorInvalidValue;
    return Map(d_.cuDriverGetVersion(version));
  }

  hipError_t DeviceReset() override;

  hipError_t Malloc(void** ptr, size_t size) override {
    if (ptr == nullptr) return hipErrorInvalidValue;
    *ptr = nullptr;
    if (size == 0) return hipSuccess;  // as hipMalloc: a null pointer, no error
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    CUdeviceptr dptr = 0;
    if (const CUresult r = d_.cuMemAlloc(&dptr, size); r != CUDA_SUCCESS) return Map(r);
    *ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(dptr));
    return hipSuccess;
  }

  hipError_t MallocManaged(void** ptr, size_t size, unsigned flags) override {
    if (ptr == nullptr) return hipErrorInvalidValue;
    *ptr = nullptr;
    static_assert(hipMemAttachGlobal == cu::CU_MEM_ATTACH_GLOBAL &&
                  hipMemAttachHost == cu::CU_MEM_ATTACH_HOST);
    if (flags != hipMemAttachGlobal && flags != hipMemAttachHost) return hipErrorInvalidValue;
    if (size == 0) return hipSuccess;  // as hipMalloc; cuMemAllocManaged would refuse it
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    CUdeviceptr dptr = 0;
    if (const CUresult r = d_.cuMemAllocManaged(&dptr, size, flags); r != CUDA_SUCCESS) {
      return Map(r);
    }
    *ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(dptr));
    return hipSuccess;
  }

  // cuMemFree frees managed memory too.
  hipError_t Free(void* ptr) override {
    if (ptr == nullptr) return hipSuccess;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemFree(Dptr(ptr)));
  }

  // Always portable and mapped, as HIP's pinned memory is usable from every device.
  hipError_t HostMalloc(void** ptr, size_t size, unsigned flags) override {
    if (ptr == nullptr) return hipErrorInvalidValue;
    *ptr = nullptr;
    constexpr unsigned kKnown =
        hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined;
    if ((flags & ~kKnown) != 0) return hipErrorInvalidValue;
    if (size == 0) return hipSuccess;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    unsigned cu_flags = cu::CU_MEMHOSTALLOC_PORTABLE | cu::CU_MEMHOSTALLOC_DEVICEMAP;
    if (flags & hipHostMallocWriteCombined) cu_flags |= cu::CU_MEMHOSTALLOC_WRITECOMBINED;
    return Map(d_.cuMemHostAlloc(ptr, size, cu_flags));
  }

  hipError_t HostFree(void* ptr) override {
    if (ptr == nullptr) return hipSuccess;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemFreeHost(ptr));
  }

  // Always portable and mapped, as with HostMalloc; IoMemory and ReadOnly pass through.
  hipError_t HostRegister(void* ptr, size_t size, unsigned flags) override {
    if (ptr == nullptr || size == 0) return hipErrorInvalidValue;
    constexpr unsigned kKnown = hipHostRegisterPortable | hipHostRegisterMapped |
                                hipHostRegisterIoMemory | hipHostRegisterReadOnly;
    if ((flags & ~kKnown) != 0) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    unsigned cu_flags = cu::CU_MEMHOSTREGISTER_PORTABLE | cu::CU_MEMHOSTREGISTER_DEVICEMAP;
    if (flags & hipHostRegisterIoMemory) cu_flags |= cu::CU_MEMHOSTREGISTER_IOMEMORY;
    if (flags & hipHostRegisterReadOnly) cu_flags |= cu::CU_MEMHOSTREGISTER_READ_ONLY;
    return Map(d_.cuMemHostRegister(ptr, size, cu_flags));
  }

  hipError_t HostUnregister(void* ptr) override {
    if (ptr == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemHostUnregister(ptr));
  }

  // From a context of the runtime's own (GpuRuntime::HostRegisterAside), made at the first such
  // pin on the device current then, one pin at a time (pins from several threads at once ran
  // slower in total on the H200), and destroyed when the last memory pinned through it is
  // released: a context holds about half a GiB of device memory. Where no context can be made
  // (the driver lacks cuCtxCreate_v2, or it fails), pins are made as HostRegister's.
  hipError_t HostRegisterAside(void* ptr, size_t size, unsigned flags) override;
  hipError_t HostUnregisterAside(void* ptr) override;

  hipError_t PointerGetInfo(const void* ptr, PointerInfo* info) override;

  hipError_t Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) override {
    if (!ValidKind(kind)) return hipErrorInvalidMemcpyDirection;
    if (size == 0) return hipSuccess;
    if (dst == nullptr || src == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    // cuMemcpy infers the direction from the addresses (unified addressing). It returns before
    // a device-to-device copy is done, so wait for the legacy stream it ran on.
    if (const CUresult r = d_.cuMemcpy(Dptr(dst), Dptr(src), size); r != CUDA_SUCCESS) {
      return Map(r);
    }
    return Map(d_.cuStreamSynchronize(nullptr));
  }

  hipError_t MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                         Stream stream) override {
    if (!ValidKind(kind)) return hipErrorInvalidMemcpyDirection;
    if (size == 0) return hipSuccess;
    if (dst == nullptr || src == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemcpyAsync(Dptr(dst), Dptr(src), size, Cu(stream)));
  }

  hipError_t MemcpyBatchAsync(const CopyOp* copies, size_t count, hipMemcpyKind kind, Stream stream,
                              hipError_t* errors) override;
  bool SupportsCopyTable(int device) override;
  hipError_t CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) override;
  hipError_t CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                               const uint32_t* ready, uint32_t* copied, CopyTable* mirror,
                               Stream stream) override;

  hipError_t Memset(void* dst, int value, size_t size) override {
    if (size == 0) return hipSuccess;
    if (dst == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    const CUresult r = d_.cuMemsetD8(Dptr(dst), static_cast<unsigned char>(value), size);
    if (r != CUDA_SUCCESS) return Map(r);
    return Map(d_.cuStreamSynchronize(nullptr));  // device memsets return before they are done
  }

  hipError_t MemsetAsync(void* dst, int value, size_t size, Stream stream) override {
    if (size == 0) return hipSuccess;
    if (dst == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuMemsetD8Async(Dptr(dst), static_cast<unsigned char>(value), size, Cu(stream)));
  }

  hipError_t StreamCreate(Stream* stream, unsigned flags) override {
    if (stream == nullptr) return hipErrorInvalidValue;
    if ((flags & ~unsigned{hipStreamNonBlocking}) != 0) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    CUstream s = nullptr;
    const unsigned cu_flags = (flags & hipStreamNonBlocking) ? cu::CU_STREAM_NON_BLOCKING : 0;
    if (const CUresult r = d_.cuStreamCreate(&s, cu_flags); r != CUDA_SUCCESS) return Map(r);
    *stream = reinterpret_cast<Stream>(s);
    return hipSuccess;
  }

  hipError_t StreamDestroy(Stream stream) override {
    // Neither default stream (legacy, per-thread) is destroyed.
    if (stream == nullptr || IsPerThreadStream(stream)) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamDestroy(Cu(stream)));
  }

  hipError_t StreamSynchronize(Stream stream) override {
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamSynchronize(Cu(stream)));
  }

  hipError_t StreamQuery(Stream stream) override {
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamQuery(Cu(stream)));
  }

  hipError_t StreamWaitEvent(Stream stream, Event event, unsigned flags) override {
    if (event == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamWaitEvent(Cu(stream), Cu(event), flags));
  }

  hipError_t StreamGetDevice(Stream stream, int* device) override;

  hipError_t StreamGetFlags(Stream stream, unsigned* flags) override {
    if (flags == nullptr) return hipErrorInvalidValue;
    if (d_.cuStreamGetFlags == nullptr) return hipErrorNotSupported;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamGetFlags(Cu(stream), flags));
  }

  // Drivers before CUDA 10 have no graphs, so nothing is captured there.
  hipError_t StreamIsCapturing(Stream stream, bool* capturing) override {
    if (capturing == nullptr) return hipErrorInvalidValue;
    if (d_.cuStreamIsCapturing == nullptr) {
      *capturing = false;
      return hipSuccess;
    }
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    int status = cu::CU_STREAM_CAPTURE_STATUS_NONE;
    if (const CUresult r = d_.cuStreamIsCapturing(Cu(stream), &status); r != CUDA_SUCCESS) {
      return Map(r);
    }
    *capturing = status != cu::CU_STREAM_CAPTURE_STATUS_NONE;
    return hipSuccess;
  }

  hipError_t LaunchHostFunc(Stream stream, HostFn fn, void* user_data) override {
    if (fn == nullptr) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuLaunchHostFunc(Cu(stream), fn, user_data));
  }

  bool SupportsStreamMemOps(int device) override;

  // CU_STREAM_WAIT_VALUE_GEQ compares cyclically ((int32_t)(*addr - value) >= 0), which equals
  // *addr >= value while the two are less than 2^31 apart.
  hipError_t StreamWaitValue32(Stream stream, uint32_t* addr, uint32_t value) override {
    if (addr == nullptr) return hipErrorInvalidValue;
    if (d_.cuStreamWaitValue32 == nullptr) return hipErrorNotSupported;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamWaitValue32(Cu(stream), DevicePointerOf(addr), value,
                                      cu::CU_STREAM_WAIT_VALUE_GEQ));
  }

  hipError_t StreamWriteValue32(Stream stream, uint32_t* addr, uint32_t value) override {
    if (addr == nullptr) return hipErrorInvalidValue;
    if (d_.cuStreamWriteValue32 == nullptr) return hipErrorNotSupported;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuStreamWriteValue32(Cu(stream), DevicePointerOf(addr), value,
                                       cu::CU_STREAM_WRITE_VALUE_DEFAULT));
  }

  hipError_t EventCreate(Event* event, unsigned flags) override {
    if (event == nullptr) return hipErrorInvalidValue;
    // hipEvent* flags carry CUDA's values.
    constexpr unsigned kKnown = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;
    static_assert(hipEventBlockingSync == cu::CU_EVENT_BLOCKING_SYNC &&
                  hipEventDisableTiming == cu::CU_EVENT_DISABLE_TIMING &&
                  hipEventInterprocess == cu::CU_EVENT_INTERPROCESS);
    if ((flags & ~kKnown) != 0) return hipErrorInvalidValue;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    CUevent e = nullptr;
    if (const CUresult r = d_.cuEventCreate(&e, flags); r != CUDA_SUCCESS) return Map(r);
    *event = reinterpret_cast<Event>(e);
    return hipSuccess;
  }

  hipError_t EventRecord(Event event, Stream stream) override {
    if (event == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuEventRecord(Cu(event), Cu(stream)));
  }

  hipError_t EventSynchronize(Event event) override {
    if (event == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuEventSynchronize(Cu(event)));
  }

  hipError_t EventQuery(Event event) override {
    if (event == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuEventQuery(Cu(event)));
  }

  hipError_t EventElapsedTime(float* ms, Event start, Event stop) override {
    if (ms == nullptr) return hipErrorInvalidValue;
    if (start == nullptr || stop == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuEventElapsedTime(ms, Cu(start), Cu(stop)));
  }

  hipError_t EventDestroy(Event event) override {
    if (event == nullptr) return hipErrorInvalidHandle;
    if (const hipError_t err = Enter(); err != hipSuccess) return err;
    return Map(d_.cuEventDestroy(Cu(event)));
  }

 private:
  static hipError_t Map(CUresult r) { return HipErrorFromCuda(r); }
  int DeviceCount() const { return static_cast<int>(devices_.size()); }

  // The ordinal of a CUdevice handle; -1 for none of ours.
  int OrdinalOf(CUdevice device) const {
    for (size_t i = 0; i < devices_.size(); ++i) {
      if (devices_[i] == device) return static_cast<int>(i);
    }
    return -1;
  }

  int CurrentDevice() const {
    if (t_device >= 0 && t_device < DeviceCount()) return t_device;
    CUcontext current = nullptr;
    CUdevice device = 0;
    if (d_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != nullptr &&
        d_.cuCtxGetDevice(&device) == CUDA_SUCCESS) {
      const int ordinal = OrdinalOf(device);
      if (ordinal >= 0) return ordinal;
    }
    return 0;
  }

  // The device's primary context, retained on first use.
  hipError_t PrimaryContext(int device, CUcontext* ctx) EXCLUDES(mutex_) {
    *ctx = contexts_[device].load(std::memory_order_acquire);
    if (*ctx != nullptr) return hipSuccess;
    MutexLock lock(mutex_);
    *ctx = contexts_[device].load(std::memory_order_relaxed);
    if (*ctx != nullptr) return hipSuccess;
    CUcontext retained = nullptr;
    const CUresult r = d_.cuDevicePrimaryCtxRetain(&retained, devices_[device]);
    if (r != CUDA_SUCCESS) return Map(r);
    contexts_[device].store(retained, std::memory_order_release);
    *ctx = retained;
    return hipSuccess;
  }

  // Makes the device's primary context current on this thread. The thread's current context is
  // read from the driver (a thread-local read there) rather than cached here, because other
  // CUDA code on the thread (cudaSetDevice, cuCtxSetCurrent) can change it between our calls.
  hipError_t MakeCurrent(int device) {
    CUcontext ctx = nullptr;
    if (const hipError_t err = PrimaryContext(device, &ctx); err != hipSuccess) return err;
    CUcontext current = nullptr;
    if (d_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) return hipSuccess;
    return Map(d_.cuCtxSetCurrent(ctx));
  }

  hipError_t Enter() { return MakeCurrent(CurrentDevice()); }

  // The device address of pinned host memory; other pointers (device memory) are used as they
  // are, which unified addressing allows. Where every device uses pinned host memory at its host
  // address (HostPointersEverywhere) that is the address itself, with no driver call: the
  // stream-ordered path makes several stream memory operations per operation, and the lookup is
  // a driver call each (the copy kernels rely on the same attributes: LoadKernels).
  CUdeviceptr DevicePointerOf(void* host) {
    if (HostPointersEverywhere()) return Dptr(host);
    CUdeviceptr dptr = 0;
    if (d_.cuMemHostGetDevicePointer(&dptr, host, 0) == CUDA_SUCCESS) return dptr;
    return Dptr(host);
  }
  // Every device has unified addressing (cuMemHostAlloc memory is at its host address on every
  // device) and can use host pointers for registered memory (cuMemHostRegister memory too).
  // Asked once; device attributes make no context.
  bool HostPointersEverywhere() {
    int known = host_pointers_.load(std::memory_order_acquire);
    if (known < 0) {
      known = d_.cuDeviceGetAttribute != nullptr ? 1 : 0;
      for (const CUdevice device : devices_) {
        for (const int attribute :
             {cu::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
              cu::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM}) {
          int value = 0;
          if (d_.cuDeviceGetAttribute(&value, attribute, device) != CUDA_SUCCESS || value == 0) {
            known = 0;
          }
        }
      }
      host_pointers_.store(known, std::memory_order_release);
    }
    return known == 1;
  }

  void DestroyAsideLocked() REQUIRES(aside_mutex_);
  bool ProbeStreamMemOps(int device) REQUIRES(mutex_);
  size_t GatherCopies(const CopyOp* copies, const std::vector<size_t>& todo, hipMemcpyKind kind,
                      Stream stream);
  size_t BatchCopies(const CopyOp* copies, const std::vector<size_t>& todo, size_t from,
                     Stream stream);
  struct Kernels {
    cu::CUfunction gather = nullptr;  // hipfile_gather_copy
    cu::CUfunction table = nullptr;   // hipfile_copy_table
    cu::CUfunction run = nullptr;     // hipfile_copy_table_run
  };
  // A copy the stream makes before a launch (CopyTableRunAsync's mirror): none where bytes is 0.
  struct CopyFirst {
    cu::CUdeviceptr dst = 0;
    cu::CUdeviceptr src = 0;
    size_t bytes = 0;
  };
  // Launches `kernel` of the stream's device (the caller may have another device current) on
  // `blocks` blocks with `params`, after `copy` on the stream, giving the thread its context
  // back: CopyTableAsync, CopyTableRunAsync.
  hipError_t LaunchTableKernel(cu::CUfunction Kernels::*kernel, void** params, Stream stream,
                               const CopyFirst& copy, unsigned blocks);
  const Kernels* KernelsFor(int device) EXCLUDES(mutex_);
  size_t LaunchGathers(const Kernels* kernels, const CopyOp* copies,
                       const std::vector<size_t>& todo, Stream stream);
  bool LoadKernels(int device, Kernels* out, std::string* why_not) REQUIRES(mutex_);

  const CudaDriver& d_;
  const std::vector<CUdevice> devices_;                 // by ordinal
  std::unique_ptr<std::atomic<CUcontext>[]> contexts_;  // retained primary contexts, or null
  std::unique_ptr<std::atomic<int>[]> mem_ops_;         // SupportsStreamMemOps: -1 unknown, 0, 1
  std::atomic<int> host_pointers_{-1};                  // HostPointersEverywhere: -1 unknown, 0, 1
  std::vector<std::pair<int, void*>> probe_words_ GUARDED_BY(mutex_);  // (device, pinned word)
  const CudaRuntimeOptions options_;
  std::unique_ptr<std::atomic<int>[]> kernel_state_;  // KernelsFor: -1 unknown, 0 none, 1 loaded
  std::unique_ptr<Kernels[]> kernels_;                // written before kernel_state_ says 1
  std::vector<std::pair<int, cu::CUmodule>> modules_ GUARDED_BY(mutex_);  // (device, module)
  Mutex mutex_;  // serializes retains, probes and kernel loads
  // HostRegisterAside's context and the memory pinned through it.
  Mutex aside_mutex_;  // held for each pin made aside: one at a time
  CUcontext aside_ GUARDED_BY(aside_mutex_) = nullptr;
  std::unordered_set<void*> aside_pins_ GUARDED_BY(aside_mutex_);
  bool aside_refused_ GUARDED_BY(aside_mutex_) = false;
};

hipError_t CudaRuntime::PointerGetInfo(const void* ptr, PointerInfo* info) {
  if (ptr == nullptr || info == nullptr) return hipErrorInvalidValue;
  if (const hipError_t err = Enter(); err != hipSuccess) return err;

  unsigned memory_type = 0;
  CUdeviceptr device_pointer = 0;
  void* host_pointer = nullptr;
  unsigned is_managed = 0;  // the driver writes a boolean into it
  int ordinal = -1;
  CUdeviceptr range_start = 0;
  size_t range_size = 0;
  cu::CUpointer_attribute attributes[] = {
      cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,    cu::CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
      cu::CU_POINTER_ATTRIBUTE_HOST_POINTER,   cu::CU_POINTER_ATTRIBUTE_IS_MANAGED,
      cu::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, cu::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
      cu::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
  };
  void* data[] = {&memory_type, &device_pointer, &host_pointer, &is_managed,
                  &ordinal,     &range_start,    &range_size};
  static_assert(sizeof(attributes) / sizeof(attributes[0]) == sizeof(data) / sizeof(data[0]));
  const CUresult r =
      d_.cuPointerGetAttributes(sizeof(data) / sizeof(data[0]), attributes, data, Dptr(ptr));
  // The driver reports memory it does not know with null attributes, or (some versions, some
  // attributes) with CUDA_ERROR_INVALID_VALUE.
  if (r == cu::CUDA_ERROR_INVALID_VALUE || (r == CUDA_SUCCESS && memory_type == 0)) {
    *info = PointerInfo{};
    return hipSuccess;
  }
  if (r != CUDA_SUCCESS) return Map(r);

  PointerInfo out;
  if (is_managed != 0) {
    out.type = hipMemoryTypeManaged;
  } else if (memory_type == cu::CU_MEMORYTYPE_DEVICE) {
    out.type = hipMemoryTypeDevice;
  } else if (memory_type == cu::CU_MEMORYTYPE_HOST) {
    out.type = hipMemoryTypeHost;
  } else if (memory_type == cu::CU_MEMORYTYPE_ARRAY) {
    out.type = hipMemoryTypeArray;
  } else {
    out.type = hipMemoryTypeUnified;
  }
  out.is_managed = is_managed != 0;
  out.device = ordinal;
  out.device_pointer = reinterpret_cast<void*>(static_cast<uintptr_t>(device_pointer));
  out.host_pointer = host_pointer;
  // For device memory cuMemGetAddressRange gives the mapped allocation, where the range
  // attributes can give a larger reservation (cuMemAddressReserve); for pinned host memory the
  // range attributes give the allocation or registration.
  CUdeviceptr base = 0;
  size_t size = 0;
  const bool use_attributes = out.type == hipMemoryTypeHost && range_size != 0;
  if (!use_attributes && d_.cuMemGetAddressRange(&base, &size, Dptr(ptr)) == CUDA_SUCCESS &&
      size != 0) {
    out.base = reinterpret_cast<void*>(static_cast<uintptr_t>(base));
    out.size = size;
  } else {
    out.base = reinterpret_cast<void*>(static_cast<uintptr_t>(range_start));
    out.size = range_size;
  }
  *info = out;
  return hipSuccess;
}

// The reset destroys the copy kernels and the probe's pinned word along with everything else in
// the context, so they are forgotten (the kernels load again on next use). Resetting does not
// release a primary context: our retain is balanced, and the next call retains it afresh
// (PrimaryContext), which initializes it again.
hipError_t CudaRuntime::DeviceReset() {
  const int device = CurrentDevice();
  if (const hipError_t err = Enter(); err != hipSuccess) return err;
  // Queued work finishes first. A failed wait (a sticky error in the context) does not stop the
  // reset: recovering from one is what resets are for.
  d_.cuCtxSynchronize();
  MutexLock lock(mutex_);
  const auto on_device = [device](const auto& entry) { return entry.first == device; };
  probe_words_.erase(std::remove_if(probe_words_.begin(), probe_words_.end(), on_device),
                     probe_words_.end());
  modules_.erase(std::remove_if(modules_.begin(), modules_.end(), on_device), modules_.end());
  kernels_[device] = Kernels{};
  kernel_state_[device].store(-1, std::memory_order_release);
  const CUresult r = d_.cuDevicePrimaryCtxReset(devices_[device]);
  const CUcontext ctx = contexts_[device].exchange(nullptr, std::memory_order_acq_rel);
  if (ctx != nullptr) {
    CUcontext current = nullptr;
    if (d_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) d_.cuCtxSetCurrent(nullptr);
    d_.cuDevicePrimaryCtxRelease(devices_[device]);
  }
  return Map(r);
}

hipError_t CudaRuntime::StreamGetDevice(Stream stream, int* device) {
  if (device == nullptr) return hipErrorInvalidValue;
  // Either default stream names the one of the calling thread's current device.
  if (stream == nullptr || IsPerThreadStream(stream)) {
    *device = CurrentDevice();
    return hipSuccess;
  }
  if (const hipError_t err = Enter(); err != hipSuccess) return err;
  CUdevice dev = 0;
  if (d_.cuStreamGetDevice != nullptr) {
    if (const CUresult r = d_.cuStreamGetDevice(Cu(stream), &dev); r != CUDA_SUCCESS) {
      return Map(r);
    }
  } else {
    // Older drivers: the device of the stream's context, asked with that context pushed.
    CUcontext ctx = nullptr;
    if (const CUresult r = d_.cuStreamGetCtx(Cu(stream), &ctx); r != CUDA_SUCCESS) return Map(r);
    if (const CUresult r = d_.cuCtxPushCurrent(ctx); r != CUDA_SUCCESS) return Map(r);
    const CUresult r = d_.cuCtxGetDevice(&dev);
    CUcontext popped = nullptr;
    d_.cuCtxPopCurrent(&popped);
    if (r != CUDA_SUCCESS) return Map(r);
  }
  const int ordinal = OrdinalOf(dev);
  if (ordinal < 0) return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

hipError_t CudaRuntime::HostRegisterAside(void* ptr, size_t size, unsigned flags) {
  if (ptr == nullptr || size == 0) return hipErrorInvalidValue;
  if ((flags & ~unsigned{hipHostRegisterReadOnly}) != 0) return HostRegister(ptr, size, flags);
  if (const hipError_t err = Enter(); err != hipSuccess) return err;
  MutexLock lock(aside_mutex_);
  if (aside_ == nullptr && !aside_refused_) {
    const bool can = d_.cuCtxCreate != nullptr && d_.cuCtxDestroy != nullptr;
    CUcontext ctx = nullptr;
    const CUresult made = can ? d_.cuCtxCreate(&ctx, 0, devices_[CurrentDevice()]) : CUDA_SUCCESS;
    if (can && made == CUDA_SUCCESS) {
      // cuCtxCreate makes the new context current; the caller's comes back.
      CUcontext popped = nullptr;
      d_.cuCtxPopCurrent(&popped);
      aside_ = ctx;
    } else {
      aside_refused_ = true;
      HF_LOG(kWarn,
             "no context of its own for pinning page-cache windows (%s): they are pinned in the "
             "primary context, where a pin holds up copies queued meanwhile",
             can ? CudaErrorString(d_, made).c_str() : "the driver lacks cuCtxCreate_v2");
    }
  }
  if (aside_ == nullptr) return HostRegister(ptr, size, flags);
  if (const CUresult r = d_.cuCtxPushCurrent(aside_); r != CUDA_SUCCESS) return Map(r);
  const unsigned cu_flags =
      cu::CU_MEMHOSTREGISTER_PORTABLE | cu::CU_MEMHOSTREGISTER_DEVICEMAP |
      ((flags & hipHostRegisterReadOnly) ? cu::CU_MEMHOSTREGISTER_READ_ONLY : 0u);
  const CUresult r = d_.cuMemHostRegister(ptr, size, cu_flags);
  CUcontext popped = nullptr;
  d_.cuCtxPopCurrent(&popped);
  if (r == CUDA_SUCCESS) aside_pins_.insert(ptr);
  if (r != CUDA_SUCCESS && aside_pins_.empty()) DestroyAsideLocked();
  return Map(r);
}

hipError_t CudaRuntime::HostUnregisterAside(void* ptr) {
  if (ptr == nullptr) return hipErrorInvalidValue;
  MutexLock lock(aside_mutex_);
  if (aside_pins_.count(ptr) == 0) return HostUnregister(ptr);  // pinned in the primary context
  if (const CUresult r = d_.cuCtxPushCurrent(aside_); r != CUDA_SUCCESS) return Map(r);
  const CUresult r = d_.cuMemHostUnregister(ptr);
  CUcontext popped = nullptr;
  d_.cuCtxPopCurrent(&popped);
  if (r != CUDA_SUCCESS) return Map(r);
  aside_pins_.erase(ptr);
  if (aside_pins_.empty()) DestroyAsideLocked();
  return hipSuccess;
}

void CudaRuntime::DestroyAsideLocked() {
  if (aside_ == nullptr) return;
  d_.cuCtxDestroy(aside_);
  aside_ = nullptr;
}

// Queues the copies that need queueing (not empty, not null) with as few driver calls as it can:
// gather kernels where every copy is small (GatherCopies), else one cuMemcpyBatchAsync
// (BatchCopies), else one cuMemcpyAsync each (GpuRuntime's loop). Each way either queues a copy or
// leaves it to the next, so no copy is queued twice: a refused call says nothing about which of
// its copies were queued, and queueing one again writes the same bytes twice.
hipError_t CudaRuntime::MemcpyBatchAsync(const CopyOp* copies, size_t count, hipMemcpyKind kind,
                                         Stream stream, hipError_t* errors) {
  if (!ValidKind(kind)) return GpuRuntime::MemcpyBatchAsync(copies, count, kind, stream, errors);
  std::vector<hipError_t> result(count, hipSuccess);
  std::vector<size_t> todo;
  todo.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (copies[i].size == 0) continue;
    if (copies[i].dst == nullptr || copies[i].src == nullptr) {
      result[i] = hipErrorInvalidValue;
      continue;
    }
    todo.push_back(i);
  }
  size_t queued = 0;  // todo[0, queued) are queued
  if (!todo.empty() && Enter() == hipSuccess) {
    queued = GatherCopies(copies, todo, kind, stream);
    if (queued < todo.size()) queued += BatchCopies(copies, todo, queued, stream);
  }
  for (size_t j = queued; j < todo.size(); ++j) {
    const CopyOp& c = copies[todo[j]];
    result[todo[j]] = MemcpyAsync(c.dst, c.src, c.size, kind, stream);
  }
  hipError_t first = hipSuccess;
  for (size_t i = 0; i < count; ++i) {
    if (errors != nullptr) errors[i] = result[i];
    if (first == hipSuccess) first = result[i];
  }
  return first;
}

// Kernels need addresses the device can use for both ends: device memory, and pinned host memory
// under unified addressing (the caller's contract: host memory of a batch is pinned). Host to host
// copies are left to the copy engines. Returns how many of todo were queued, a prefix: a refused
// launch queues nothing, and the copies from it on are left to the other ways.
size_t CudaRuntime::GatherCopies(const CopyOp* copies, const std::vector<size_t>& todo,
                                 hipMemcpyKind kind, Stream stream) {
  if (!options_.copy_kernel || kind == hipMemcpyHostToHost) return 0;
  for (const size_t i : todo) {
    if (copies[i].size > kGatherMaxCopyBytes) return 0;
  }
  // A kernel launches from its stream's context: the stream's device, which the calling thread
  // (an engine thread serving a buffer of another device) may not have current. The thread's
  // context is given back. With one device there is nothing to ask.
  const int current = CurrentDevice();
  int device = current;
  if (stream != nullptr && DeviceCount() > 1 &&
      (StreamGetDevice(stream, &device) != hipSuccess || device < 0)) {
    device = current;
  }
  CUcontext saved = nullptr;
  if (device != current) {
    d_.cuCtxGetCurrent(&saved);
    if (MakeCurrent(device) != hipSuccess) {
      d_.cuCtxSetCurrent(saved);
      return 0;
    }
  }
  const size_t queued = LaunchGathers(KernelsFor(device), copies, todo, stream);
  if (device != current) d_.cuCtxSetCurrent(saved);
  return queued;
}

// GatherCopies' launches, from the context current; how many of todo were queued (a prefix).
size_t CudaRuntime::LaunchGathers(const Kernels* kernels, const CopyOp* copies,
                                  const std::vector<size_t>& todo, Stream stream) {
  if (kernels == nullptr) return 0;
  const cu::CUfunction gather = kernels->gather;
  size_t queued = 0;
  CopyTable args;
  while (queued < todo.size()) {
    const size_t n = std::min(todo.size() - queued, CopyTable::kMaxCopies);
    args.count = n;
    for (size_t j = 0; j < n; ++j) {
      const CopyOp& c = copies[todo[queued + j]];
      args.copy[j] = {Dptr(c.dst), Dptr(c.src), c.size};
    }
    void* params[] = {&args};
    if (d_.cuLaunchKernel(gather, static_cast<unsigned>(n), 1, 1, kGatherThreadsPerBlock, 1, 1, 0,
                          Cu(stream), params, nullptr) != CUDA_SUCCESS) {
      break;
    }
    queued += n;
  }
  return queued;
}

// One cuMemcpyBatchAsync for todo[from, end), where the driver has one (CUDA 12.8+) and it pays:
// not for a single copy, not on the legacy default stream (which the call refuses). Returns how
// many were queued: all or none.
size_t CudaRuntime::BatchCopies(const CopyOp* copies, const std::vector<size_t>& todo, size_t from,
                                Stream stream) {
  const bool batch = d_.cuMemcpyBatchAsync != nullptr || d_.cuMemcpyBatchAsyncV1 != nullptr;
  const size_t n = todo.size() - from;
  if (!batch || stream == nullptr || n < 2) return 0;
  std::vector<CUdeviceptr> dsts, srcs;
  std::vector<size_t> sizes;
  dsts.reserve(n);
  srcs.reserve(n);
  sizes.reserve(n);
  for (size_t j = from; j < todo.size(); ++j) {
    dsts.push_back(Dptr(copies[todo[j]].dst));
    srcs.push_back(Dptr(copies[todo[j]].src));
    sizes.push_back(copies[todo[j]].size);
  }
  cu::CUmemcpyAttributes attrs{};
  attrs.srcAccessOrder = cu::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  size_t first_copy = 0;
  size_t failed = 0;
  const CUresult r = d_.cuMemcpyBatchAsync != nullptr
                         ? d_.cuMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), n, &attrs,
                                                 &first_copy, 1, Cu(stream))
                         : d_.cuMemcpyBatchAsyncV1(dsts.data(), srcs.data(), sizes.data(), n,
                                                   &attrs, &first_copy, 1, &failed, Cu(stream));
  return r == CUDA_SUCCESS ? n : 0;
}

// The copy kernels of the device's primary context, loaded on first use; null where they cannot
// be (no unified addressing, a driver that cannot compile the PTX), which is logged once and
// remembered. Called with that context current.
const CudaRuntime::Kernels* CudaRuntime::KernelsFor(int device) {
  if (device < 0 || device >= DeviceCount()) return nullptr;
  const int known = kernel_state_[device].load(std::memory_order_acquire);
  if (known >= 0) return known == 1 ? &kernels_[device] : nullptr;
  MutexLock lock(mutex_);
  if (kernel_state_[device].load(std::memory_order_relaxed) < 0) {
    std::string why_not;
    const bool loaded = LoadKernels(device, &kernels_[device], &why_not);
    if (!loaded) {
      HF_LOG(kInfo,
             "device %d: no copy kernels (%s); small copies are queued one by one and "
             "stream-ordered I/O copies on the engine's streams",
             device, why_not.c_str());
    }
    kernel_state_[device].store(loaded ? 1 : 0, std::memory_order_release);
  }
  return kernel_state_[device].load(std::memory_order_relaxed) == 1 ? &kernels_[device] : nullptr;
}

bool CudaRuntime::SupportsCopyTable(int device) {
  if (!options_.copy_kernel || device < 0 || device >= DeviceCount()) return false;
  CUcontext saved = nullptr;
  d_.cuCtxGetCurrent(&saved);
  const bool ok = MakeCurrent(device) == hipSuccess && KernelsFor(device) != nullptr;
  d_.cuCtxSetCurrent(saved);
  return ok;
}

hipError_t CudaRuntime::LaunchTableKernel(cu::CUfunction Kernels::*kernel, void** params,
                                          Stream stream, const CopyFirst& copy, unsigned blocks) {
  if (!options_.copy_kernel) return hipErrorNotSupported;
  if (const hipError_t err = Enter(); err != hipSuccess) return err;
  // The kernel must come from the stream's context, and the caller (a stream-ordered submission
  // on the user's thread) may have another device current: launch from the stream's device and
  // give the thread its context back.
  const int current = CurrentDevice();
  int device = current;
  if (stream != nullptr && (StreamGetDevice(stream, &device) != hipSuccess || device < 0)) {
    device = current;
  }
  CUcontext saved = nullptr;
  if (device != current) {
    d_.cuCtxGetCurrent(&saved);
    if (const hipError_t err = MakeCurrent(device); err != hipSuccess) return err;
  }
  const Kernels* kernels = KernelsFor(device);
  hipError_t result = hipErrorNotSupported;
  if (kernels != nullptr && kernels->*kernel != nullptr) {
    result = copy.bytes == 0 ? hipSuccess
                             : Map(d_.cuMemcpyAsync(copy.dst, copy.src, copy.bytes, Cu(stream)));
    if (result == hipSuccess) {
      result = Map(d_.cuLaunchKernel(kernels->*kernel, std::max(blocks, 1u), 1, 1,
                                     kGatherThreadsPerBlock, 1, 1, 0, Cu(stream), params, nullptr));
    }
  }
  if (device != current) d_.cuCtxSetCurrent(saved);
  return result;
}

hipError_t CudaRuntime::CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) {
  if (table == nullptr) return hipErrorInvalidValue;
  CUdeviceptr address = Dptr(table);
  unsigned int launch_token = token;
  void* params[] = {&address, &launch_token};
  return LaunchTableKernel(&Kernels::table, params, stream, CopyFirst{}, kCopyTableBlocks);
}

hipError_t CudaRuntime::CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                                          const uint32_t* ready, uint32_t* copied,
                                          CopyTable* mirror, Stream stream) {
  if (tables == nullptr || ready == nullptr || copied == nullptr ||
      static_cast<int32_t>(last - first) < 0) {
    return hipErrorInvalidValue;
  }
  const CopyTable* head = tables + first % 2;
  CopyFirst copy;
  if (mirror != nullptr) {  // the first table into device memory (a DMA), where the launch reads it
    copy = {Dptr(mirror + first % 2), Dptr(head), sizeof(CopyTable)};
    head = mirror + first % 2;
  }
  CUdeviceptr tables_at = Dptr(tables), head_at = Dptr(head), ready_at = Dptr(ready),
              copied_at = Dptr(copied);
  unsigned int run_first = first, run_last = last;
  void* params[] = {&tables_at, &head_at, &run_first, &run_last, &ready_at, &copied_at};
  // The grid copies the first table whole where the run ends with it; otherwise block 0 alone
  // takes the tokens and the others leave at once, whatever their number.
  return LaunchTableKernel(&Kernels::run, params, stream, copy, options_.run_blocks);
}

// Called with the device's primary context current.
bool CudaRuntime::LoadKernels(int device, Kernels* out, std::string* why_not) {
  if (d_.cuDeviceGetAttribute == nullptr || d_.cuModuleLoadData == nullptr ||
      d_.cuModuleGetFunction == nullptr || d_.cuLaunchKernel == nullptr) {
    *why_not = "the driver lacks the module API";
    return false;
  }
  for (const int attribute : {cu::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
                              cu::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM}) {
    int value = 0;
    if (d_.cuDeviceGetAttribute(&value, attribute, devices_[device]) != CUDA_SUCCESS ||
        value == 0) {
      *why_not =
          "the device cannot use host pointers (attribute " + std::to_string(attribute) + ")";
      return false;
    }
  }
  cu::CUmodule module = nullptr;
  if (const CUresult r = d_.cuModuleLoadData(&module, kGatherKernelPtx); r != CUDA_SUCCESS) {
    *why_not = "cuModuleLoadData: " + CudaErrorString(d_, r);
    return false;
  }
  modules_.emplace_back(device, module);
  for (const auto& [function, name] :
       {std::pair{&out->gather, kGatherKernelName}, std::pair{&out->table, kCopyTableKernelName},
        std::pair{&out->run, kCopyTableRunKernelName}}) {
    if (const CUresult r = d_.cuModuleGetFunction(function, module, name); r != CUDA_SUCCESS) {
      *why_not = std::string("cuModuleGetFunction(") + name + "): " + CudaErrorString(d_, r);
      return false;
    }
  }
  return true;
}

// Stream memory operations have no capability attribute since CUDA 12 (the _V1 attributes
// describe the old API, which needed a kernel-module option), so they are tried once per device:
// a stream writes a pinned word and waits on it.
bool CudaRuntime::SupportsStreamMemOps(int device) {
  if (device < 0 || device >= DeviceCount()) return false;
  if (d_.cuStreamWaitValue32 == nullptr || d_.cuStreamWriteValue32 == nullptr) return false;
  const int known = mem_ops_[device].load(std::memory_order_acquire);
  if (known >= 0) return known == 1;
  MutexLock lock(mutex_);
  if (mem_ops_[device].load(std::memory_order_relaxed) < 0) {
    mem_ops_[device].store(ProbeStreamMemOps(device) ? 1 : 0, std::memory_order_release);
  }
  return mem_ops_[device].load(std::memory_order_relaxed) == 1;
}

// Restores the thread's current context. The probe's pinned word is kept until the runtime is
// destroyed: cuMemFreeHost synchronizes the device, and the probe runs when the first
// stream-ordered operation arrives - possibly while the caller's streams are blocked behind host
// functions or long kernels, which would block that call (seen on the H200).
bool CudaRuntime::ProbeStreamMemOps(int device) {
  CUcontext saved = nullptr;
  d_.cuCtxGetCurrent(&saved);
  CUcontext ctx = contexts_[device].load(std::memory_order_relaxed);
  if (ctx == nullptr) {
    if (d_.cuDevicePrimaryCtxRetain(&ctx, devices_[device]) != CUDA_SUCCESS) return false;
    contexts_[device].store(ctx, std::memory_order_release);
  }
  if (d_.cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return false;

  bool ok = false;
  void* host = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr word = 0;
  if (d_.cuMemHostAlloc(&host, sizeof(uint32_t),
                        cu::CU_MEMHOSTALLOC_PORTABLE | cu::CU_MEMHOSTALLOC_DEVICEMAP) !=
      CUDA_SUCCESS) {
    host = nullptr;
  } else {
    probe_words_.emplace_back(device, host);
  }
  if (host != nullptr && d_.cuMemHostGetDevicePointer(&word, host, 0) == CUDA_SUCCESS &&
      d_.cuStreamCreate(&stream, cu::CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS) {
    auto* value = static_cast<volatile uint32_t*>(host);
    *value = 0;
    ok = d_.cuStreamWriteValue32(stream, word, 1, cu::CU_STREAM_WRITE_VALUE_DEFAULT) ==
             CUDA_SUCCESS &&
         d_.cuStreamWaitValue32(stream, word, 1, cu::CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS &&
         d_.cuStreamSynchronize(stream) == CUDA_SUCCESS && *value == 1;
  }
  if (stream != nullptr) d_.cuStreamDestroy(stream);  // does not wait for other streams
  d_.cuCtxSetCurrent(saved);
  return ok;
}

}  // namespace

std::unique_ptr<GpuRuntime> CreateCudaRuntimeWithDriver(const CudaDriver& driver,
                                                        std::string* why_not,
                                                        const CudaRuntimeOptions& options) {
  std::string ignored;
  if (why_not == nullptr) why_not = &ignored;
  if (const CUresult r = driver.cuInit(0); r != CUDA_SUCCESS) {
    *why_not = "cuInit failed: " + CudaErrorString(driver, r);
    return nullptr;
  }
  int count = 0;
  if (const CUresult r = driver.cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
    *why_not = "cuDeviceGetCount failed: " + CudaErrorString(driver, r);
    return nullptr;
  }
  if (count <= 0) {
    *why_not = "no CUDA devices";
    return nullptr;
  }
  std::vector<CUdevice> devices(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (const CUresult r = driver.cuDeviceGet(&devices[i], i); r != CUDA_SUCCESS) {
      *why_not = "cuDeviceGet(" + std::to_string(i) + ") failed: " + CudaErrorString(driver, r);
      return nullptr;
    }
  }
  return std::make_unique<CudaRuntime>(driver, std::move(devices), options);
}

std::unique_ptr<GpuRuntime> CreateCudaRuntime(std::string* why_not,
                                              const CudaRuntimeOptions& options) {
  const CudaDriver* driver = SharedCudaDriver(why_not);
  if (driver == nullptr) return nullptr;
  std::unique_ptr<GpuRuntime> runtime = CreateCudaRuntimeWithDriver(*driver, why_not, options);
  // From here the library's runtime calls are made in relaxed capture mode (util/capture_mode.h).
  if (runtime != nullptr) InstallCaptureModeExchange(driver->cuThreadExchangeStreamCaptureMode);
  return runtime;
}

}  // namespace hipfile::runtime
