// SPDX-License-Identifier: MIT
#include "engine/copy_wait.h"

#include <atomic>

namespace hipfile::engine {
namespace {

// Ok, or the error of the wait that sleeps: on the lane's event, or without one the stream.
Status Sleep(runtime::GpuRuntime& gpu, const Lane& lane) {
  // Without the event the stream is waited for directly: returning before the copy finished
  // would hand its staging buffer (and the caller's memory) back while the copy still runs.
  if (gpu.EventRecord(lane.done, lane.stream) != hipSuccess) {
    return Status::FromGpu(gpu.StreamSynchronize(lane.stream));
  }
  return Status::FromGpu(gpu.EventSynchronize(lane.done));
}

bool Reached(const uint32_t* word, uint32_t number) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE) == number;
}

void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

Status WaitForLane(runtime::GpuRuntime& gpu, platform::Sys& sys, const Lane& lane,
                   const CopyWaitPolicy& policy) {
  const auto deadline = std::chrono::steady_clock::now() + policy.spin;
  if (lane.word != nullptr && policy.spin.count() > 0) {
    const uint32_t number = lane.word[1] + 1;
    if (gpu.StreamWriteValue32(lane.stream, &lane.word[0], number) == hipSuccess) {
      lane.word[1] = number;
      // Without naps, 64 looks at the word between two at the clock: the copy takes
      // microseconds.
      for (unsigned i = 1;; ++i) {
        if (Reached(&lane.word[0], number)) return Status::Ok();
        if (policy.nap.count() > 0) {
          if (std::chrono::steady_clock::now() >= deadline) break;
          sys.Nap(policy.nap);
          continue;
        }
        if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) break;
        Pause();
      }
      return Sleep(gpu, lane);
    }
    // Refused: the stream is polled instead.
  }
  for (;;) {
    const hipError_t e = gpu.StreamQuery(lane.stream);
    if (e != hipErrorNotReady) return Status::FromGpu(e);
    if (std::chrono::steady_clock::now() >= deadline) break;
    if (policy.nap.count() > 0) sys.Nap(policy.nap);
  }
  return Sleep(gpu, lane);
}

}  // namespace hipfile::engine
