// SPDX-License-Identifier: MIT
// Copies and fills. Zero bytes succeed without touching the pointers; otherwise a null pointer is
// hipErrorInvalidValue, as in HIP. The driver-style copies (hipMemcpyHtoD, ...) are hipMemcpy with
// their direction as the kind.
#include <hip/hip_runtime_api.h>

#include <cstring>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

namespace {

// Checked before anything else, so a bad direction is reported even for zero bytes.
// Read through memcpy: a caller's value outside the enumerators must not be loaded as the enum.
bool ValidKind(const hipMemcpyKind& kind) {
  int k;
  static_assert(sizeof k == sizeof kind, "enum is int-sized");
  std::memcpy(&k, &kind, sizeof k);
  return k >= hipMemcpyHostToHost && k <= hipMemcpyDefault;
}

hipError_t Copy(void* dst, const void* src, size_t size, const hipMemcpyKind& kind) {
  // The direction first, outside the guard: its lambda would load an out-of-range value as the
  // enum (undefined behaviour); once checked, the value is an enumerator.
  if (!ValidKind(kind)) return Record(hipErrorInvalidMemcpyDirection);
  return hipfile::hiprt::Guard("hipMemcpy", [&]() -> hipError_t {
    if (size == 0) return hipSuccess;
    if (dst == nullptr || src == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().Memcpy(dst, src, size, kind));
  });
}

hipError_t CopyAsync(void* dst, const void* src, size_t size, const hipMemcpyKind& kind,
                     hipStream_t stream) {
  // The direction first, outside the guard: its lambda would load an out-of-range value as the
  // enum (undefined behaviour); once checked, the value is an enumerator.
  if (!ValidKind(kind)) return Record(hipErrorInvalidMemcpyDirection);
  return hipfile::hiprt::Guard("hipMemcpyAsync", [&]() -> hipError_t {
    if (size == 0) return hipSuccess;
    if (dst == nullptr || src == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().MemcpyAsync(dst, src, size, kind, stream));
  });
}

}  // namespace

extern "C" {

// Copy checks the direction, then runs behind the guard.
hipError_t hipMemcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) {
  return Copy(dst, src, size, kind);
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                          hipStream_t stream) {
  return CopyAsync(dst, src, size, kind, stream);  // checks the direction, then guards
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t size) {
  return hipfile::hiprt::Guard(
      "hipMemcpyHtoD", [&]() -> hipError_t { return Copy(dst, src, size, hipMemcpyHostToDevice); });
}

hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t size) {
  return hipfile::hiprt::Guard(
      "hipMemcpyDtoH", [&]() -> hipError_t { return Copy(dst, src, size, hipMemcpyDeviceToHost); });
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t size) {
  return hipfile::hiprt::Guard("hipMemcpyDtoD", [&]() -> hipError_t {
    return Copy(dst, src, size, hipMemcpyDeviceToDevice);
  });
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void* src, size_t size,
                              hipStream_t stream) {
  return hipfile::hiprt::Guard("hipMemcpyHtoDAsync", [&]() -> hipError_t {
    return CopyAsync(dst, src, size, hipMemcpyHostToDevice, stream);
  });
}

hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t size, hipStream_t stream) {
  return hipfile::hiprt::Guard("hipMemcpyDtoHAsync", [&]() -> hipError_t {
    return CopyAsync(dst, src, size, hipMemcpyDeviceToHost, stream);
  });
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t size,
                              hipStream_t stream) {
  return hipfile::hiprt::Guard("hipMemcpyDtoDAsync", [&]() -> hipError_t {
    return CopyAsync(dst, src, size, hipMemcpyDeviceToDevice, stream);
  });
}

hipError_t hipMemset(void* dst, int value, size_t size) {
  return hipfile::hiprt::Guard("hipMemset", [&]() -> hipError_t {
    if (size == 0) return hipSuccess;
    if (dst == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().Memset(dst, value, size));
  });
}

hipError_t hipMemsetAsync(void* dst, int value, size_t size, hipStream_t stream) {
  return hipfile::hiprt::Guard("hipMemsetAsync", [&]() -> hipError_t {
    if (size == 0) return hipSuccess;
    if (dst == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().MemsetAsync(dst, value, size, stream));
  });
}

}  // extern "C"
