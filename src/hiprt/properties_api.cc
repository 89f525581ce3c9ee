// SPDX-License-Identifier: MIT
// hipGetDeviceProperties: the name, UUID and total memory, and every field that one of the
// supported device attributes answers; the other fields are 0 (docs/hip-runtime-subset.md).
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <type_traits>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"
#include "runtime/gpu_runtime.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

namespace {

struct FieldOf {
  hipDeviceAttribute_t attribute;
  void (*set)(hipDeviceProp_t& prop, int value);
};

// Stores an attribute's int into a field of whatever integer type HIP gave it.
#define HIPFILE_FIELD(attribute, member)                                      \
  {                                                                           \
    attribute, [](hipDeviceProp_t& p, int v) {                                \
      p.member = static_cast<std::remove_reference_t<decltype(p.member)>>(v); \
    }                                                                         \
  }

const FieldOf kFields[] = {
    HIPFILE_FIELD(hipDeviceAttributeEccEnabled, ECCEnabled),
    HIPFILE_FIELD(hipDeviceAttributeAccessPolicyMaxWindowSize, accessPolicyMaxWindowSize),
    HIPFILE_FIELD(hipDeviceAttributeAsyncEngineCount, asyncEngineCount),
    HIPFILE_FIELD(hipDeviceAttributeCanMapHostMemory, canMapHostMemory),
    HIPFILE_FIELD(hipDeviceAttributeCanUseHostPointerForRegisteredMem,
                  canUseHostPointerForRegisteredMem),
    HIPFILE_FIELD(hipDeviceAttributeClockRate, clockRate),
    HIPFILE_FIELD(hipDeviceAttributeComputeMode, computeMode),
    HIPFILE_FIELD(hipDeviceAttributeComputePreemptionSupported, computePreemptionSupported),
    HIPFILE_FIELD(hipDeviceAttributeConcurrentKernels, concurrentKernels),
    HIPFILE_FIELD(hipDeviceAttributeConcurrentManagedAccess, concurrentManagedAccess),
    HIPFILE_FIELD(hipDeviceAttributeCooperativeLaunch, cooperativeLaunch),
    HIPFILE_FIELD(hipDeviceAttributeCooperativeMultiDeviceLaunch, cooperativeMultiDeviceLaunch),
    HIPFILE_FIELD(hipDeviceAttributeDeviceOverlap, deviceOverlap),
    HIPFILE_FIELD(hipDeviceAttributeDirectManagedMemAccessFromHost, directManagedMemAccessFromHost),
    HIPFILE_FIELD(hipDeviceAttributeGlobalL1CacheSupported, globalL1CacheSupported),
    HIPFILE_FIELD(hipDeviceAttributeHostNativeAtomicSupported, hostNativeAtomicSupported),
    HIPFILE_FIELD(hipDeviceAttributeIntegrated, integrated),
    HIPFILE_FIELD(hipDeviceAttributeIsMultiGpuBoard, isMultiGpuBoard),
    HIPFILE_FIELD(hipDeviceAttributeKernelExecTimeout, kernelExecTimeoutEnabled),
    HIPFILE_FIELD(hipDeviceAttributeL2CacheSize, l2CacheSize),
    HIPFILE_FIELD(hipDeviceAttributeLocalL1CacheSupported, localL1CacheSupported),
    HIPFILE_FIELD(hipDeviceAttributeComputeCapabilityMajor, major),
    HIPFILE_FIELD(hipDeviceAttributeManagedMemory, managedMemory),
    HIPFILE_FIELD(hipDeviceAttributeMaxBlocksPerMultiProcessor, maxBlocksPerMultiProcessor),
    HIPFILE_FIELD(hipDeviceAttributeMaxBlockDimX, maxThreadsDim[0]),
    HIPFILE_FIELD(hipDeviceAttributeMaxBlockDimY, maxThreadsDim[1]),
    HIPFILE_FIELD(hipDeviceAttributeMaxBlockDimZ, maxThreadsDim[2]),
    HIPFILE_FIELD(hipDeviceAttributeMaxGridDimX, maxGridSize[0]),
    HIPFILE_FIELD(hipDeviceAttributeMaxGridDimY, maxGridSize[1]),
    HIPFILE_FIELD(hipDeviceAttributeMaxGridDimZ, maxGridSize[2]),
    HIPFILE_FIELD(hipDeviceAttributeMaxThreadsPerBlock, maxThreadsPerBlock),
    HIPFILE_FIELD(hipDeviceAttributeMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
    HIPFILE_FIELD(hipDeviceAttributeMaxPitch, memPitch),
    HIPFILE_FIELD(hipDeviceAttributeMemoryBusWidth, memoryBusWidth),
    HIPFILE_FIELD(hipDeviceAttributeMemoryClockRate, memoryClockRate),
    HIPFILE_FIELD(hipDeviceAttributeComputeCapabilityMinor, minor),
    HIPFILE_FIELD(hipDeviceAttributeMultiGpuBoardGroupID, multiGpuBoardGroupID),
    HIPFILE_FIELD(hipDeviceAttributeMultiprocessorCount, multiProcessorCount),
    HIPFILE_FIELD(hipDeviceAttributePageableMemoryAccess, pageableMemoryAccess),
    HIPFILE_FIELD(hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
                  pageableMemoryAccessUsesHostPageTables),
    HIPFILE_FIELD(hipDeviceAttributePciBusId, pciBusID),
    HIPFILE_FIELD(hipDeviceAttributePciDeviceId, pciDeviceID),
    HIPFILE_FIELD(hipDeviceAttributePciDomainID, pciDomainID),
    HIPFILE_FIELD(hipDeviceAttributePersistingL2CacheMaxSize, persistingL2CacheMaxSize),
    HIPFILE_FIELD(hipDeviceAttributeMaxRegistersPerBlock, regsPerBlock),
    HIPFILE_FIELD(hipDeviceAttributeMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
    HIPFILE_FIELD(hipDeviceAttributeReservedSharedMemPerBlock, reservedSharedMemPerBlock),
    HIPFILE_FIELD(hipDeviceAttributeMaxSharedMemoryPerBlock, sharedMemPerBlock),
    HIPFILE_FIELD(hipDeviceAttributeSharedMemPerBlockOptin, sharedMemPerBlockOptin),
    HIPFILE_FIELD(hipDeviceAttributeSharedMemPerMultiprocessor, sharedMemPerMultiprocessor),
    HIPFILE_FIELD(hipDeviceAttributeSingleToDoublePrecisionPerfRatio,
                  singleToDoublePrecisionPerfRatio),
    HIPFILE_FIELD(hipDeviceAttributeStreamPrioritiesSupported, streamPrioritiesSupported),
    HIPFILE_FIELD(hipDeviceAttributeSurfaceAlignment, surfaceAlignment),
    HIPFILE_FIELD(hipDeviceAttributeTccDriver, tccDriver),
    HIPFILE_FIELD(hipDeviceAttributeTextureAlignment, textureAlignment),
    HIPFILE_FIELD(hipDeviceAttributeTexturePitchAlignment, texturePitchAlignment),
    HIPFILE_FIELD(hipDeviceAttributeTotalConstantMemory, totalConstMem),
    HIPFILE_FIELD(hipDeviceAttributeUnifiedAddressing, unifiedAddressing),
    HIPFILE_FIELD(hipDeviceAttributeWarpSize, warpSize),
    HIPFILE_FIELD(hipDeviceAttributeMemoryPoolsSupported, memoryPoolsSupported),
    HIPFILE_FIELD(hipDeviceAttributeHostRegisterSupported, hostRegisterSupported),
    HIPFILE_FIELD(hipDeviceAttributeMemoryPoolSupportedHandleTypes, memoryPoolSupportedHandleTypes),
};

#undef HIPFILE_FIELD

// *prop is written only when every query succeeded. An attribute the driver does not know
// (hipErrorInvalidValue: an older CUDA driver) leaves its field 0 rather than failing the call.
hipError_t Fill(hipfile::runtime::GpuRuntime& gpu, int device, hipDeviceProp_t* prop) {
  return hipfile::hiprt::Guard("Fill", [&]() -> hipError_t {
    hipDeviceProp_t p;
    std::memset(&p, 0, sizeof p);
    if (const hipError_t e = gpu.GetDeviceName(device, p.name, sizeof p.name); e != hipSuccess) {
      return e;
    }
    if (const hipError_t e = gpu.GetDeviceUuid(device, p.uuid.bytes); e != hipSuccess) return e;
    if (const hipError_t e = gpu.GetDeviceTotalMem(device, &p.totalGlobalMem); e != hipSuccess) {
      return e;
    }
    for (const FieldOf& field : kFields) {
      int value = 0;
      const hipError_t e = gpu.GetDeviceAttribute(device, field.attribute, &value);
      if (e == hipErrorInvalidValue) continue;
      if (e != hipSuccess) return e;
      field.set(p, value);
    }
    *prop = p;
    return hipSuccess;
  });
}

}  // namespace

extern "C" {

hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  return hipfile::hiprt::Guard("hipGetDeviceProperties", [&]() -> hipError_t {
    if (prop == nullptr) return Record(hipErrorInvalidValue);
    if (device < 0) return Record(hipErrorInvalidDevice);
    return Record(Fill(ProcessRuntime(), device, prop));
  });
}

}  // extern "C"
