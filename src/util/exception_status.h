// SPDX-License-Identifier: MIT
// The library's exception boundary: what a C++ exception becomes once caught.
//
// Errors are values inside the library (util/status.h), but the standard library still throws:
// std::bad_alloc when memory is exhausted, std::system_error when a thread cannot be started
// (RLIMIT_NPROC, a container's pid limit). Every C entry point (src/api, src/hiprt) and every
// worker-thread task catches, so nothing unwinds through the C ABI or out of a thread, and turns
// the exception into a Status with CurrentExceptionStatus:
//   std::bad_alloc (and std::length_error from a size past the allocator's limit) -> Errno(ENOMEM)
//   std::system_error with a system_category/generic_category code -> Errno(that code), else EAGAIN
//   anything else -> Op(hipFileInternalError)
// None of this allocates, so it works while memory is exhausted. The mapping at the C boundary
// (api/status_map.h) makes Errno(ENOMEM) {hipFileHipDriverError, hipErrorOutOfMemory} where a
// hipFileError_t is returned (hipFile's own answer to bad_alloc, spec §1.10) and -1 with errno
// ENOMEM where an ssize_t is.
#pragma once

#include "util/status.h"

namespace hipfile {

// Only inside a catch block. Logs the exception (warn level) naming `where`, a static string.
Status CurrentExceptionStatus(const char* where) noexcept;

// Runs fn() (returning Status or Result<T>) and returns its result, or the caught exception's
// Status. For code inside the library that must not throw: worker tasks, completions.
template <class Fn>
auto CatchToStatus(const char* where, Fn&& fn) noexcept -> decltype(fn()) {
  try {
    return fn();
  } catch (...) {
    return CurrentExceptionStatus(where);
  }
}

}  // namespace hipfile
