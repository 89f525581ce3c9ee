// SPDX-License-Identifier: MIT
#include "hiprt/last_error.h"

namespace hipfile::hiprt {
namespace {

thread_local hipError_t last_error = hipSuccess;

}  // namespace

hipError_t Record(hipError_t e) {
  if (e != hipSuccess && e != hipErrorNotReady) last_error = e;
  return e;
}

hipError_t PeekLastError() { return last_error; }

hipError_t TakeLastError() {
  const hipError_t e = last_error;
  last_error = hipSuccess;
  return e;
}

}  // namespace hipfile::hiprt
