// SPDX-License-Identifier: MIT
// hipDeviceAttribute_t -> CUdevice_attribute, for the CUDA runtime's GetDeviceAttribute.
#pragma once

#include <hip/hip_runtime_api.h>

namespace hipfile::runtime {

// The CUdevice_attribute (cuda.h, CUDA 13.0) that answers `attribute`; -1 where none does
// (hipDeviceAttributeTotalGlobalMem, which comes from cuDeviceTotalMem, and every attribute
// outside runtime/device_attributes.h).
int CudaDeviceAttributeOf(hipDeviceAttribute_t attribute);

}  // namespace hipfile::runtime
