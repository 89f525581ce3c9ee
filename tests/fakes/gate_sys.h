// SPDX-License-Identifier: MIT
// GateSys: a FaultSys whose Pread and Pwrite wait while its gate is closed (and whose PreadCached
// finds nothing cached meanwhile), so that a test can
// hold a transfer in flight (a batch entry Running, a stream-ordered read started) and change
// the world under it. The gate is open until CloseGate.
#pragma once

#include <errno.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <thread>

#include "fakes/fault_sys.h"
#include "util/mutex.h"

namespace hipfile::testing {

// A FaultSys whose Pread and Pwrite wait while the gate is closed. Thread-safe.
class GateSys : public FaultSys {
 public:
  void CloseGate() {
    MutexLock lock(mu_);
    open_ = false;
  }
  void OpenGate() {
    {
      MutexLock lock(mu_);
      open_ = true;
    }
    cv_.NotifyAll();
  }
  // Waits until `n` calls are held at the gate; false after 5 s.
  bool WaitHeld(size_t n) {
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (held_ < n) {
      if (!cv_.WaitUntil(mu_, deadline)) return held_ >= n;
    }
    return true;
  }
  size_t Held() {
    MutexLock lock(mu_);
    return held_;
  }
  // The thread of the last call the gate held (a default id before any).
  std::thread::id LastHeldThread() {
    MutexLock lock(mu_);
    return last_held_;
  }

  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    Pass();
    return FaultSys::Pread(fd, buf, size, offset);
  }
  // While the gate is closed nothing is "in the page cache": a read that would take its bytes
  // without waiting (a stream-ordered read at submission) takes the way Pread holds instead.
  Result<size_t> PreadCached(int fd, void* buf, size_t size, off_t offset) override {
    {
      MutexLock lock(mu_);
      if (!open_) return Status::Errno(EAGAIN);
    }
    return FaultSys::PreadCached(fd, buf, size, offset);
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
    MutexLock lock(mu_);
    if (open_) return;
    ++held_;
    last_held_ = std::this_thread::get_id();
    cv_.NotifyAll();
    while (!open_) cv_.Wait(mu_);
    --held_;
  }

  Mutex mu_;
  CondVar cv_;
  bool open_ GUARDED_BY(mu_) = true;
  size_t held_ GUARDED_BY(mu_) = 0;
  std::thread::id last_held_ GUARDED_BY(mu_);
};

}  // namespace hipfile::testing
