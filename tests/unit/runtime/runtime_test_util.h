// SPDX-License-Identifier: MIT
// Helpers for the runtime tests: gates that hold a stream in a host function, and bounded waits
// so that a broken runtime fails a test instead of hanging it.
#pragma once

#include <chrono>
#include <deque>
#include <future>
#include <thread>

#include "fakes/wait_until.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::testing {

// A host function that blocks its stream until Open(). Open() may be called once or more.
class Gate {
 public:
  static void Wait(void* gate) {
    std::shared_future<void> future = static_cast<Gate*>(gate)->future_;
    future.wait();
  }
  void Open() {
    if (!opened_) promise_.set_value();
    opened_ = true;
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
  bool opened_ = false;
};

// Gates that outlive the runtime's workers: declare before the runtime, OpenAll() in TearDown.
class Gates {
 public:
  Gate* New() { return &gates_.emplace_back(); }
  void OpenAll() {
    for (Gate& gate : gates_) gate.Open();
  }

 private:
  std::deque<Gate> gates_;
};

// True once the stream's work is done (StreamQuery), false after timeout.
inline bool StreamDrains(runtime::GpuRuntime& rt, runtime::Stream stream,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  return WaitUntil([&] { return rt.StreamQuery(stream) == hipSuccess; }, timeout);
}

}  // namespace hipfile::testing
