// SPDX-License-Identifier: MIT
// The CUDA driver's entry points, resolved from libcuda.so.1 at run time.
//
// Each member is named after the unversioned API function and holds the versioned ABI symbol
// that <cuda.h> maps it to (cuMemAlloc -> cuMemAlloc_v2, ...); cuda_driver.cc lists them. Members
// marked optional may be null on older drivers; every other member is non-null in a loaded table.
#pragma once

#include <string>

#include "runtime/cuda/cuda_driver_api.h"

namespace hipfile::runtime {

struct CudaDriver {
  cu::PFN_cuInit cuInit = nullptr;
  cu::PFN_cuGetErrorName cuGetErrorName = nullptr;
  cu::PFN_cuDeviceGetCount cuDeviceGetCount = nullptr;
  cu::PFN_cuDeviceGet cuDeviceGet = nullptr;
  cu::PFN_cuDeviceGetUuid cuDeviceGetUuid = nullptr;  // _v2 where the driver has it
  cu::PFN_cuDeviceGetAttribute cuDeviceGetAttribute = nullptr;
  cu::PFN_cuDeviceGetName cuDeviceGetName = nullptr;
  cu::PFN_cuDeviceTotalMem cuDeviceTotalMem = nullptr;
  cu::PFN_cuDriverGetVersion cuDriverGetVersion = nullptr;
  cu::PFN_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  cu::PFN_cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease = nullptr;
  cu::PFN_cuDevicePrimaryCtxReset cuDevicePrimaryCtxReset = nullptr;
  cu::PFN_cuCtxSetCurrent cuCtxSetCurrent = nullptr;
  cu::PFN_cuCtxGetCurrent cuCtxGetCurrent = nullptr;
  cu::PFN_cuCtxGetDevice cuCtxGetDevice = nullptr;
  cu::PFN_cuCtxSynchronize cuCtxSynchronize = nullptr;
  cu::PFN_cuCtxPushCurrent cuCtxPushCurrent = nullptr;
  cu::PFN_cuCtxPopCurrent cuCtxPopCurrent = nullptr;
  cu::PFN_cuCtxCreate cuCtxCreate = nullptr;    // optional: HostRegisterAside's context
  cu::PFN_cuCtxDestroy cuCtxDestroy = nullptr;  // optional, with cuCtxCreate
  cu::PFN_cuMemGetInfo cuMemGetInfo = nullptr;
  cu::PFN_cuMemAlloc cuMemAlloc = nullptr;
  cu::PFN_cuMemAllocManaged cuMemAllocManaged = nullptr;
  cu::PFN_cuMemFree cuMemFree = nullptr;
  cu::PFN_cuMemHostAlloc cuMemHostAlloc = nullptr;
  cu::PFN_cuMemFreeHost cuMemFreeHost = nullptr;
  cu::PFN_cuMemHostRegister cuMemHostRegister = nullptr;
  cu::PFN_cuMemHostUnregister cuMemHostUnregister = nullptr;
  cu::PFN_cuMemHostGetDevicePointer cuMemHostGetDevicePointer = nullptr;
  cu::PFN_cuMemGetAddressRange cuMemGetAddressRange = nullptr;
  cu::PFN_cuPointerGetAttributes cuPointerGetAttributes = nullptr;
  cu::PFN_cuMemcpy cuMemcpy = nullptr;
  cu::PFN_cuMemcpyAsync cuMemcpyAsync = nullptr;
  cu::PFN_cuMemcpyBatchAsync cuMemcpyBatchAsync = nullptr;      // optional: CUDA 13+
  cu::PFN_cuMemcpyBatchAsyncV1 cuMemcpyBatchAsyncV1 = nullptr;  // optional: CUDA 12.8+
  cu::PFN_cuMemsetD8 cuMemsetD8 = nullptr;
  cu::PFN_cuMemsetD8Async cuMemsetD8Async = nullptr;
  cu::PFN_cuStreamCreate cuStreamCreate = nullptr;
  cu::PFN_cuStreamDestroy cuStreamDestroy = nullptr;
  cu::PFN_cuStreamSynchronize cuStreamSynchronize = nullptr;
  cu::PFN_cuStreamQuery cuStreamQuery = nullptr;
  cu::PFN_cuStreamWaitEvent cuStreamWaitEvent = nullptr;
  cu::PFN_cuStreamGetCtx cuStreamGetCtx = nullptr;
  cu::PFN_cuStreamGetDevice cuStreamGetDevice = nullptr;  // optional: CUDA 12.8+
  cu::PFN_cuStreamGetFlags cuStreamGetFlags = nullptr;
  cu::PFN_cuStreamIsCapturing cuStreamIsCapturing = nullptr;
  // CUDA 10.1+: util/capture_mode.h.
  cu::PFN_cuThreadExchangeStreamCaptureMode cuThreadExchangeStreamCaptureMode = nullptr;
  cu::PFN_cuLaunchHostFunc cuLaunchHostFunc = nullptr;
  cu::PFN_cuStreamWaitValue32 cuStreamWaitValue32 = nullptr;    // optional: CUDA 11.7+
  cu::PFN_cuStreamWriteValue32 cuStreamWriteValue32 = nullptr;  // optional: CUDA 11.7+
  cu::PFN_cuModuleLoadData cuModuleLoadData = nullptr;
  cu::PFN_cuModuleUnload cuModuleUnload = nullptr;
  cu::PFN_cuModuleGetFunction cuModuleGetFunction = nullptr;
  cu::PFN_cuLaunchKernel cuLaunchKernel = nullptr;
  cu::PFN_cuEventCreate cuEventCreate = nullptr;
  cu::PFN_cuEventRecord cuEventRecord = nullptr;
  cu::PFN_cuEventSynchronize cuEventSynchronize = nullptr;
  cu::PFN_cuEventQuery cuEventQuery = nullptr;
  cu::PFN_cuEventElapsedTime cuEventElapsedTime = nullptr;  // _v2 where the driver has it
  cu::PFN_cuEventDestroy cuEventDestroy = nullptr;
};

// Opens `library` (dlopen RTLD_NOW | RTLD_LOCAL) and resolves every entry point into *driver.
// On failure returns false with *why_not set ("libcuda.so.1 not found: <dlerror>",
// "libcuda.so.1 lacks cuMemAlloc_v2 (driver too old?)") and leaves nothing open. On success the
// library stays loaded for the life of the process.
bool LoadCudaDriver(const char* library, CudaDriver* driver, std::string* why_not);

// libcuda.so.1, loaded once per process; null (with *why_not set) when it cannot be. The table
// is never freed.
const CudaDriver* SharedCudaDriver(std::string* why_not);

// "CUDA_ERROR_NO_DEVICE (100)", or "CUDA error 100" when the driver cannot name it.
std::string CudaErrorString(const CudaDriver& driver, cu::CUresult result);

}  // namespace hipfile::runtime
