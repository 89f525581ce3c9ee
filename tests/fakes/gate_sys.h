// SPDX-License-Identifier: MIT
// GateSys: a FaultSys whose Pread and Pwrite wait while its gate is closed, so that a test can
// hold a transfer in flight (a batch entry Running, a stream-ordered read started) and change
// the world under it. The gate is open until CloseGate.
#pragma once

#include <errno.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include "fakes/fault_sys.h"

namespace hipfile::testing {

// A FaultSys whose Pread and Pwrite wait while the gate is closed. Thread-safe.
class GateSys : public FaultSys {
 public:
  void CloseGate() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
  }
  void OpenGate() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // Waits until `n` calls are held at the gate; false after 5 s.
  bool WaitHeld(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] { return held_ >= n; });
  }
  size_t Held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    Pass();
    return FaultSys::Pread(fd, buf, size, offset);
  }
  // No io_uring: every read and write goes through Pread / Pwrite, where the gate holds it.
  Result<std::unique_ptr<platform::IoRing>> CreateIoRing(unsigned) override {
    return Status::Errno(ENOSYS);
  }
  Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) override {
    Pass();
    return FaultSys::Pwrite(fd, buf, size, offset);
  }

 private:
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    if (open_) return;
    ++held_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    --held_;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  size_t held_ = 0;
};

}  // namespace hipfile::testing
