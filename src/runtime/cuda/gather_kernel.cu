// SPDX-License-Identifier: MIT
// The copy kernels' source. Not compiled by the build: the library carries the PTX that
// scripts/gen-ptx.sh makes from this file (gather_kernel.cc), and the driver compiles it for the
// GPU at first use, so neither nvcc nor a GPU architecture list is needed to build. What each
// thread does is copy_kernel_body.h's, which the unit tests also run on the host.
//
// Each copy's source and destination are addresses the device can use (device memory, or pinned
// host memory under unified addressing). Copies whose two addresses are 16-byte aligned move in
// 16-byte words (a 4 KiB copy is one load and one store per thread), the others byte by byte.
#include "copy_kernel_body.h"

// Up to 128 copies, one block per copy.
extern "C" __global__ void __launch_bounds__(256)
    hipfile_gather_copy(const hipfile::kernels::GatherArgs args) {
  hipfile::kernels::GatherThread(args, blockIdx.x, threadIdx.x, blockDim.x);
}

// The copies a table in host memory holds when the kernel runs (GpuRuntime::CopyTableAsync): the
// stream reaches the launch only after the host filled the table, so sizes decided while the
// stream waited are honoured. A table filled for another launch (its token) copies nothing. The
// grid, of any size, strides over each copy in turn.
extern "C" __global__ void __launch_bounds__(256)
    hipfile_copy_table(const hipfile::kernels::GatherArgs* table, const unsigned token) {
  hipfile::kernels::CopyTableThread(
      table, token, blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x,
      gridDim.x * static_cast<unsigned long long>(blockDim.x));
}
