// WorkerPool: a fixed set of threads running queued tasks in submission order of pickup.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfile::core {

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();  // runs every queued task, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Post(std::function<void()> task);
  unsigned size() const { return static_cast<unsigned>(threads_.size()); }
  // Threads waiting for a task right now (a hint: it changes as soon as it is read).
  unsigned idle() const { return idle_.load(std::memory_order_relaxed); }

 private:
  void Run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable started_;  // a thread became idle (the constructor waits for all)
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::atomic<unsigned> idle_{0};
  std::vector<std::thread> threads_;
};

}  // namespace hipfile::core
