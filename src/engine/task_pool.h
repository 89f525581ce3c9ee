// SPDX-License-Identifier: MIT
// TaskPool: the engine's worker threads, which help the calling thread through a request's chunks.
//
// Lifetime: threads start on the first Submit (an engine that never splits a request never makes
// one) and are joined by the destructor, which first runs every task already queued. When the
// system refuses a thread (a process limit, no memory), Submit joins those it started and returns
// the refusal without queueing; the caller does the work itself, and a later Submit tries again.
// Tasks must not throw and must not wait for other tasks of the pool. Thread-safe.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "platform/sys.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

class TaskPool {
 public:
  // Its threads are started through sys and named hf-<role>-<index> (util/thread_name.h); sys and
  // role must outlive the pool.
  TaskPool(platform::Sys& sys, size_t threads, const char* role)
      : sys_(sys), size_(threads), role_(role) {}
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues `task` for a worker. With a pool of size 0 it runs on the caller, before returning.
  // Errors (nothing queued): the thread start's errno, ENOMEM when the queue cannot grow.
  Status Submit(std::function<void()> task);
  size_t size() const { return size_; }

 private:
  void Work(size_t index) EXCLUDES(mu_);
  // Starts every thread or none. Drops mu_ for a while when a start fails.
  Status StartLocked() REQUIRES(mu_);

  platform::Sys& sys_;
  const size_t size_;
  const char* const role_;
  Mutex mu_;
  CondVar ready_;
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool joining_ GUARDED_BY(mu_) = false;  // a failed start is unwinding
  std::vector<std::thread> threads_ GUARDED_BY(mu_);
};

}  // namespace hipfile::engine
