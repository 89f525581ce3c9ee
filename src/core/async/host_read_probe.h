// SPDX-License-Identifier: MIT
// How fast a device reads pinned host memory by DMA and by the library's copy kernel: the
// measurement by which stream-ordered reads past their share of the device memory budget choose
// their way on a device (docs/async.md, "Parts or the windows' way, by measurement"). Copied ahead
// in parts, a read crosses the link by DMA and then moves within the device; the windows' way has
// the copy kernel read it from the pinned page-cache windows. Which is faster is the host's: its
// kernels read pinned memory at 0.6x DMA on one H100 host and 0.95x on an H200 host, the same
// kernels, the same driver.
#pragma once

#include <cstddef>

#include "runtime/gpu_runtime.h"

namespace hipfile::core {

struct HostReadRates {
  double dma_gib_s = 0;     // MemcpyAsync, host to device
  double kernel_gib_s = 0;  // CopyTableAsync
  // The kernel's rate as a share of DMA's (0 where DMA's is unknown).
  double KernelShare() const { return dma_gib_s > 0 ? kernel_gib_s / dma_gib_s : 0; }
};

// Streams the probe copies on at once: as many reads as the copy kernel runs at once on CUDA's
// default hardware queues (CUDA_DEVICE_MAX_CONNECTIONS); one launch of the kernel alone reads host
// memory far slower than the link, so only launches side by side say what the link gives it.
inline constexpr size_t kHostReadProbeStreams = 8;
// Bytes of pinned host memory the probe needs for its tables, ahead of the data.
inline constexpr size_t kHostReadProbeTableBytes =
    kHostReadProbeStreams * sizeof(runtime::CopyTable);

// Copies `bytes` from `host` (pinned host memory) into `device` (memory of the calling thread's
// current device), kHostReadProbeStreams slices side by side on streams of the probe's own, by
// DMA and then by the copy kernel, `rounds` times each after one untimed round of both, and puts
// each way's best rate in *rates. `tables` is pinned host memory of kHostReadProbeTableBytes
// (the kernel reads its copies there). Waits for its own streams only; destroys what it made,
// whatever failed. The first error, if any (*rates is then untouched); hipErrorInvalidValue
// where `bytes` is not a positive multiple of 4096 * kHostReadProbeStreams.
hipError_t MeasureHostReads(runtime::GpuRuntime& gpu, const void* host, void* device, size_t bytes,
                            runtime::CopyTable* tables, int rounds, HostReadRates* rates);

// The kernel's share of DMA's rate at and above which reads past their share take the windows'
// way: there it read 16 x 256 MiB queued at 0.91-0.93x the synchronous path against 0.82-0.87x in
// parts (H200, kernel 0.95x DMA), and in parts 0.88x against 0.64x on the H100 host at 0.6x.
inline constexpr double kWindowsFromKernelShare = 0.9;

}  // namespace hipfile::core
