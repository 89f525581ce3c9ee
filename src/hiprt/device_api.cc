// SPDX-License-Identifier: MIT
// Devices: count, the calling thread's current device, synchronization, memory totals.
#include <hip/hip_runtime_api.h>

#include "core/process_runtime.h"
#include "hiprt/last_error.h"

using hipfile::ProcessRuntime;
using hipfile::hiprt::Record;

extern "C" {

hipError_t hipGetDeviceCount(int* count) {
  if (count == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().GetDeviceCount(count));
}

hipError_t hipSetDevice(int device) {
  if (device < 0) return Record(hipErrorInvalidDevice);
  return Record(ProcessRuntime().SetDevice(device));
}

hipError_t hipGetDevice(int* device) {
  if (device == nullptr) return Record(hipErrorInvalidValue);
  return Record(ProcessRuntime().GetDevice(device));
}

hipError_t hipDeviceSynchronize(void) { return Record(ProcessRuntime().DeviceSynchronize()); }

// Either out-pointer may be null (that value is not returned), as with cudaMemGetInfo.
hipError_t hipMemGetInfo(size_t* free_out, size_t* total_out) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  const hipError_t e = ProcessRuntime().MemGetInfo(&free_bytes, &total_bytes);
  if (e != hipSuccess) return Record(e);
  if (free_out != nullptr) *free_out = free_bytes;
  if (total_out != nullptr) *total_out = total_bytes;
  return hipSuccess;
}

}  // extern "C"
