// SPDX-License-Identifier: MIT
// Our own declarations of the part of the CUDA driver API the CUDA runtime uses.
//
// The library never includes <cuda.h> or links libcuda: it loads libcuda.so.1 at run time
// (cuda_driver.h), so these types only have to match the driver's ABI on x86-64 / aarch64 Linux.
// Values are from the CUDA 13.0 toolkit's cuda.h (CUDA_VERSION 13000); all of them are
// unchanged since CUDA 11. The function-pointer types are named after the unversioned API name;
// the versioned symbol each one is loaded from is listed in cuda_driver.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hipfile::runtime::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2 on 64-bit hosts
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUhostFn = void (*)(void* user_data);
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
struct CUuuid {
  char bytes[16];
};

// CUresult values the runtime looks at (cudaError_enum).
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUpointer_attribute.
enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,        // unsigned int, a CUmemorytype
  CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,     // CUdeviceptr
  CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,       // void*
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,         // boolean
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,     // int
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,  // CUdeviceptr
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,        // size_t
};

// CUstreamCaptureStatus: what cuStreamIsCapturing says of a stream.
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;
constexpr int CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;
constexpr int CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2;

// CUmemorytype. Memory CUDA does not know reports 0.
constexpr unsigned CU_MEMORYTYPE_HOST = 0x01;
constexpr unsigned CU_MEMORYTYPE_DEVICE = 0x02;
constexpr unsigned CU_MEMORYTYPE_ARRAY = 0x03;
constexpr unsigned CU_MEMORYTYPE_UNIFIED = 0x04;

// cuMemHostAlloc flags.
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x02;
constexpr unsigned CU_MEMHOSTALLOC_WRITECOMBINED = 0x04;

// cuMemHostRegister flags.
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTREGISTER_DEVICEMAP = 0x02;
constexpr unsigned CU_MEMHOSTREGISTER_IOMEMORY = 0x04;
constexpr unsigned CU_MEMHOSTREGISTER_READ_ONLY = 0x08;

// CUdevice_attribute values the runtime asks for itself; cuda_attributes.cc has the ones that
// answer hipDeviceGetAttribute.
constexpr int CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41;
constexpr int CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91;

// CUmemAttach_flags (cuMemAllocManaged).
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;
constexpr unsigned CU_MEM_ATTACH_HOST = 0x2;

// CUstream_flags, CUevent_flags.
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_BLOCKING_SYNC = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_EVENT_INTERPROCESS = 0x4;

// CUstreamWaitValue_flags: GEQ waits until (int32_t)(*addr - value) >= 0. CUstreamWriteValue_flags.
constexpr unsigned CU_STREAM_WAIT_VALUE_GEQ = 0x0;
constexpr unsigned CU_STREAM_WRITE_VALUE_DEFAULT = 0x0;

using PFN_cuInit = CUresult (*)(unsigned flags);
using PFN_cuGetErrorName = CUresult (*)(CUresult error, const char** name);
using PFN_cuDeviceGetCount = CUresult (*)(int* count);
using PFN_cuDeviceGet = CUresult (*)(CUdevice* device, int ordinal);
using PFN_cuDeviceGetUuid = CUresult (*)(CUuuid* uuid, CUdevice device);
using PFN_cuDeviceGetAttribute = CUresult (*)(int* value, int attribute, CUdevice device);
using PFN_cuDeviceGetName = CUresult (*)(char* name, int length, CUdevice device);
using PFN_cuDeviceTotalMem = CUresult (*)(size_t* bytes, CUdevice device);
using PFN_cuDriverGetVersion = CUresult (*)(int* version);
using PFN_cuDevicePrimaryCtxReset = CUresult (*)(CUdevice device);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext* ctx, CUdevice device);
using PFN_cuDevicePrimaryCtxRelease = CUresult (*)(CUdevice device);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuCtxGetCurrent = CUresult (*)(CUcontext* ctx);
using PFN_cuCtxGetDevice = CUresult (*)(CUdevice* device);
using PFN_cuCtxSynchronize = CUresult (*)();
using PFN_cuCtxPushCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuCtxPopCurrent = CUresult (*)(CUcontext* ctx);
using PFN_cuCtxCreate = CUresult (*)(CUcontext* ctx, unsigned flags, CUdevice device);  // _v2
using PFN_cuCtxDestroy = CUresult (*)(CUcontext ctx);
using PFN_cuMemGetInfo = CUresult (*)(size_t* free_bytes, size_t* total_bytes);
using PFN_cuMemAlloc = CUresult (*)(CUdeviceptr* dptr, size_t size);
using PFN_cuMemAllocManaged = CUresult (*)(CUdeviceptr* dptr, size_t size, unsigned flags);
using PFN_cuMemFree = CUresult (*)(CUdeviceptr dptr);
using PFN_cuMemHostAlloc = CUresult (*)(void** ptr, size_t size, unsigned flags);
using PFN_cuMemFreeHost = CUresult (*)(void* ptr);
using PFN_cuMemHostRegister = CUresult (*)(void* ptr, size_t size, unsigned flags);
using PFN_cuMemHostUnregister = CUresult (*)(void* ptr);
using PFN_cuMemHostGetDevicePointer = CUresult (*)(CUdeviceptr* dptr, void* ptr, unsigned flags);
using PFN_cuMemGetAddressRange = CUresult (*)(CUdeviceptr* base, size_t* size, CUdeviceptr dptr);
using PFN_cuPointerGetAttributes = CUresult (*)(unsigned count, CUpointer_attribute* attributes,
                                                void** data, CUdeviceptr ptr);
using PFN_cuMemcpy = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, size_t size);
using PFN_cuMemcpyAsync = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, size_t size,
                                       CUstream stream);
// cuMemcpyBatchAsync's per-copy attributes (CUmemcpyAttributes_v1, CUDA 12.8+).
constexpr int CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1;  // CUmemcpySrcAccessOrder
struct CUmemLocation {
  int type;  // CUmemLocationType; 0 (invalid) where no hint is given
  int id;
};
struct CUmemcpyAttributes {
  int srcAccessOrder;  // CUmemcpySrcAccessOrder
  CUmemLocation srcLocHint;
  CUmemLocation dstLocHint;
  unsigned flags;  // CUmemcpyFlags
};
// cuMemcpyBatchAsync_v2 (CUDA 13); PFN_cuMemcpyBatchAsyncV1 is CUDA 12.8's, with failIdx.
using PFN_cuMemcpyBatchAsync = CUresult (*)(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes,
                                            size_t count, CUmemcpyAttributes* attrs,
                                            size_t* attrs_idxs, size_t num_attrs, CUstream stream);
using PFN_cuMemcpyBatchAsyncV1 = CUresult (*)(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes,
                                              size_t count, CUmemcpyAttributes* attrs,
                                              size_t* attrs_idxs, size_t num_attrs,
                                              size_t* fail_idx, CUstream stream);
using PFN_cuMemsetD8 = CUresult (*)(CUdeviceptr dst, unsigned char value, size_t count);
using PFN_cuMemsetD8Async = CUresult (*)(CUdeviceptr dst, unsigned char value, size_t count,
                                         CUstream stream);
using PFN_cuStreamCreate = CUresult (*)(CUstream* stream, unsigned flags);
using PFN_cuStreamDestroy = CUresult (*)(CUstream stream);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream stream);
using PFN_cuStreamQuery = CUresult (*)(CUstream stream);
using PFN_cuStreamWaitEvent = CUresult (*)(CUstream stream, CUevent event, unsigned flags);
using PFN_cuStreamGetCtx = CUresult (*)(CUstream stream, CUcontext* ctx);
using PFN_cuStreamGetDevice = CUresult (*)(CUstream stream, CUdevice* device);
using PFN_cuStreamGetFlags = CUresult (*)(CUstream stream, unsigned int* flags);
using PFN_cuStreamIsCapturing = CUresult (*)(CUstream stream, int* capture_status);
// `mode` is a CUstreamCaptureMode (an int): 0 global, 1 thread-local, 2 relaxed.
using PFN_cuThreadExchangeStreamCaptureMode = CUresult (*)(int* mode);
using PFN_cuLaunchHostFunc = CUresult (*)(CUstream stream, CUhostFn fn, void* user_data);
using PFN_cuStreamWaitValue32 = CUresult (*)(CUstream stream, CUdeviceptr addr, uint32_t value,
                                             unsigned flags);
using PFN_cuStreamWriteValue32 = CUresult (*)(CUstream stream, CUdeviceptr addr, uint32_t value,
                                              unsigned flags);
using PFN_cuModuleLoadData = CUresult (*)(CUmodule* module, const void* image);
using PFN_cuModuleUnload = CUresult (*)(CUmodule module);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction* function, CUmodule module,
                                             const char* name);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction function, unsigned grid_x, unsigned grid_y,
                                        unsigned grid_z, unsigned block_x, unsigned block_y,
                                        unsigned block_z, unsigned shared_bytes, CUstream stream,
                                        void** params, void** extra);
using PFN_cuEventCreate = CUresult (*)(CUevent* event, unsigned flags);
using PFN_cuEventRecord = CUresult (*)(CUevent event, CUstream stream);
using PFN_cuEventSynchronize = CUresult (*)(CUevent event);
using PFN_cuEventQuery = CUresult (*)(CUevent event);
using PFN_cuEventElapsedTime = CUresult (*)(float* ms, CUevent start, CUevent stop);
using PFN_cuEventDestroy = CUresult (*)(CUevent event);

}  // namespace hipfile::runtime::cu
