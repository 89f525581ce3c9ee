// SPDX-License-Identifier: MIT
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

#include "runtime/cuda/copy_kernel_body.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

// The largest copy worth a kernel: above it the copy engines move bytes as fast and the SMs are
// better left alone. A launch takes CopyTable::kMaxCopies copies.
inline constexpr size_t kGatherMaxCopyBytes = 64 * 1024;
inline constexpr unsigned kGatherThreadsPerBlock = 256;
inline constexpr char kGatherKernelName[] = "hipfile_gather_copy";
// The table kernel (CopyTableAsync): its grid, which strides over each copy of the table. Small,
// because each stream's launches queue behind the blocks of other streams' launches that hold the
// GPU's SMs: on the H200 a 16 MiB copy moves as fast with 32 blocks as with 256 (44 GiB/s), and
// 16 streams of 16 MiB stream-ordered reads copied by this kernel went from 37.5-38.1 GiB/s with
// 256 blocks to 40.7-41.1 with 32 (bench/results/h200-2026-12-04-b).
inline constexpr char kCopyTableKernelName[] = "hipfile_copy_table";
inline constexpr unsigned kCopyTableBlocks = 32;
// The run kernel (CopyTableRunAsync): kCopyTableBlocks blocks where the first table ends the
// operation's copies, one block for the tokens of a run that goes on.
inline constexpr char kCopyTableRunKernelName[] = "hipfile_copy_table_run";

// Both kernels take a CopyTable (gpu_runtime.h): the gather kernel by value (its parameter), the
// table kernel by address. copy_kernel_body.h declares the same layout for the kernels.
static_assert(sizeof(CopyTable) == 16 + 24 * CopyTable::kMaxCopies, "the kernels' layout");
static_assert(sizeof(CopyTable) == sizeof(kernels::GatherArgs) &&
                  offsetof(CopyTable, count) == offsetof(kernels::GatherArgs, count) &&
                  offsetof(CopyTable, token) == offsetof(kernels::GatherArgs, token) &&
                  offsetof(CopyTable, last) == offsetof(kernels::GatherArgs, last) &&
                  offsetof(CopyTable, copy) == offsetof(kernels::GatherArgs, op) &&
                  CopyTable::kMaxCopies ==
                      sizeof(kernels::GatherArgs::op) / sizeof(kernels::GatherCopy),
              "the kernels' layout");
static_assert(sizeof(CopyTable) <= 4096, "kernel parameters are limited to 4 KiB");

// PTX (ISA 7.0, sm_75) of hipfile_gather_copy, hipfile_copy_table and hipfile_copy_table_run.
extern const char kGatherKernelPtx[];

}  // namespace hipfile::runtime
