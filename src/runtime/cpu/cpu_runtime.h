// The CPU runtime: a GpuRuntime for machines without a GPU.
//
// One emulated device (device 0). Device memory is page-aligned host memory that the runtime
// tracks, so PointerGetInfo reports it as hipMemoryTypeDevice with its allocation range; pinned
// host memory (HostMalloc / HostRegister) is reported as hipMemoryTypeHost. Each stream is an
// in-order worker thread; the default stream is one more such worker. Events record a point in a
// stream and its completion time. Host functions run on the stream's worker.
#pragma once

#include <memory>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime {

std::unique_ptr<GpuRuntime> CreateCpuRuntime();

}  // namespace hipfile::runtime
