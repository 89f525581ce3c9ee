// SPDX-License-Identifier: MIT
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

namespace hipfile::runtime {
namespace {

// Resolves symbols from one library and remembers the first required one that is missing.
class Resolver {
 public:
  explicit Resolver(void* library) : library_(library) {}

  template <class Fn>
  void Required(Fn* fn, const char* symbol) {
    *fn = reinterpret_cast<Fn>(dlsym(library_, symbol));
    if (*fn == nullptr && missing_ == nullptr) missing_ = symbol;
  }

  template <class Fn>
  void Optional(Fn* fn, const char* symbol) {
    *fn = reinterpret_cast<Fn>(dlsym(library_, symbol));
  }

  // The versioned symbol when the driver has it, else the older one.
  template <class Fn>
  void Preferred(Fn* fn, const char* symbol, const char* fallback) {
    Optional(fn, symbol);
    if (*fn == nullptr) Required(fn, fallback);
  }

  const char* missing() const { return missing_; }

 private:
  void* library_;
  const char* missing_ = nullptr;
};

// The symbol names are the ABI names <cuda.h> (CUDA 13.0) maps each API name to.
void ResolveAll(Resolver& r, CudaDriver* d) {
  r.Required(&d->cuInit, "cuInit");
  r.Required(&d->cuGetErrorName, "cuGetErrorName");
  r.Required(&d->cuDeviceGetCount, "cuDeviceGetCount");
  r.Required(&d->cuDeviceGet, "cuDeviceGet");
  r.Preferred(&d->cuDeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
  r.Required(&d->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  r.Required(&d->cuDeviceGetName, "cuDeviceGetName");
  r.Required(&d->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  r.Required(&d->cuDriverGetVersion, "cuDriverGetVersion");
  r.Required(&d->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  r.Required(&d->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  r.Required(&d->cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2");
  r.Required(&d->cuCtxSetCurrent, "cuCtxSetCurrent");
  r.Required(&d->cuCtxGetCurrent, "cuCtxGetCurrent");
  r.Required(&d->cuCtxGetDevice, "cuCtxGetDevice");
  r.Required(&d->cuCtxSynchronize, "cuCtxSynchronize");
  r.Required(&d->cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  r.Required(&d->cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  r.Optional(&d->cuCtxCreate, "cuCtxCreate_v2");
  r.Optional(&d->cuCtxDestroy, "cuCtxDestroy_v2");
  r.Required(&d->cuMemGetInfo, "cuMemGetInfo_v2");
  r.Required(&d->cuMemAlloc, "cuMemAlloc_v2");
  r.Required(&d->cuMemAllocManaged, "cuMemAllocManaged");
  r.Required(&d->cuMemFree, "cuMemFree_v2");
  r.Required(&d->cuMemHostAlloc, "cuMemHostAlloc");
  r.Required(&d->cuMemFreeHost, "cuMemFreeHost");
  r.Required(&d->cuMemHostRegister, "cuMemHostRegister_v2");
  r.Required(&d->cuMemHostUnregister, "cuMemHostUnregister");
  r.Required(&d->cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
  r.Required(&d->cuMemGetAddressRange, "cuMemGetAddressRange_v2");
  r.Required(&d->cuPointerGetAttributes, "cuPointerGetAttributes");
  r.Required(&d->cuMemcpy, "cuMemcpy");
  r.Required(&d->cuMemcpyAsync, "cuMemcpyAsync");
  r.Optional(&d->cuMemcpyBatchAsync, "cuMemcpyBatchAsync_v2");
  r.Optional(&d->cuMemcpyBatchAsyncV1, "cuMemcpyBatchAsync");
  r.Required(&d->cuMemsetD8, "cuMemsetD8_v2");
  r.Required(&d->cuMemsetD8Async, "cuMemsetD8Async");
  r.Required(&d->cuStreamCreate, "cuStreamCreate");
  r.Required(&d->cuStreamDestroy, "cuStreamDestroy_v2");
  r.Required(&d->cuStreamSynchronize, "cuStreamSynchronize");
  r.Required(&d->cuStreamQuery, "cuStreamQuery");
  r.Required(&d->cuStreamWaitEvent, "cuStreamWaitEvent");
  r.Required(&d->cuStreamGetCtx, "cuStreamGetCtx");
  r.Optional(&d->cuStreamGetDevice, "cuStreamGetDevice");
  r.Optional(&d->cuStreamGetFlags, "cuStreamGetFlags");
  r.Optional(&d->cuStreamIsCapturing, "cuStreamIsCapturing");
  r.Optional(&d->cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode");
  r.Required(&d->cuLaunchHostFunc, "cuLaunchHostFunc");
  r.Optional(&d->cuStreamWaitValue32, "cuStreamWaitValue32_v2");
  r.Optional(&d->cuStreamWriteValue32, "cuStreamWriteValue32_v2");
  r.Required(&d->cuModuleLoadData, "cuModuleLoadData");
  r.Required(&d->cuModuleUnload, "cuModuleUnload");
  r.Required(&d->cuModuleGetFunction, "cuModuleGetFunction");
  r.Required(&d->cuLaunchKernel, "cuLaunchKernel");
  r.Required(&d->cuEventCreate, "cuEventCreate");
  r.Required(&d->cuEventRecord, "cuEventRecord");
  r.Required(&d->cuEventSynchronize, "cuEventSynchronize");
  r.Required(&d->cuEventQuery, "cuEventQuery");
  r.Preferred(&d->cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  r.Required(&d->cuEventDestroy, "cuEventDestroy_v2");
}

}  // namespace

bool LoadCudaDriver(const char* library, CudaDriver* driver, std::string* why_not) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    *why_not = std::string(library) + " not found: " + (error ? error : "dlopen failed");
    return false;
  }
  CudaDriver loaded;
  Resolver resolver(handle);
  ResolveAll(resolver, &loaded);
  if (resolver.missing() != nullptr) {
    *why_not = std::string(library) + " lacks " + resolver.missing() + " (driver too old?)";
    dlclose(handle);
    return false;
  }
  *driver = loaded;
  return true;
}

const CudaDriver* SharedCudaDriver(std::string* why_not) {
  struct Loaded {
    CudaDriver driver;
    std::string why_not;
    bool ok = false;
  };
  // Leaked on purpose: threads may still call the driver during static destruction.
  static const Loaded* const loaded = [] {
    auto* l = new Loaded;
    l->ok = LoadCudaDriver("libcuda.so.1", &l->driver, &l->why_not);
    return l;
  }();
  if (!loaded->ok) {
    if (why_not) *why_not = loaded->why_not;
    return nullptr;
  }
  return &loaded->driver;
}

std::string CudaErrorString(const CudaDriver& driver, cu::CUresult result) {
  const char* name = nullptr;
  if (driver.cuGetErrorName != nullptr &&
      driver.cuGetErrorName(result, &name) == cu::CUDA_SUCCESS && name != nullptr) {
    return std::string(name) + " (" + std::to_string(result) + ")";
  }
  return "CUDA error " + std::to_string(result);
}

}  // namespace hipfile::runtime
