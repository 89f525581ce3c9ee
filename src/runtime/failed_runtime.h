// SPDX-License-Identifier: MIT
// A GpuRuntime whose every call fails with one error: what a forced but unusable runtime gives,
// so that programs see a clear error instead of silently running on another runtime.
#pragma once

#include <memory>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

std::unique_ptr<GpuRuntime> CreateFailedRuntime(const char* name, hipError_t error);

}  // namespace hipfile::runtime
