// SPDX-License-Identifier: MIT
// hipFile's error values <-> cuFile's (docs/cufile.md, "Errors"). Pure functions: the drop-in's
// entry points map every result through them, and tests/unit/cufile checks both directions for
// every value of both enums.
#pragma once

#include <cufile/cufile.h>
#include <hipfile.h>
#include <sys/types.h>

namespace hipfile::cufile {

// hipFile numbered its op errors after cuFile's, so 0 and 5001..5038 keep their number;
// hipFileIOMaxError (5039, hipFile's end marker) is CU_FILE_IO_MAX_ERROR (5050), cuFile's.
CUfileOpError CuOpError(hipFileOpError_t e);
// The inverse on hipFile's values; cuFile's codes past 5038, which hipFile has no value for, map to
// the nearest (CU_FILE_NOMEM_ERROR and the retryable internal batch errors to
// hipFileInternalError, CU_FILE_INVALID_CONTEXT_ERROR to hipFileHipContextMismatch, ...).
hipFileOpError_t HipOpError(CUfileOpError e);

// hipError_t -> CUresult: HIP numbered its errors after CUDA's driver API, so most keep their
// number; the CUDA runtime API's codes (hipErrorInvalidSymbol, hipErrorInvalidDevicePointer...)
// and HIP's own map to the nearest driver error, anything unknown to CUDA_ERROR_UNKNOWN.
CUresult CuResult(hipError_t e);
// CUresult -> hipError_t: as the library's CUDA runtime maps the driver's results.
hipError_t HipError(CUresult e);

// Whole results. {hipFileHipDriverError, e} is {CU_FILE_CUDA_DRIVER_ERROR, CuResult(e)}; other op
// errors carry CUDA_SUCCESS, as both libraries report them.
CUfileError_t ToCuFile(hipFileError_t e);
hipFileError_t ToHipFile(CUfileError_t e);

// cuFileRead/cuFileWrite's return from hipFileRead/hipFileWrite's: bytes and -1 (errno) as they
// are; -op errors mapped by CuOpError; a negated hipError_t (cuFile has no way to return a
// CUresult there) becomes -CU_FILE_CUDA_DRIVER_ERROR.
ssize_t CuFileSsize(ssize_t hipfile_result);
// The inverse for cuFile's codes: -CU_FILE_CUDA_DRIVER_ERROR stays -hipFileHipDriverError.
ssize_t HipFileSsize(ssize_t cufile_result);

// A batch event's ret (and a stream-ordered *bytes_p, which has the same encoding): bytes, -errno
// and -hipFileHipDriverError keep their value, -op errors map by CuOpError.
ssize_t CuFileEventResult(ssize_t hipfile_result);

}  // namespace hipfile::cufile
