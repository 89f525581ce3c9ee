// SPDX-License-Identifier: MIT
// WaitForLane: waits for the work queued on a copy lane without keeping a core busy longer than
// it pays.
//
// A copy of a few KiB finishes in microseconds, and a sleeping wait costs a wake-up (an
// interrupt, tens of microseconds): so the wait first polls the stream for up to `spin`; past
// that it records the lane's blocking-sync event and sleeps on it. With a nap, the polls are that
// far apart and the thread sleeps in between (a timer sleep of a few microseconds, which costs a
// context switch but neither a core nor CUDA's event thread). A synchronous stream wait
// would spin for the whole copy instead (CUDA's default for a context shared with the program):
// measured on the H200, 4 KiB reads kept 14 cores busy for 560k IOPS that way.
//
// Every poll of the stream enters the driver, which on CUDA takes a lock shared by the whole
// context: with 16 threads each polling its lane, the polls contend with each other and with
// every other call the program makes. A lane with a word (StreamPool, HIPFILE_COPY_WAIT=word)
// is waited for instead by asking its stream to write the next number to the word once the
// copies before are done (one stream memory operation) and polling the word in memory; past
// `spin`, the event as before. A stream that fails never writes the number: its error comes
// from the event.
//
// Each wait may be told to a CopyWaitCounts (the library's statistics, hipFileExtGetCopyWaitStats):
// whether it slept, how long it polled and how long it slept, so that a program can see whether
// its copies finish within the spin or wake threads from the event (docs/stats.md).
#pragma once

#include <chrono>
#include <cstdint>

#include "engine/stream_pool.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::engine {

// Where a wait is counted; the engine only tells it. Called on the waiting thread, once a wait
// has ended (its copies done, or failed).
class CopyWaitCounts {
 public:
  // `slept`: the copies were not done within the spin and the wait slept on the event (or the
  // stream); `polled`: the time spent polling (a busy core, but for any naps between polls),
  // `asleep` the time spent sleeping.
  virtual void Waited(bool slept, std::chrono::nanoseconds polled,
                      std::chrono::nanoseconds asleep) = 0;

 protected:
  ~CopyWaitCounts() = default;
};

struct CopyWaitPolicy {
  std::chrono::microseconds spin{20};  // how long to poll before sleeping on the event
  std::chrono::microseconds nap{0};    // sleep between two polls (Sys::Nap); 0: back to back
  CopyWaitCounts* counts = nullptr;    // told of each wait; null: none
};

// Ok once everything queued on lane.stream finished; the failure (Status::Gpu) otherwise.
Status WaitForLane(runtime::GpuRuntime& gpu, platform::Sys& sys, const Lane& lane,
                   const CopyWaitPolicy& policy);

}  // namespace hipfile::engine
