// The CUDA runtime: a GpuRuntime over the CUDA driver API, loaded with dlopen at run time so
// that one build of the library runs on machines with and without libcuda.
//
// Uses each device's primary context (the one the CUDA runtime API, PyTorch and CuPy use), so a
// hipStream_t is a CUstream and allocations made by other CUDA code are recognised.
#pragma once

#include <memory>
#include <string>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

// Null when CUDA cannot be used here; *why_not then says why ("libcuda.so.1 not found",
// "cuInit failed: CUDA_ERROR_NO_DEVICE (100)", "no CUDA devices").
std::unique_ptr<GpuRuntime> CreateCudaRuntime(std::string* why_not);

}  // namespace hipfile::runtime
