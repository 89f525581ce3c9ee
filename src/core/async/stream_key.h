// SPDX-License-Identifier: MIT
// StreamKey: how the executor names a stream in its maps (channels, registrations). A handle
// names one stream in every thread and on every device, except the two default streams: the null
// stream is the legacy default stream of the current device, and hipStreamPerThread the calling
// thread's default stream of the current device. Their keys carry the device, and the
// per-thread one the thread, so that each stream they name gets a channel of its own: streams
// sharing one would share sequence numbers, and one stream reaching its number would release
// another's operations before that stream got there.
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
  // For the default streams, the device current when named; -1 for every other handle.
  int device = -1;

  // Whether `stream` names a stream per device (the null stream, hipStreamPerThread).
  static bool PerDevice(runtime::Stream stream) {
    return stream == nullptr || runtime::IsPerThreadStream(stream);
  }
  // `stream` as the calling thread names it, `current_device` its current device (used only where
  // PerDevice(stream)).
  static StreamKey Of(runtime::Stream stream, int current_device);

  friend bool operator<(const StreamKey& a, const StreamKey& b) {
    return std::tie(a.stream, a.thread, a.device) < std::tie(b.stream, b.thread, b.device);
  }
  friend bool operator==(const StreamKey& a, const StreamKey& b) {
    return a.stream == b.stream && a.thread == b.thread && a.device == b.device;
  }
};

}  // namespace hipfile::core
