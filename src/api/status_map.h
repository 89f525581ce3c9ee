// SPDX-License-Identifier: MIT
// How internal results become the C API's error values (include/hipfile.h, "Errors").
#pragma once

#include <hipfile.h>
#include <sys/types.h>

#include <cstddef>

#include "util/capture_mode.h"
#include "util/exception_status.h"
#include "util/status.h"
#include "util/trace.h"

namespace hipfile::api {

// Ok -> {hipFileSuccess, hipSuccess}; kOp -> {op, hipSuccess}; kGpu -> {hipFileHipDriverError, e};
// kErrno ENOMEM -> {hipFileHipDriverError, hipErrorOutOfMemory} (hipFile's answer to exhausted
// memory); any other kErrno -> {hipFileInternalError, hipSuccess} with errno set to the code
// (hipFileError_t has no errno channel; the code is logged at info level too). Known errnos were
// already turned into op errors by the core.
hipFileError_t ToError(Status status);

// For hipFileRead/Write: bytes; kErrno -> -1 with errno set; kOp -> -op; kGpu -> -hipError_t,
// except hipErrorInvalidValue, whose negation (-1) would read as an errno result: it becomes
// -hipFileHipDriverError.
ssize_t ToSsize(const Result<size_t>& result);

// The exception boundary of the C entry points: each runs its body through one of these, so no
// C++ exception unwinds into a C caller (util/exception_status.h says what each becomes). `name`
// is the entry point's, for the log line.
// Each is also the call's NVTX range (util/trace.h), named for the entry point, and makes the
// call's runtime calls in relaxed capture mode (util/capture_mode.h).
template <class Fn>
hipFileError_t GuardError(const char* name, Fn&& fn) noexcept {
  const TraceRange range(name);
  RelaxedCapture relaxed;  // not const: InstallCaptureModeExchange may engage it
  try {
    return fn();
  } catch (...) {
    return ToError(CurrentExceptionStatus(name));
  }
}
template <class Fn>
ssize_t GuardSsize(const char* name, Fn&& fn) noexcept {
  const TraceRange range(name);
  RelaxedCapture relaxed;  // not const: InstallCaptureModeExchange may engage it
  try {
    return fn();
  } catch (...) {
    return ToSsize(Result<size_t>(CurrentExceptionStatus(name)));
  }
}
// For entry points that return nothing: the exception is logged and the call has no effect past
// what it did before throwing.
template <class Fn>
void GuardVoid(const char* name, Fn&& fn) noexcept {
  const TraceRange range(name);
  RelaxedCapture relaxed;  // not const: InstallCaptureModeExchange may engage it
  try {
    fn();
  } catch (...) {
    (void)CurrentExceptionStatus(name);
  }
}

inline hipFileError_t Success() { return hipFileError_t{hipFileSuccess, hipSuccess}; }
inline hipFileError_t OpError(hipFileOpError_t e) { return hipFileError_t{e, hipSuccess}; }

}  // namespace hipfile::api
