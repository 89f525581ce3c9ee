// The gather-copy kernel: many small copies in one kernel launch.
//
// Queueing a copy costs a context-wide lock in the CUDA driver, for cuMemcpyAsync and for every
// copy of a cuMemcpyBatchAsync alike; a kernel launch takes it once. On the H200, 16 threads
// queueing 4 KiB host-to-device copies in groups of 16 (bench/probes/launch-probe.cpp):
// cuMemcpyAsync 0.39 M copies/s at 40 µs of CPU each, cuMemcpyBatchAsync 1.6-1.8 M/s at 4.5 µs
// (one thread got no turn in 3 s), this kernel 5.4-5.7 M/s at 1.9 µs; with 4 threads and groups
// of 64, 7.9 M/s at 0.5 µs.
//
// The kernel's source is gather_kernel.cu; gather_kernel.cc holds the PTX made from it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

// Copies per launch (a launch's parameters must fit in 4 KiB) and the largest copy worth a
// kernel: above it the copy engines move bytes as fast and the SMs are better left alone.
inline constexpr size_t kGatherMaxCopies = 128;
inline constexpr size_t kGatherMaxCopyBytes = 64 * 1024;
inline constexpr unsigned kGatherThreadsPerBlock = 256;
inline constexpr char kGatherKernelName[] = "hipfile_gather_copy";
// The table kernel (CopyTableAsync): its grid, which strides over each copy of the table.
inline constexpr char kCopyTableKernelName[] = "hipfile_copy_table";
inline constexpr unsigned kCopyTableBlocks = 256;

// The kernel's parameter, passed by value; the layout is gather_kernel.cu's.
struct GatherCopy {
  uint64_t dst = 0;
  uint64_t src = 0;
  uint64_t bytes = 0;
};
struct GatherArgs {
  uint64_t count = 0;
  GatherCopy op[kGatherMaxCopies];
};
static_assert(sizeof(GatherArgs) == 8 + 24 * kGatherMaxCopies, "the kernel's parameter layout");
static_assert(sizeof(GatherArgs) <= 4096, "kernel parameters are limited to 4 KiB");

// CopyTableAsync's table is this layout.
static_assert(sizeof(GatherArgs) == sizeof(CopyTable), "CopyTable is the kernel's table");
static_assert(kGatherMaxCopies == CopyTable::kMaxCopies, "CopyTable is the kernel's table");

// PTX (ISA 7.0, sm_75) of hipfile_gather_copy and hipfile_copy_table.
extern const char kGatherKernelPtx[];

}  // namespace hipfile::runtime
