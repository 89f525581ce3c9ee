// SPDX-License-Identifier: MIT
#include "engine/copy_wait.h"

namespace hipfile::engine {

Status WaitForLane(runtime::GpuRuntime& gpu, platform::Sys& sys, const Lane& lane,
                   const CopyWaitPolicy& policy) {
  const auto deadline = std::chrono::steady_clock::now() + policy.spin;
  for (;;) {
    const hipError_t e = gpu.StreamQuery(lane.stream);
    if (e != hipErrorNotReady) return Status::FromGpu(e);
    if (std::chrono::steady_clock::now() >= deadline) break;
    if (policy.nap.count() > 0) sys.Nap(policy.nap);
  }
  // Without the event the stream is waited for directly: returning before the copy finished
  // would hand its staging buffer (and the caller's memory) back while the copy still runs.
  if (gpu.EventRecord(lane.done, lane.stream) != hipSuccess) {
    return Status::FromGpu(gpu.StreamSynchronize(lane.stream));
  }
  return Status::FromGpu(gpu.EventSynchronize(lane.done));
}

}  // namespace hipfile::engine
