// SPDX-License-Identifier: MIT
#include "engine/copy_wait.h"

#include <atomic>
#include <optional>

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

// Polls until the copies are done (their status) or the spin ends (nullopt).
std::optional<Status> Poll(runtime::GpuRuntime& gpu, platform::Sys& sys, const Lane& lane,
                           const CopyWaitPolicy& policy,
                           std::chrono::steady_clock::time_point deadline) {
  if (lane.word != nullptr && policy.spin.count() > 0) {
    const uint32_t number = lane.word[1] + 1;
    if (gpu.StreamWriteValue32(lane.stream, &lane.word[0], number) == hipSuccess) {
      lane.word[1] = number;
      // Without naps, 64 looks at the word between two at the clock: the copy takes
      // microseconds.
      for (unsigned i = 1;; ++i) {
        if (Reached(&lane.word[0], number)) return Status::Ok();
        if (policy.nap.count() > 0) {
          if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
          sys.Nap(policy.nap);
          continue;
        }
        if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        Pause();
      }
    }
    // Refused: the stream is polled instead.
  }
  for (;;) {
    const hipError_t e = gpu.StreamQuery(lane.stream);
    if (e != hipErrorNotReady) return Status::FromGpu(e);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    if (policy.nap.count() > 0) sys.Nap(policy.nap);
  }
}

}  // namespace

Status WaitForLane(runtime::GpuRuntime& gpu, platform::Sys& sys, const Lane& lane,
                   const CopyWaitPolicy& policy) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::optional<Status> done = Poll(gpu, sys, lane, policy, start + policy.spin);
  // The clock is read again only for a wait that is counted.
  const auto polled = policy.counts != nullptr ? Clock::now() : start;
  if (done.has_value()) {
    if (policy.counts != nullptr) policy.counts->Waited(false, polled - start, {});
    return *done;
  }
  const Status slept = Sleep(gpu, lane);
  if (policy.counts != nullptr) policy.counts->Waited(true, polled - start, Clock::now() - polled);
  return slept;
}

}  // namespace hipfile::engine
