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

// A run of tokens [first, last] of one operation in one launch (GpuRuntime::CopyTableRunAsync):
// the stream passed `*ready >= first` before it. `head` is the first token's table: in device
// memory where the stream copied it there before the launch (the mirror), else tables[first % 2].
// Where it ends the operation's copies (the common case: a read copied whole from device memory
// or pinned windows), the grid copies it and the stream writes `copied` after the launch.
// Otherwise the first block alone
// takes each token in turn - its first thread waits for the host to release it, the block copies
// its table if filled for it, stores `copied` - and the others leave at once: a block waits only
// for the host, never for another block, so the run needs no more of the GPU than one block to
// finish.
extern "C" __global__ void __launch_bounds__(256)
    hipfile_copy_table_run(const hipfile::kernels::GatherArgs* tables,
                           const hipfile::kernels::GatherArgs* head, const unsigned first,
                           const unsigned last, const volatile unsigned* ready,
                           volatile unsigned* copied) {
  if (hipfile::kernels::RunEndsWithFirst(head, first)) {
    hipfile::kernels::CopyTableThread(
        head, first, blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x,
        gridDim.x * static_cast<unsigned long long>(blockDim.x));
    return;
  }
  if (blockIdx.x != 0) return;
  for (unsigned t = first;; ++t) {
    // One thread looks at `ready` over the link; the fence makes what the host wrote before
    // releasing t (the table, the slot) visible to the block the barrier then lets go.
    if (threadIdx.x == 0) {
      while (!hipfile::kernels::Released(ready, t)) __nanosleep(500);
      __threadfence_system();
    }
    __syncthreads();
    hipfile::kernels::CopyRunToken(tables, t, threadIdx.x, blockDim.x);
    __syncthreads();  // every thread's loads of the slot are done
    if (threadIdx.x == 0) {
      __threadfence_system();
      *copied = t;
    }
    if (t == last) break;
  }
}
