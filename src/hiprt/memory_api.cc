// SPDX-License-Identifier: MIT
// Allocation and registration: device, managed, pinned host and registered host memory.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

namespace {

constexpr unsigned kHostMallocFlags =
    hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined;
constexpr unsigned kHostRegisterFlags = hipHostRegisterPortable | hipHostRegisterMapped |
                                        hipHostRegisterIoMemory | hipHostRegisterReadOnly;

}  // namespace

extern "C" {

// A zero-byte request succeeds with a null pointer, as in HIP.
hipError_t hipMalloc(void** ptr, size_t size) {
  return hipfile::hiprt::Guard("hipMalloc", [&]() -> hipError_t {
    if (ptr == nullptr) return Record(hipErrorInvalidValue);
    if (size == 0) {
      *ptr = nullptr;
      return hipSuccess;
    }
    return Record(ProcessRuntime().Malloc(ptr, size));
  });
}

// Flags are hipMemAttachGlobal or hipMemAttachHost, exactly one. As hipMalloc, a zero-byte
// request succeeds with a null pointer (CUDA's cudaMallocManaged refuses it).
hipError_t hipMallocManaged(void** ptr, size_t size, unsigned int flags) {
  return hipfile::hiprt::Guard("hipMallocManaged", [&]() -> hipError_t {
    if (ptr == nullptr || (flags != hipMemAttachGlobal && flags != hipMemAttachHost)) {
      return Record(hipErrorInvalidValue);
    }
    if (size == 0) {
      *ptr = nullptr;
      return hipSuccess;
    }
    return Record(ProcessRuntime().MallocManaged(ptr, size, flags));
  });
}

// Device or managed memory.
hipError_t hipFree(void* ptr) {
  return hipfile::hiprt::Guard("hipFree", [&]() -> hipError_t {
    if (ptr == nullptr) return hipSuccess;
    return Record(ProcessRuntime().Free(ptr));
  });
}

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  return hipfile::hiprt::Guard("hipHostMalloc", [&]() -> hipError_t {
    if (ptr == nullptr || (flags & ~kHostMallocFlags) != 0) return Record(hipErrorInvalidValue);
    if (size == 0) {
      *ptr = nullptr;
      return hipSuccess;
    }
    return Record(ProcessRuntime().HostMalloc(ptr, size, flags));
  });
}

hipError_t hipHostFree(void* ptr) {
  return hipfile::hiprt::Guard("hipHostFree", [&]() -> hipError_t {
    if (ptr == nullptr) return hipSuccess;
    return Record(ProcessRuntime().HostFree(ptr));
  });
}

hipError_t hipHostRegister(void* host_ptr, size_t size, unsigned int flags) {
  return hipfile::hiprt::Guard("hipHostRegister", [&]() -> hipError_t {
    if (host_ptr == nullptr || size == 0 || (flags & ~kHostRegisterFlags) != 0) {
      return Record(hipErrorInvalidValue);
    }
    return Record(ProcessRuntime().HostRegister(host_ptr, size, flags));
  });
}

hipError_t hipHostUnregister(void* host_ptr) {
  return hipfile::hiprt::Guard("hipHostUnregister", [&]() -> hipError_t {
    if (host_ptr == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().HostUnregister(host_ptr));
  });
}

}  // extern "C"
