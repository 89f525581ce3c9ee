// SPDX-License-Identifier: MIT
#include "cufile/error_map.h"

#include "runtime/cuda/cuda_errors.h"

namespace hipfile::cufile {

namespace {
// The last op error both enums number alike.
constexpr int kLastShared = CU_FILE_ASYNC_NOT_SUPPORTED;
static_assert(static_cast<int>(hipFileAsyncNotSupported) == kLastShared);
static_assert(static_cast<int>(hipFileIOMaxError) == kLastShared + 1);
}  // namespace

CUfileOpError CuOpError(hipFileOpError_t e) {
  const int value = static_cast<int>(e);
  if (e == hipFileIOMaxError) return CU_FILE_IO_MAX_ERROR;
  if (value == 0 || (value > CUFILEOP_BASE_ERR && value <= kLastShared)) {
    return static_cast<CUfileOpError>(value);
  }
  return CU_FILE_INTERNAL_ERROR;  // not a hipFile value
}

hipFileOpError_t HipOpError(CUfileOpError e) {
  const int value = static_cast<int>(e);
  if (value == 0 || (value > CUFILEOP_BASE_ERR && value <= kLastShared)) {
    return static_cast<hipFileOpError_t>(value);
  }
  switch (e) {
    case CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR:
      return hipFileBatchSubmitFailed;
    case CU_FILE_INVALID_CONTEXT_ERROR:
      return hipFileHipContextMismatch;
    case CU_FILE_NVFS_INTERNAL_DRIVER_ERROR:
      return hipFileDriverError;
    case CU_FILE_BATCH_NOCOMPAT_ERROR:
      return hipFileIONotSupported;  // the compatibility path is off and no other can serve it
    case CU_FILE_IO_MAX_ERROR:
      return hipFileIOMaxError;
    default:  // the retryable internal batch errors, NOMEM, IO_ERROR, buffer and hash errors
      return hipFileInternalError;
  }
}

CUresult CuResult(hipError_t e) {
  switch (e) {
    case hipErrorInvalidConfiguration:  // the CUDA runtime API's codes: the driver API's nearest
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidMemcpyDirection:
      return static_cast<CUresult>(CUDA_ERROR_INVALID_VALUE);
    case hipErrorInvalidSymbol:
      return static_cast<CUresult>(CUDA_ERROR_NOT_FOUND);
    case hipErrorRuntimeMemory:
      return static_cast<CUresult>(CUDA_ERROR_OUT_OF_MEMORY);
    case hipErrorRuntimeOther:
    case hipErrorTbd:
      return static_cast<CUresult>(CUDA_ERROR_UNKNOWN);
    default:
      break;
  }
  // Every other named hipError_t has the number of the CUresult of its name.
  const int value = static_cast<int>(e);
  if (runtime::HipErrorFromCuda(value) == e) return static_cast<CUresult>(value);
  return static_cast<CUresult>(CUDA_ERROR_UNKNOWN);
}

hipError_t HipError(CUresult e) { return runtime::HipErrorFromCuda(static_cast<int>(e)); }

CUfileError_t ToCuFile(hipFileError_t e) {
  if (e.err == hipFileHipDriverError) {
    return CUfileError_t{CU_FILE_CUDA_DRIVER_ERROR, CuResult(e.hip_drv_err)};
  }
  return CUfileError_t{CuOpError(e.err), static_cast<CUresult>(CUDA_SUCCESS)};
}

hipFileError_t ToHipFile(CUfileError_t e) {
  if (e.err == CU_FILE_CUDA_DRIVER_ERROR)
    return hipFileError_t{hipFileHipDriverError, HipError(e.cu_err)};
  // Exhausted memory is a driver error with hipErrorOutOfMemory in hipFile (hipfile.h).
  if (e.err == CU_FILE_NOMEM_ERROR)
    return hipFileError_t{hipFileHipDriverError, hipErrorOutOfMemory};
  return hipFileError_t{HipOpError(e.err), hipSuccess};
}

ssize_t CuFileSsize(ssize_t r) {
  if (r >= -1) return r;
  if (r <= -CUFILEOP_BASE_ERR)
    return -static_cast<ssize_t>(CuOpError(static_cast<hipFileOpError_t>(-r)));
  return -static_cast<ssize_t>(CU_FILE_CUDA_DRIVER_ERROR);  // a negated hipError_t
}

ssize_t HipFileSsize(ssize_t r) {
  if (r >= -1) return r;
  if (r <= -CUFILEOP_BASE_ERR)
    return -static_cast<ssize_t>(HipOpError(static_cast<CUfileOpError>(-r)));
  return r;  // cuFile returns no other negative value
}

ssize_t CuFileEventResult(ssize_t r) {
  if (r > -CUFILEOP_BASE_ERR) return r;  // bytes or -errno
  return -static_cast<ssize_t>(CuOpError(static_cast<hipFileOpError_t>(-r)));
}

}  // namespace hipfile::cufile
