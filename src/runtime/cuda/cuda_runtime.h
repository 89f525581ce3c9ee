// SPDX-License-Identifier: MIT
// The CUDA runtime: a GpuRuntime over the CUDA driver API, loaded with dlopen at run time so
// that one build of the library runs on machines with and without libcuda.
//
// Uses each device's primary context (the one the CUDA runtime API, PyTorch and CuPy use), so a
// hipStream_t is a CUstream and allocations made by other CUDA code are recognised. Primary
// contexts are retained on a device's first use and released when the runtime is destroyed.
//
// The current device is per thread. Until SetDevice is called on a thread it follows the
// thread's current CUDA context (so a thread where PyTorch made device 1 current works on device
// 1), and is device 0 when no context is current. Before each call the primary context of the
// current device is made current on the calling thread.
//
// The synchronous Memcpy and Memset run on the legacy default stream and return once the work is
// done. A null Stream is the legacy default stream.
//
// MemcpyBatchAsync queues small copies (up to 64 KiB each) with a gather kernel, one launch per
// 128 copies (gather_kernel.h says why), loaded into each device's primary context on first use;
// larger copies with one cuMemcpyBatchAsync where the driver has it.
#pragma once

#include <memory>
#include <string>

#include "runtime/cuda/gather_kernel.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

struct CudaDriver;

struct CudaRuntimeOptions {
  // Whether MemcpyBatchAsync may use the gather kernel (HIPFILE_COPY_KERNEL).
  bool copy_kernel = true;
  // The grid of CopyTableRunAsync's launch (HIPFILE_ASYNC_RUN_BLOCKS): the blocks that copy a
  // run's first table whole; 0 counts as 1.
  unsigned run_blocks = kCopyTableBlocks;
};

// Null when CUDA cannot be used here; *why_not then says why ("libcuda.so.1 not found: ...",
// "cuInit failed: CUDA_ERROR_NO_DEVICE (100)", "no CUDA devices").
std::unique_ptr<GpuRuntime> CreateCudaRuntime(std::string* why_not,
                                              const CudaRuntimeOptions& options = {});

// The same over a given driver table (tests pass fakes); `driver` must outlive the runtime.
std::unique_ptr<GpuRuntime> CreateCudaRuntimeWithDriver(const CudaDriver& driver,
                                                        std::string* why_not,
                                                        const CudaRuntimeOptions& options = {});

}  // namespace hipfile::runtime
