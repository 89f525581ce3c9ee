// SPDX-License-Identifier: MIT
// Copies and fills. Zero bytes succeed without touching the pointers; otherwise a null pointer is
// hipErrorInvalidValue, as in HIP.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

namespace {

// Checked before anything else, so a bad direction is reported even for zero bytes.
bool ValidKind(hipMemcpyKind kind) {
  const int k = static_cast<int>(kind);
  return k >= hipMemcpyHostToHost && k <= hipMemcpyDefault;
}

}  // namespace

extern "C" {

hipError_t hipMemcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) {
  if (!ValidKind(kind)) return Record(hipErrorInvalidMemcpyDirection);
  if (size == 0) return hipSuccess;
  if (dst == nullptr || src == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().Memcpy(dst, src, size, kind));
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                          hipStream_t stream) {
  if (!ValidKind(kind)) return Record(hipErrorInvalidMemcpyDirection);
  if (size == 0) return hipSuccess;
  if (dst == nullptr || src == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().MemcpyAsync(dst, src, size, kind, stream));
}

hipError_t hipMemset(void* dst, int value, size_t size) {
  if (size == 0) return hipSuccess;
  if (dst == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().Memset(dst, value, size));
}

hipError_t hipMemsetAsync(void* dst, int value, size_t size, hipStream_t stream) {
  if (size == 0) return hipSuccess;
  if (dst == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().MemsetAsync(dst, value, size, stream));
}

}  // extern "C"
