// SPDX-License-Identifier: MIT
// StreamGate: holds a stream in a host function until the test opens it, so a test can change
// state (arguments, registrations, the driver) while work queued behind it has not run yet; it can
// also fill memory as it lets the stream go (device memory is host memory on the CPU runtime), as
// work of the program's own ahead of what the test queues behind it.
#pragma once

#include <cstddef>
#include <cstring>
#include <future>

namespace hipfile::testing {

class StreamGate {
 public:
  // The host function: pass &gate as its argument.
  static void Wait(void* gate) {
    auto* self = static_cast<StreamGate*>(gate);
    self->opened_.wait();
    if (self->fill_ != nullptr) std::memset(self->fill_, 0x11, self->fill_bytes_);
  }
  void Open() { open_.set_value(); }
  // When opened, the host function fills `bytes` at `at` with 0x11 before the stream goes on.
  void FillOnOpen(void* at, size_t bytes) {
    fill_ = at;
    fill_bytes_ = bytes;
  }

 private:
  void* fill_ = nullptr;
  size_t fill_bytes_ = 0;
  std::promise<void> open_;
  std::shared_future<void> opened_ = open_.get_future().share();
};

}  // namespace hipfile::testing
