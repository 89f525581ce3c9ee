// SPDX-License-Identifier: MIT
/* hip/hip_runtime_api.h - the subset of the HIP runtime API that hipFile programs use.
 *
 * Installed only where no real HIP is present. On a machine with an NVIDIA GPU the calls run on
 * CUDA (a hipStream_t is the CUstream itself, so CUDA streams and allocations from other libraries
 * can be passed in); without a GPU they run on hipFile's CPU runtime, where device memory is host
 * memory and each stream is an in-order worker. HIPFILE_RUNTIME chooses: see docs/environment.md.
 *
 * Types and numeric values are HIP's. The implementation lives in libhipfile.
 */
#ifndef HIPFILE_COMPAT_HIP_RUNTIME_API_H
#define HIPFILE_COMPAT_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#define HIPFILE_COMPAT_HIP 1

#if defined(__GNUC__) || defined(__clang__)
#define HIPFILE_HIP_API __attribute__((visibility("default")))
#else
#define HIPFILE_HIP_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hipError_t {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInitializationError = 3,
    hipErrorDeinitialized = 4,
    hipErrorInvalidConfiguration = 9,
    hipErrorInvalidSymbol = 13,
    hipErrorInvalidDevicePointer = 17,
    hipErrorInvalidMemcpyDirection = 21,
    hipErrorInsufficientDriver = 35,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidImage = 200,
    hipErrorInvalidContext = 201,
    hipErrorContextAlreadyCurrent = 202,
    hipErrorMapFailed = 205,
    hipErrorAlreadyMapped = 208,
    hipErrorContextAlreadyInUse = 216,
    hipErrorFileNotFound = 301,
    hipErrorSharedObjectInitFailed = 303,
    hipErrorOperatingSystem = 304,
    hipErrorInvalidHandle = 400,
    hipErrorInvalidResourceHandle = 400,
    hipErrorIllegalState = 401,
    hipErrorNotFound = 500,
    hipErrorNotReady = 600,
    hipErrorIllegalAddress = 700,
    hipErrorLaunchOutOfResources = 701,
    hipErrorLaunchTimeOut = 702,
    hipErrorPeerAccessAlreadyEnabled = 704,
    hipErrorPeerAccessNotEnabled = 705,
    hipErrorSetOnActiveProcess = 708,
    hipErrorContextIsDestroyed = 709,
    hipErrorAssert = 710,
    hipErrorHostMemoryAlreadyRegistered = 712,
    hipErrorHostMemoryNotRegistered = 713,
    hipErrorLaunchFailure = 719,
    hipErrorNotSupported = 801,
    hipErrorStreamCaptureUnsupported = 900,
    hipErrorUnknown = 999,
    hipErrorRuntimeMemory = 1052,
    hipErrorRuntimeOther = 1053,
    hipErrorTbd
} hipError_t;

typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef int hipDevice_t;
typedef void (*hipHostFn_t)(void *userData);
/* A device address as the driver-style copies (hipMemcpyHtoD, ...) take it; a plain pointer. */
typedef void *hipDeviceptr_t;

typedef enum hipMemcpyKind {
    hipMemcpyHostToHost = 0,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipMemcpyDefault = 4
} hipMemcpyKind;

typedef enum hipMemoryType {
    hipMemoryTypeUnregistered = 0,
    hipMemoryTypeHost = 1,
    hipMemoryTypeDevice = 2,
    hipMemoryTypeManaged = 3,
    hipMemoryTypeArray = 10,
    hipMemoryTypeUnified = 11
} hipMemoryType;

typedef struct hipPointerAttribute_t {
    enum hipMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} hipPointerAttribute_t;

#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01

#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4

#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4

#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipHostRegisterIoMemory 0x4
#define hipHostRegisterReadOnly 0x08

/* hipMallocManaged: the memory may be used by any stream of any device (Global), or is meant for
 * the host until attached to a stream (Host). */
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02

/* hipDeviceGetAttribute. Numbered as in HIP 6; which of them the subset answers is listed in
 * docs/hip-runtime-subset.md (the others are hipErrorInvalidValue). */
typedef enum hipDeviceAttribute_t {
    hipDeviceAttributeCudaCompatibleBegin = 0,
    hipDeviceAttributeEccEnabled = hipDeviceAttributeCudaCompatibleBegin,
    hipDeviceAttributeAccessPolicyMaxWindowSize = 1,
    hipDeviceAttributeAsyncEngineCount = 2,
    hipDeviceAttributeCanMapHostMemory = 3,
    hipDeviceAttributeCanUseHostPointerForRegisteredMem = 4,
    hipDeviceAttributeClockRate = 5,
    hipDeviceAttributeComputeMode = 6,
    hipDeviceAttributeComputePreemptionSupported = 7,
    hipDeviceAttributeConcurrentKernels = 8,
    hipDeviceAttributeConcurrentManagedAccess = 9,
    hipDeviceAttributeCooperativeLaunch = 10,
    hipDeviceAttributeCooperativeMultiDeviceLaunch = 11,
    hipDeviceAttributeDeviceOverlap = 12,
    hipDeviceAttributeDirectManagedMemAccessFromHost = 13,
    hipDeviceAttributeGlobalL1CacheSupported = 14,
    hipDeviceAttributeHostNativeAtomicSupported = 15,
    hipDeviceAttributeIntegrated = 16,
    hipDeviceAttributeIsMultiGpuBoard = 17,
    hipDeviceAttributeKernelExecTimeout = 18,
    hipDeviceAttributeL2CacheSize = 19,
    hipDeviceAttributeLocalL1CacheSupported = 20,
    hipDeviceAttributeLuid = 21,
    hipDeviceAttributeLuidDeviceNodeMask = 22,
    hipDeviceAttributeComputeCapabilityMajor = 23,
    hipDeviceAttributeManagedMemory = 24,
    hipDeviceAttributeMaxBlocksPerMultiProcessor = 25,
    hipDeviceAttributeMaxBlockDimX = 26,
    hipDeviceAttributeMaxBlockDimY = 27,
    hipDeviceAttributeMaxBlockDimZ = 28,
    hipDeviceAttributeMaxGridDimX = 29,
    hipDeviceAttributeMaxGridDimY = 30,
    hipDeviceAttributeMaxGridDimZ = 31,
    hipDeviceAttributeMaxSurface1D = 32,
    hipDeviceAttributeMaxSurface1DLayered = 33,
    hipDeviceAttributeMaxSurface2D = 34,
    hipDeviceAttributeMaxSurface2DLayered = 35,
    hipDeviceAttributeMaxSurface3D = 36,
    hipDeviceAttributeMaxSurfaceCubemap = 37,
    hipDeviceAttributeMaxSurfaceCubemapLayered = 38,
    hipDeviceAttributeMaxTexture1DWidth = 39,
    hipDeviceAttributeMaxTexture1DLayered = 40,
    hipDeviceAttributeMaxTexture1DLinear = 41,
    hipDeviceAttributeMaxTexture1DMipmap = 42,
    hipDeviceAttributeMaxTexture2DWidth = 43,
    hipDeviceAttributeMaxTexture2DHeight = 44,
    hipDeviceAttributeMaxTexture2DGather = 45,
    hipDeviceAttributeMaxTexture2DLayered = 46,
    hipDeviceAttributeMaxTexture2DLinear = 47,
    hipDeviceAttributeMaxTexture2DMipmap = 48,
    hipDeviceAttributeMaxTexture3DWidth = 49,
    hipDeviceAttributeMaxTexture3DHeight = 50,
    hipDeviceAttributeMaxTexture3DDepth = 51,
    hipDeviceAttributeMaxTexture3DAlt = 52,
    hipDeviceAttributeMaxTextureCubemap = 53,
    hipDeviceAttributeMaxTextureCubemapLayered = 54,
    hipDeviceAttributeMaxThreadsDim = 55,
    hipDeviceAttributeMaxThreadsPerBlock = 56,
    hipDeviceAttributeMaxThreadsPerMultiProcessor = 57,
    hipDeviceAttributeMaxPitch = 58,
    hipDeviceAttributeMemoryBusWidth = 59,
    hipDeviceAttributeMemoryClockRate = 60,
    hipDeviceAttributeComputeCapabilityMinor = 61,
    hipDeviceAttributeMultiGpuBoardGroupID = 62,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributeUnused1 = 64,
    hipDeviceAttributePageableMemoryAccess = 65,
    hipDeviceAttributePageableMemoryAccessUsesHostPageTables = 66,
    hipDeviceAttributePciBusId = 67,
    hipDeviceAttributePciDeviceId = 68,
    hipDeviceAttributePciDomainID = 69,
    hipDeviceAttributePciDomainId = hipDeviceAttributePciDomainID,
    hipDeviceAttributePersistingL2CacheMaxSize = 70,
    hipDeviceAttributeMaxRegistersPerBlock = 71,
    hipDeviceAttributeMaxRegistersPerMultiprocessor = 72,
    hipDeviceAttributeReservedSharedMemPerBlock = 73,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
    hipDeviceAttributeSharedMemPerBlockOptin = 75,
    hipDeviceAttributeSharedMemPerMultiprocessor = 76,
    hipDeviceAttributeSingleToDoublePrecisionPerfRatio = 77,
    hipDeviceAttributeStreamPrioritiesSupported = 78,
    hipDeviceAttributeSurfaceAlignment = 79,
    hipDeviceAttributeTccDriver = 80,
    hipDeviceAttributeTextureAlignment = 81,
    hipDeviceAttributeTexturePitchAlignment = 82,
    hipDeviceAttributeTotalConstantMemory = 83,
    hipDeviceAttributeTotalGlobalMem = 84,
    hipDeviceAttributeUnifiedAddressing = 85,
    hipDeviceAttributeUnused2 = 86,
    hipDeviceAttributeWarpSize = 87,
    hipDeviceAttributeMemoryPoolsSupported = 88,
    hipDeviceAttributeVirtualMemoryManagementSupported = 89,
    hipDeviceAttributeHostRegisterSupported = 90,
    hipDeviceAttributeMemoryPoolSupportedHandleTypes = 91,
    hipDeviceAttributeCudaCompatibleEnd = 9999,
    hipDeviceAttributeAmdSpecificBegin = 10000,
    hipDeviceAttributeClockInstructionRate = hipDeviceAttributeAmdSpecificBegin,
    hipDeviceAttributeUnused3 = 10001,
    hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002,
    hipDeviceAttributeUnused4 = 10003,
    hipDeviceAttributeUnused5 = 10004,
    hipDeviceAttributeHdpMemFlushCntl = 10005,
    hipDeviceAttributeHdpRegFlushCntl = 10006,
    hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc = 10007,
    hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim = 10008,
    hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim = 10009,
    hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem = 10010,
    hipDeviceAttributeIsLargeBar = 10011,
    hipDeviceAttributeAsicRevision = 10012,
    hipDeviceAttributeCanUseStreamWaitValue = 10013,
    hipDeviceAttributeImageSupport = 10014,
    hipDeviceAttributePhysicalMultiProcessorCount = 10015,
    hipDeviceAttributeFineGrainSupport = 10016,
    hipDeviceAttributeWallClockRate = 10017,
    hipDeviceAttributeAmdSpecificEnd = 19999,
    hipDeviceAttributeVendorSpecificBegin = 20000
} hipDeviceAttribute_t;

typedef struct hipUUID_t {
    char bytes[16];
} hipUUID;

/* AMD's per-architecture feature bits; the subset leaves them all 0. */
typedef struct hipDeviceArch_t {
    unsigned hasGlobalInt32Atomics : 1;
    unsigned hasGlobalFloatAtomicExch : 1;
    unsigned hasSharedInt32Atomics : 1;
    unsigned hasSharedFloatAtomicExch : 1;
    unsigned hasFloatAtomicAdd : 1;
    unsigned hasGlobalInt64Atomics : 1;
    unsigned hasSharedInt64Atomics : 1;
    unsigned hasDoubles : 1;
    unsigned hasWarpVote : 1;
    unsigned hasWarpBallot : 1;
    unsigned hasWarpShuffle : 1;
    unsigned hasFunnelShift : 1;
    unsigned hasThreadFenceSystem : 1;
    unsigned hasSyncThreadsExt : 1;
    unsigned hasSurfaceFuncs : 1;
    unsigned has3dGrid : 1;
    unsigned hasDynamicParallelism : 1;
} hipDeviceArch_t;

/* hipGetDeviceProperties. HIP 6's fields, names, types and order (its hipDeviceProp_tR0600,
 * 1472 bytes). Which fields the subset fills, on which runtime, is listed in
 * docs/hip-runtime-subset.md; every other field is 0. */
typedef struct hipDeviceProp_t {
    char name[256];
    hipUUID uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture1DLinear;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseHipArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingHipArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int reserved[63];
    int hipReserved[32];
    char gcnArchName[256];
    size_t maxSharedMemoryPerMultiProcessor;
    int clockInstructionRate;
    hipDeviceArch_t arch;
    unsigned int *hdpMemFlushCntl;
    unsigned int *hdpRegFlushCntl;
    int cooperativeMultiDeviceUnmatchedFunc;
    int cooperativeMultiDeviceUnmatchedGridDim;
    int cooperativeMultiDeviceUnmatchedBlockDim;
    int cooperativeMultiDeviceUnmatchedSharedMem;
    int isLargeBar;
    int asicRevision;
} hipDeviceProp_t;

/* The legacy default stream (stream 0). */
#define hipStreamLegacy ((hipStream_t)0)
/* The calling thread's default stream of the current device (CUDA's CU_STREAM_PER_THREAD): a
   blocking stream, one per thread, that orders with the legacy default stream. */
#define hipStreamPerThread ((hipStream_t)2)

/* In C++ the flags of hipMallocManaged default to hipMemAttachGlobal, as in HIP. */
#ifdef __cplusplus
#define HIPFILE_HIP_DEFAULT(value) = value
#else
#define HIPFILE_HIP_DEFAULT(value)
#endif

HIPFILE_HIP_API hipError_t hipInit(unsigned int flags);
HIPFILE_HIP_API hipError_t hipDriverGetVersion(int *driverVersion);
HIPFILE_HIP_API hipError_t hipRuntimeGetVersion(int *runtimeVersion);
HIPFILE_HIP_API hipError_t hipGetDeviceCount(int *count);
HIPFILE_HIP_API hipError_t hipSetDevice(int device);
HIPFILE_HIP_API hipError_t hipGetDevice(int *device);
HIPFILE_HIP_API hipError_t hipDeviceSynchronize(void);
HIPFILE_HIP_API hipError_t hipDeviceReset(void);
HIPFILE_HIP_API hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId);
HIPFILE_HIP_API hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
HIPFILE_HIP_API hipError_t hipMemGetInfo(size_t *free, size_t *total);

HIPFILE_HIP_API hipError_t hipMalloc(void **ptr, size_t size);
HIPFILE_HIP_API hipError_t hipMallocManaged(
    void **dev_ptr, size_t size, unsigned int flags HIPFILE_HIP_DEFAULT(hipMemAttachGlobal));
HIPFILE_HIP_API hipError_t hipFree(void *ptr);
HIPFILE_HIP_API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
HIPFILE_HIP_API hipError_t hipHostFree(void *ptr);
HIPFILE_HIP_API hipError_t hipHostRegister(void *host_ptr, size_t size, unsigned int flags);
HIPFILE_HIP_API hipError_t hipHostUnregister(void *host_ptr);
HIPFILE_HIP_API hipError_t hipMemGetAddressRange(void **base, size_t *size, void *ptr);
HIPFILE_HIP_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes,
                                                   const void *ptr);

HIPFILE_HIP_API hipError_t hipMemcpy(void *dst, const void *src, size_t size, hipMemcpyKind kind);
HIPFILE_HIP_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t size,
                                          hipMemcpyKind kind, hipStream_t stream);
HIPFILE_HIP_API hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void *src, size_t sizeBytes);
HIPFILE_HIP_API hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes);
HIPFILE_HIP_API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes);
HIPFILE_HIP_API hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void *src, size_t sizeBytes,
                                              hipStream_t stream);
HIPFILE_HIP_API hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes,
                                              hipStream_t stream);
HIPFILE_HIP_API hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src,
                                              size_t sizeBytes, hipStream_t stream);
HIPFILE_HIP_API hipError_t hipMemset(void *dst, int value, size_t size);
HIPFILE_HIP_API hipError_t hipMemsetAsync(void *dst, int value, size_t size, hipStream_t stream);

HIPFILE_HIP_API hipError_t hipStreamCreate(hipStream_t *stream);
HIPFILE_HIP_API hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
HIPFILE_HIP_API hipError_t hipStreamDestroy(hipStream_t stream);
HIPFILE_HIP_API hipError_t hipStreamSynchronize(hipStream_t stream);
HIPFILE_HIP_API hipError_t hipStreamQuery(hipStream_t stream);
HIPFILE_HIP_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                                              unsigned int flags);
HIPFILE_HIP_API hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *user_data);

HIPFILE_HIP_API hipError_t hipEventCreate(hipEvent_t *event);
HIPFILE_HIP_API hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags);
HIPFILE_HIP_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
HIPFILE_HIP_API hipError_t hipEventSynchronize(hipEvent_t event);
HIPFILE_HIP_API hipError_t hipEventQuery(hipEvent_t event);
HIPFILE_HIP_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
HIPFILE_HIP_API hipError_t hipEventDestroy(hipEvent_t event);

HIPFILE_HIP_API const char *hipGetErrorString(hipError_t error);
HIPFILE_HIP_API const char *hipGetErrorName(hipError_t error);
HIPFILE_HIP_API hipError_t hipGetLastError(void);
HIPFILE_HIP_API hipError_t hipPeekAtLastError(void);

#ifdef __cplusplus
} /* extern "C" */

/* HIP's typed conveniences, so `T *p; hipMalloc(&p, n);` builds as it does with real HIP. */
template <class T>
static inline hipError_t hipMalloc(T **ptr, size_t size) {
    return hipMalloc(reinterpret_cast<void **>(ptr), size);
}
template <class T>
static inline hipError_t hipHostMalloc(T **ptr, size_t size,
                                       unsigned int flags = hipHostMallocDefault) {
    return hipHostMalloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
static inline hipError_t hipMallocManaged(T **ptr, size_t size,
                                          unsigned int flags = hipMemAttachGlobal) {
    return hipMallocManaged(reinterpret_cast<void **>(ptr), size, flags);
}
#endif

#endif /* HIPFILE_COMPAT_HIP_RUNTIME_API_H */
