// SPDX-License-Identifier: MIT
// Events. A null event is hipErrorInvalidHandle, as in HIP.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

namespace {

constexpr unsigned kEventFlags =
    hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;

}  // namespace

extern "C" {

hipError_t hipEventCreate(hipEvent_t* event) {
  return hipfile::hiprt::Guard("hipEventCreate", [&]() -> hipError_t {
    return hipEventCreateWithFlags(event, hipEventDefault);
  });
}

// An interprocess event must also disable timing, as in HIP and CUDA.
hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  return hipfile::hiprt::Guard("hipEventCreateWithFlags", [&]() -> hipError_t {
    if (event == nullptr || (flags & ~kEventFlags) != 0) return Record(hipErrorInvalidValue);
    if ((flags & hipEventInterprocess) != 0 && (flags & hipEventDisableTiming) == 0) {
      return Record(hipErrorInvalidValue);
    }
    return Record(ProcessRuntime().EventCreate(event, flags));
  });
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  return hipfile::hiprt::Guard("hipEventRecord", [&]() -> hipError_t {
    if (event == nullptr) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().EventRecord(event, stream));
  });
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  return hipfile::hiprt::Guard("hipEventSynchronize", [&]() -> hipError_t {
    if (event == nullptr) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().EventSynchronize(event));
  });
}

// hipErrorNotReady (not reached yet) is returned but not recorded as the last error.
hipError_t hipEventQuery(hipEvent_t event) {
  return hipfile::hiprt::Guard("hipEventQuery", [&]() -> hipError_t {
    if (event == nullptr) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().EventQuery(event));
  });
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return hipfile::hiprt::Guard("hipEventElapsedTime", [&]() -> hipError_t {
    if (ms == nullptr) return Record(hipErrorInvalidValue);
    if (start == nullptr || stop == nullptr) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().EventElapsedTime(ms, start, stop));
  });
}

hipError_t hipEventDestroy(hipEvent_t event) {
  return hipfile::hiprt::Guard("hipEventDestroy", [&]() -> hipError_t {
    if (event == nullptr) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().EventDestroy(event));
  });
}

}  // extern "C"
