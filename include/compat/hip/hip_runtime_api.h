// SPDX-License-Identifier: MIT
/* hip/hip_runtime_api.h - the subset of the HIP runtime API that hipFile programs use.
 *
 * Installed only where no real HIP is present. On a machine with an NVIDIA GPU the calls run on
 * CUDA (a hipStream_t is the CUstream itself, so CUDA streams and allocations from other libraries
 * can be passed in); without a GPU they run on hipFile's CPU runtime, where device memory is host
 * memory and each stream is an in-order worker. HIP_RUNTIME_CHOICE: see docs/environment.md.
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

/* The legacy default stream (stream 0). */
#define hipStreamLegacy ((hipStream_t)0)

HIPFILE_HIP_API hipError_t hipGetDeviceCount(int *count);
HIPFILE_HIP_API hipError_t hipSetDevice(int device);
HIPFILE_HIP_API hipError_t hipGetDevice(int *device);
HIPFILE_HIP_API hipError_t hipDeviceSynchronize(void);
HIPFILE_HIP_API hipError_t hipMemGetInfo(size_t *free, size_t *total);

HIPFILE_HIP_API hipError_t hipMalloc(void **ptr, size_t size);
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
#endif

#endif /* HIPFILE_COMPAT_HIP_RUNTIME_API_H */
