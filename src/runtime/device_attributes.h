// SPDX-License-Identifier: MIT
// The device attributes the runtimes answer (GpuRuntime::GetDeviceAttribute): those a CUDA device
// has an equivalent for, plus hipDeviceAttributeTotalGlobalMem. Texture, surface and AMD-specific
// attributes are left out: the subset has neither textures nor AMD devices.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>

namespace hipfile::runtime {

// The supported attributes, in enum order; kSupportedDeviceAttributeCount of them.
extern const hipDeviceAttribute_t kSupportedDeviceAttributes[];
extern const size_t kSupportedDeviceAttributeCount;

// Whether `attribute` is one of kSupportedDeviceAttributes.
bool SupportedDeviceAttribute(hipDeviceAttribute_t attribute);

}  // namespace hipfile::runtime
