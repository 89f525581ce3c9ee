// SPDX-License-Identifier: MIT
// Initialization, versions and devices: count, the calling thread's current device,
// synchronization and reset, attributes, memory totals. hipGetDeviceProperties is in
// properties_api.cc.
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "core/process_runtime.h"
#include "hiprt/guard.h"
#include "hiprt/last_error.h"
#include "runtime/device_attributes.h"
#include "runtime/gpu_runtime.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

extern "C" {

// Flags must be 0, as in HIP. Chooses the process runtime if nothing has yet, and says whether it
// has a device: a forced runtime that cannot be used is hipErrorNoDevice.
hipError_t hipInit(unsigned int flags) {
  return hipfile::hiprt::Guard("hipInit", [&]() -> hipError_t {
    if (flags != 0) return Record(hipErrorInvalidValue);
    int count = 0;
    return Record(ProcessRuntime().GetDeviceCount(&count));
  });
}

// CUDA's driver version (1000 * major + 10 * minor) on CUDA; kHipVersion on the CPU runtime.
hipError_t hipDriverGetVersion(int* version) {
  return hipfile::hiprt::Guard("hipDriverGetVersion", [&]() -> hipError_t {
    if (version == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().DriverGetVersion(version));
  });
}

// The HIP release whose semantics the subset follows (kHipVersion: HIP 6.0, 60000000), whatever
// the runtime.
hipError_t hipRuntimeGetVersion(int* version) {
  return hipfile::hiprt::Guard("hipRuntimeGetVersion", [&]() -> hipError_t {
    if (version == nullptr) return Record(hipErrorInvalidValue);
    *version = hipfile::runtime::kHipVersion;
    return hipSuccess;
  });
}

hipError_t hipGetDeviceCount(int* count) {
  return hipfile::hiprt::Guard("hipGetDeviceCount", [&]() -> hipError_t {
    if (count == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().GetDeviceCount(count));
  });
}

hipError_t hipSetDevice(int device) {
  return hipfile::hiprt::Guard("hipSetDevice", [&]() -> hipError_t {
    if (device < 0) return Record(hipErrorInvalidDevice);
    return Record(ProcessRuntime().SetDevice(device));
  });
}

hipError_t hipGetDevice(int* device) {
  return hipfile::hiprt::Guard("hipGetDevice", [&]() -> hipError_t {
    if (device == nullptr) return Record(hipErrorInvalidValue);
    return Record(ProcessRuntime().GetDevice(device));
  });
}

hipError_t hipDeviceSynchronize(void) {
  return hipfile::hiprt::Guard("hipDeviceSynchronize", [&]() -> hipError_t {
    return Record(ProcessRuntime().DeviceSynchronize());
  });
}

// The current device only. On CUDA its primary context is reset: every allocation, stream and
// event on it is destroyed, those hipFile holds included (see docs/hip-runtime-subset.md).
hipError_t hipDeviceReset(void) {
  return hipfile::hiprt::Guard(
      "hipDeviceReset", [&]() -> hipError_t { return Record(ProcessRuntime().DeviceReset()); });
}

// The attributes runtime/device_attributes.h lists; any other is hipErrorInvalidValue, as HIP
// answers for attributes the device lacks.
// Not behind Guard, for the reason hipMemcpy is not (copy_api.cc); it allocates nothing.
hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) {
  if (value == nullptr) return Record(hipErrorInvalidValue);
  // Read as an int and matched against the supported list first: a caller's value outside the
  // enumerators must not be loaded as the enum (undefined behaviour).
  int raw;
  static_assert(sizeof raw == sizeof attribute, "enum is int-sized");
  std::memcpy(&raw, &attribute, sizeof raw);
  const bool known =
      std::any_of(hipfile::runtime::kSupportedDeviceAttributes,
                  hipfile::runtime::kSupportedDeviceAttributes +
                      hipfile::runtime::kSupportedDeviceAttributeCount,
                  [raw](hipDeviceAttribute_t a) { return static_cast<int>(a) == raw; });
  if (!known) return Record(hipErrorInvalidValue);
  if (device < 0) return Record(hipErrorInvalidDevice);
  return Record(ProcessRuntime().GetDeviceAttribute(device, attribute, value));
}

// Either out-pointer may be null (that value is not returned), as with cudaMemGetInfo.
hipError_t hipMemGetInfo(size_t* free_out, size_t* total_out) {
  return hipfile::hiprt::Guard("hipMemGetInfo", [&]() -> hipError_t {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    const hipError_t e = ProcessRuntime().MemGetInfo(&free_bytes, &total_bytes);
    if (e != hipSuccess) return Record(e);
    if (free_out != nullptr) *free_out = free_bytes;
    if (total_out != nullptr) *total_out = total_bytes;
    return hipSuccess;
  });
}

}  // extern "C"
