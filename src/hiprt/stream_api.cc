// SPDX-License-Identifier: MIT
// Streams and host functions. A null stream is the default (legacy) stream, and
// hipStreamPerThread the calling thread's default stream, everywhere except hipStreamDestroy,
// which destroys neither.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

extern "C" {

hipError_t hipStreamCreate(hipStream_t* stream) {
  return hipfile::hiprt::Guard("hipStreamCreate", [&]() -> hipError_t {
    return hipStreamCreateWithFlags(stream, hipStreamDefault);
  });
}

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  return hipfile::hiprt::Guard("hipStreamCreateWithFlags", [&]() -> hipError_t {
    if (stream == nullptr || (flags & ~static_cast<unsigned>(hipStreamNonBlocking)) != 0) {
      return Record(hipErrorInvalidValue);
    }
    return Record(ProcessRuntime().StreamCreate(stream, flags));
  });
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  return hipfile::hiprt::Guard("hipStreamDestroy", [&]() -> hipError_t {
    if (stream == nullptr || stream == hipStreamPerThread) return Record(hipErrorInvalidHandle);
    return Record(ProcessRuntime().StreamDestroy(stream));
  });
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  return hipfile::hiprt::Guard("hipStreamSynchronize", [&]() -> hipError_t {
    return Record(ProcessRuntime().StreamSynchronize(stream));
  });
}

// hipErrorNotReady (work still running) is returned but not recorded as the last error.
hipError_t hipStreamQuery(hipStream_t stream) {
  return hipfile::hiprt::Guard("hipStreamQuery", [&]() -> hipError_t {
    return Record(ProcessRuntime().StreamQuery(stream));
  });
}

// HIP accepts no wait flags.
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  return hipfile::hiprt::Guard("hipStreamWaitEvent", [&]() -> hipError_t {
    if (event == nullptr) return Record(hipErrorInvalidHandle);
    if (flags != 0) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().StreamWaitEvent(stream, event, flags));
  });
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* user_data) {
  return hipfile::hiprt::Guard("hipLaunchHostFunc", [&]() -> hipError_t {
    if (fn == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().LaunchHostFunc(stream, fn, user_data));
  });
}

}  // extern "C"
