// SPDX-License-Identifier: MIT
// The exception boundary of the HIP subset's C functions: each runs its body through Guard, so
// nothing the standard library throws (std::bad_alloc when memory runs out, std::system_error
// when the CPU runtime cannot start a stream's thread) unwinds into a C caller. What is caught
// becomes hipErrorOutOfMemory - memory or threads exhausted, HIP's answer to a resource it cannot
// have - or hipErrorUnknown, stored as the thread's last error like any failure.
#pragma once

#include <hip/hip_runtime_api.h>

#include "hiprt/last_error.h"
#include "util/exception_status.h"

namespace hipfile::hiprt {

template <class Fn>
hipError_t Guard(const char* name, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    const Status status = CurrentExceptionStatus(name);
    return Record(status.kind() == Status::Kind::kErrno ? hipErrorOutOfMemory : hipErrorUnknown);
  }
}

}  // namespace hipfile::hiprt
