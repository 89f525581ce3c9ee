// SPDX-License-Identifier: MIT
// How internal results become the C API's error values (include/hipfile.h, "Errors").
#pragma once

#include <hipfile.h>
#include <sys/types.h>

#include <cstddef>

#include "util/status.h"

namespace hipfile::api {

// Ok -> {hipFileSuccess, hipSuccess}; kOp -> {op, hipSuccess}; kGpu -> {hipFileHipDriverError, e};
// kErrno -> {hipFileInternalError, hipSuccess} (hipFileError_t has no errno channel; the errno is
// logged at info level). Known errnos were already turned into op errors by the core.
hipFileError_t ToError(Status status);

// For hipFileRead/Write: bytes; kErrno -> -1 with errno set; kOp -> -op; kGpu -> -hipError_t,
// except hipErrorInvalidValue, whose negation (-1) would read as an errno result: it becomes
// -hipFileHipDriverError.
ssize_t ToSsize(const Result<size_t>& result);

inline hipFileError_t Success() { return hipFileError_t{hipFileSuccess, hipSuccess}; }
inline hipFileError_t OpError(hipFileOpError_t e) { return hipFileError_t{e, hipSuccess}; }

}  // namespace hipfile::api
