// SPDX-License-Identifier: MIT
// WorkerPool: a fixed set of threads running queued tasks in submission order of pickup.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfile::core {

class WorkerPool {
 public:
  // Its threads are named hf-<role>-<index> (util/thread_name.h); role must outlive the pool.
  WorkerPool(unsigned threads, const char* role);
  ~WorkerPool();  // runs every queued task, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Post(std::function<void()> task);
  unsigned size() const { return static_cast<unsigned>(threads_.size()); }

 private:
  void Run(unsigned index);

  const char* const role_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hipfile::core
