// SPDX-License-Identifier: MIT
// What the runtime knows about a pointer: hipPointerGetAttributes and hipMemGetAddressRange.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"
#include "runtime/gpu_runtime.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

extern "C" {

// HIP >= 6 behaviour: memory the runtime does not know (plain host memory) is not an error; it is
// reported with type hipMemoryTypeUnregistered, device -1, null device/host pointers, no flags.
// (HIP before 6 returned hipErrorInvalidValue here.) A null `ptr` is hipErrorInvalidValue.
hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  return hipfile::hiprt::Guard("hipPointerGetAttributes", [&]() -> hipError_t {
    if (attributes == nullptr || ptr == nullptr) return Record(hipErrorInvalidValue);
    hipfile::runtime::PointerInfo info;
    const hipError_t e = ProcessRuntime().PointerGetInfo(ptr, &info);
    if (e != hipSuccess) return Record(e);
    if (info.type == hipMemoryTypeUnregistered) {
      *attributes = hipPointerAttribute_t{};  // the same answer whatever the runtime
      attributes->type = hipMemoryTypeUnregistered;
      attributes->device = -1;
      return hipSuccess;
    }
    attributes->type = info.type;
    attributes->device = info.device;
    attributes->devicePointer = info.device_pointer;
    attributes->hostPointer = info.host_pointer;
    attributes->isManaged = info.is_managed ? 1 : 0;
    attributes->allocationFlags = info.flags;
    return hipSuccess;
  });
}

// The allocation or registration holding `ptr` (device, pinned host or registered host memory).
// A pointer the runtime does not know, null included, is hipErrorNotFound, as in HIP. Either
// out-pointer may be null (that value is not returned), as with cuMemGetAddressRange.
hipError_t hipMemGetAddressRange(void** base, size_t* size, void* ptr) {
  return hipfile::hiprt::Guard("hipMemGetAddressRange", [&]() -> hipError_t {
    if (ptr == nullptr) return Record(hipErrorNotFound);
    hipfile::runtime::PointerInfo info;
    const hipError_t e = ProcessRuntime().PointerGetInfo(ptr, &info);
    if (e != hipSuccess) return Record(e);
    if (info.type == hipMemoryTypeUnregistered || info.base == nullptr) {
      return Record(hipErrorNotFound);
    }
    if (base != nullptr) *base = info.base;
    if (size != nullptr) *size = info.size;
    return hipSuccess;
  });
}

}  // extern "C"
