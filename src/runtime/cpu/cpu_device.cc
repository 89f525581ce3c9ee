// SPDX-License-Identifier: MIT
// CpuRuntime: what the emulated device says about itself (name, memory, attributes, version) and
// its reset. The values are those cpu_runtime.h promises.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/cpu/cpu_runtime_impl.h"
#include "runtime/device_attributes.h"

namespace hipfile::runtime::cpu {
namespace {

constexpr char kDeviceName[] = "hipFile CPU device";

// The attributes that are 1 on a device whose memory is the host's and whose "kernels" (host
// functions) run one thread at a time; any other supported attribute is 0, except the two
// handled in GetDeviceAttribute.
bool IsOne(hipDeviceAttribute_t attribute) {
  switch (attribute) {
    case hipDeviceAttributeWarpSize:
    case hipDeviceAttributeMaxThreadsPerBlock:
    case hipDeviceAttributeMaxBlockDimX:
    case hipDeviceAttributeMaxBlockDimY:
    case hipDeviceAttributeMaxBlockDimZ:
    case hipDeviceAttributeMaxGridDimX:
    case hipDeviceAttributeMaxGridDimY:
    case hipDeviceAttributeMaxGridDimZ:
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
    case hipDeviceAttributeMaxBlocksPerMultiProcessor:
    case hipDeviceAttributeIntegrated:
    case hipDeviceAttributeCanMapHostMemory:
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem:
    case hipDeviceAttributeUnifiedAddressing:
    case hipDeviceAttributeManagedMemory:
    case hipDeviceAttributeConcurrentManagedAccess:
    case hipDeviceAttributeDirectManagedMemAccessFromHost:
    case hipDeviceAttributePageableMemoryAccess:
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
    case hipDeviceAttributeHostRegisterSupported:
      return true;
    default:
      return false;
  }
}

}  // namespace

hipError_t CpuRuntime::GetDeviceName(int device, char* name, size_t size) {
  if (!ValidDevice(device)) return hipErrorInvalidDevice;
  if (!name || size == 0) return hipErrorInvalidValue;
  const size_t n = std::min(size - 1, sizeof(kDeviceName) - 1);
  memcpy(name, kDeviceName, n);
  name[n] = '\0';
  return hipSuccess;
}

hipError_t CpuRuntime::GetDeviceTotalMem(int device, size_t* bytes) {
  if (!ValidDevice(device)) return hipErrorInvalidDevice;
  if (!bytes) return hipErrorInvalidValue;
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pages <= 0) return hipErrorUnknown;
  *bytes = static_cast<size_t>(pages) * page_size_;
  return hipSuccess;
}

hipError_t CpuRuntime::GetDeviceAttribute(int device, hipDeviceAttribute_t attribute, int* value) {
  if (!ValidDevice(device)) return hipErrorInvalidDevice;
  if (!value || !SupportedDeviceAttribute(attribute)) return hipErrorInvalidValue;
  if (attribute == hipDeviceAttributeTotalGlobalMem) {
    size_t bytes = 0;
    if (const hipError_t e = GetDeviceTotalMem(device, &bytes); e != hipSuccess) return e;
    *value = static_cast<int>(std::min<size_t>(bytes, INT_MAX));
    return hipSuccess;
  }
  if (attribute == hipDeviceAttributeMultiprocessorCount) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    *value = cpus > 0 ? static_cast<int>(std::min<long>(cpus, INT_MAX)) : 1;
    return hipSuccess;
  }
  *value = IsOne(attribute) ? 1 : 0;
  return hipSuccess;
}

hipError_t CpuRuntime::DriverGetVersion(int* version) {
  if (!version) return hipErrorInvalidValue;
  *version = kHipVersion;
  return hipSuccess;
}

// Memory, streams and events survive: there is no device state to destroy. Waits for the current
// device's work (DeviceSynchronize).
hipError_t CpuRuntime::DeviceReset() { return DeviceSynchronize(); }

}  // namespace hipfile::runtime::cpu
