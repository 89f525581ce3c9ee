// SPDX-License-Identifier: MIT
// NoThrow: a runtime call made where nothing may unwind.
#pragma once

#include <hip/hip_runtime_api.h>

namespace hipfile::core {

// A runtime call with what it throws (a CPU runtime's queue or table that cannot grow) turned
// into hipErrorOutOfMemory: the call did nothing then, and a submission takes its error path
// (refused, or abandoned once part of it is on the stream) instead of unwinding past the sequence
// number or the staging it took.
template <class Call>
hipError_t NoThrow(Call&& call) noexcept {
  try {
    return call();
  } catch (...) {
    return hipErrorOutOfMemory;
  }
}

}  // namespace hipfile::core
