// SPDX-License-Identifier: MIT
// WorkerPool: a fixed set of threads running queued tasks in submission order of pickup.
//
// Start makes all its threads or none: when the system refuses one (a process limit, no memory
// for a stack), the threads already started are joined and the refusal returned, so a caller can
// fail its call and try again later. Tasks should catch what they throw (they know which
// operation to fail); a task that throws anyway is logged and dropped, and the thread carries on.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "platform/sys.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {

class WorkerPool {
 public:
  // `threads` threads (at least 1), started through sys and named hf-<role>-<index>
  // (util/thread_name.h); role must outlive the pool.
  static Result<std::unique_ptr<WorkerPool>> Start(platform::Sys& sys, unsigned threads,
                                                   const char* role);
  ~WorkerPool();  // runs every queued task, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues a copy of `task`; false, queueing nothing, when memory for it cannot be had.
  template <class Task>
  bool TryPost(const Task& task) noexcept {
    try {
      Push(std::function<void()>(task));
      return true;
    } catch (...) {
      return false;
    }
  }
  // Queues `task`, or runs it on the calling thread when it cannot be queued: for work that must
  // happen (an operation's completion) however short of memory the process is.
  template <class Task>
  void PostOrRun(const Task& task) {
    if (!TryPost(task)) task();
  }
  unsigned size() const { return static_cast<unsigned>(threads_.size()); }

 private:
  explicit WorkerPool(const char* role) : role_(role) {}
  void Push(std::function<void()> task) EXCLUDES(mutex_);
  void Run(unsigned index) EXCLUDES(mutex_);
  // Stops and joins the threads started so far.
  void Stop() EXCLUDES(mutex_);

  const char* const role_;
  Mutex mutex_;
  CondVar cv_;
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mutex_);
  bool stopping_ GUARDED_BY(mutex_) = false;
  std::vector<std::thread> threads_;  // set by Start only
};

}  // namespace hipfile::core
