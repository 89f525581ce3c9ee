// SPDX-License-Identifier: MIT
#include "engine/task_pool.h"

#include <utility>

#include "util/thread_name.h"

namespace hipfile::engine {

TaskPool::~TaskPool() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (std::thread& t : threads) t.join();
}

void TaskPool::Submit(std::function<void()> task) {
  if (size_ == 0) {
    task();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (threads_.empty()) {
      threads_.reserve(size_);
      for (size_t i = 0; i < size_; ++i) threads_.emplace_back([this, i] { Work(i); });
    }
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void TaskPool::Work(size_t index) {
  NameThisThread(role_, static_cast<int>(index));
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace hipfile::engine
