// SPDX-License-Identifier: MIT
#include "runtime/cuda/cuda_errors.h"

namespace hipfile::runtime {

// CUresult numbers are from the CUDA 13.0 cuda.h (cudaError_enum).
hipError_t HipErrorFromCuda(cu::CUresult result) {
  switch (result) {
    case 0:
      return hipSuccess;
    case 1:
      return hipErrorInvalidValue;
    case 2:
      return hipErrorOutOfMemory;
    case 3:
      return hipErrorNotInitialized;
    case 4:
      return hipErrorDeinitialized;
    case 34:  // CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda, not a driver
    case 35:
    case 36:   // CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER
    case 803:  // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    case 804:  // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
      return hipErrorInsufficientDriver;
    case 46:  // CUDA_ERROR_DEVICE_UNAVAILABLE (exclusive-process device in use)
    case 100:
    case 802:  // CUDA_ERROR_SYSTEM_NOT_READY
      return hipErrorNoDevice;
    case 101:
      return hipErrorInvalidDevice;
    case 200:
      return hipErrorInvalidImage;
    case 201:
      return hipErrorInvalidContext;
    case 202:
      return hipErrorContextAlreadyCurrent;
    case 205:
    case 206:  // CUDA_ERROR_UNMAP_FAILED
      return hipErrorMapFailed;
    case 208:
      return hipErrorAlreadyMapped;
    case 216:
      return hipErrorContextAlreadyInUse;
    case 301:
      return hipErrorFileNotFound;
    case 303:
      return hipErrorSharedObjectInitFailed;
    case 304:
      return hipErrorOperatingSystem;
    case 400:
      return hipErrorInvalidHandle;
    case 401:
      return hipErrorIllegalState;
    case 500:
      return hipErrorNotFound;
    case 600:
      return hipErrorNotReady;
    case 700:
      return hipErrorIllegalAddress;
    case 701:
      return hipErrorLaunchOutOfResources;
    case 702:
      return hipErrorLaunchTimeOut;
    case 704:
      return hipErrorPeerAccessAlreadyEnabled;
    case 705:
      return hipErrorPeerAccessNotEnabled;
    case 708:
      return hipErrorSetOnActiveProcess;  // CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE
    case 709:
      return hipErrorContextIsDestroyed;
    case 710:
      return hipErrorAssert;
    case 712:
      return hipErrorHostMemoryAlreadyRegistered;
    case 713:
      return hipErrorHostMemoryNotRegistered;
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR .. CUDA_ERROR_INVALID_PC: a kernel faulted,
    case 715:  // which leaves the context unusable, as a failed launch does
    case 716:
    case 717:
    case 718:
    case 719:
      return hipErrorLaunchFailure;
    case 800:  // CUDA_ERROR_NOT_PERMITTED
    case 801:
      return hipErrorNotSupported;
    case 900:
    case 901:  // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED .. _WRONG_THREAD
    case 902:
    case 903:
    case 904:
    case 905:
    case 906:
    case 907:
    case 908:
      return hipErrorStreamCaptureUnsupported;
    default:
      return hipErrorUnknown;
  }
}

}  // namespace hipfile::runtime
