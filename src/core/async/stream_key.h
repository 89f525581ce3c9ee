// SPDX-License-Identifier: MIT
// StreamKey: how the executor names a stream in its maps (channels, registrations). A handle
// names one stream in every thread, except hipStreamPerThread, which names the calling thread's
// default stream: its key carries the thread too, so that two threads' per-thread streams get a
// channel each and never share sequence numbers (a stream reaching a number would release the
// other thread's operations before their stream got there).
#pragma once

#include <cstdint>
#include <tuple>

#include "runtime/gpu_runtime.h"

namespace hipfile::core {

struct StreamKey {
  runtime::Stream stream = nullptr;
  // For hipStreamPerThread, the number of the thread that named it (never reused in a process:
  // a thread started where one ended has a new default stream); 0 for every other handle.
  uint64_t thread = 0;

  // `stream` as the calling thread names it.
  static StreamKey Of(runtime::Stream stream);

  friend bool operator<(const StreamKey& a, const StreamKey& b) {
    return std::tie(a.stream, a.thread) < std::tie(b.stream, b.thread);
  }
  friend bool operator==(const StreamKey& a, const StreamKey& b) {
    return a.stream == b.stream && a.thread == b.thread;
  }
};

}  // namespace hipfile::core
