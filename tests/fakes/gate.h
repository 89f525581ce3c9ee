// SPDX-License-Identifier: MIT
// StreamGate: holds a stream in a host function until the test opens it, so a test can change
// state (arguments, registrations, the driver) while work queued behind it has not run yet.
#pragma once

#include <future>

namespace hipfile::testing {

class StreamGate {
 public:
  // The host function: pass &gate as its argument.
  static void Wait(void* gate) { static_cast<StreamGate*>(gate)->opened_.wait(); }
  void Open() { open_.set_value(); }

 private:
  std::promise<void> open_;
  std::shared_future<void> opened_ = open_.get_future().share();
};

}  // namespace hipfile::testing
