// SPDX-License-Identifier: MIT
// hipGetErrorName, hipGetErrorString, hipGetLastError, hipPeekAtLastError. None of them records
// an error.
#include <hip/hip_runtime_api.h>

#include <cstring>

#include "hiprt/guard.h"
#include "hiprt/last_error.h"
#include "util/errors.h"

namespace {

int AsInt(const hipError_t& error) {  // by reference: a copy would load it as the enum
  static_assert(sizeof(hipError_t) == sizeof(int), "hipError_t is int-sized");
  int raw;
  std::memcpy(&raw, &error, sizeof raw);
  return raw;
}

}  // namespace

extern "C" {

// The argument is read as an int (see util/errors.h): C callers pass any value.
const char* hipGetErrorName(hipError_t error) { return hipfile::GpuErrorNameOf(AsInt(error)); }

const char* hipGetErrorString(hipError_t error) { return hipfile::GpuErrorStringOf(AsInt(error)); }

hipError_t hipGetLastError(void) {
  return hipfile::hiprt::Guard("hipGetLastError",
                               [&]() -> hipError_t { return hipfile::hiprt::TakeLastError(); });
}

hipError_t hipPeekAtLastError(void) {
  return hipfile::hiprt::Guard("hipPeekAtLastError",
                               [&]() -> hipError_t { return hipfile::hiprt::PeekLastError(); });
}

}  // extern "C"
