// SPDX-License-Identifier: MIT
// CUresult -> hipError_t.
#pragma once

#include <hip/hip_runtime_api.h>

#include "runtime/cuda/cuda_driver_api.h"

namespace hipfile::runtime {

// HIP numbered its errors after CUDA's, so most codes keep their number; CUDA codes HIP has no
// counterpart for map to the nearest HIP error, and anything unknown to hipErrorUnknown.
hipError_t HipErrorFromCuda(cu::CUresult result);

}  // namespace hipfile::runtime
