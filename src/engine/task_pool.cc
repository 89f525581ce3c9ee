// SPDX-License-Identifier: MIT
#include "engine/task_pool.h"

#include <errno.h>

#include <new>
#include <utility>

#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::engine {

TaskPool::~TaskPool() {
  std::vector<std::thread> threads;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.NotifyAll();
  for (std::thread& t : threads) t.join();
}

Status TaskPool::StartLocked() {
  threads_.reserve(size_);
  for (size_t i = 0; i < size_; ++i) {
    Result<std::thread> thread = sys_.StartThread([this, i] { Work(i); });
    if (thread.ok()) {
      threads_.push_back(std::move(thread).value());
      continue;
    }
    // The started ones wait on mu_, which this thread holds: let them see stopping_ and leave,
    // then make the pool startable again.
    stopping_ = true;
    joining_ = true;
    std::vector<std::thread> started;
    started.swap(threads_);
    {
      MutexUnlock unlocked(mu_);
      ready_.NotifyAll();
      for (std::thread& t : started) t.join();
    }
    stopping_ = false;
    joining_ = false;
    HF_LOG(kWarn,
           "starting engine worker %zu of %zu failed (errno %d); the calling thread moves the "
           "data alone",
           i + 1, size_, thread.status().code());
    return thread.status();
  }
  return Status::Ok();
}

Status TaskPool::Submit(std::function<void()> task) {
  if (size_ == 0) {
    task();
    return Status::Ok();
  }
  {
    MutexLock lock(mu_);
    if (threads_.empty()) {
      if (joining_) return Status::Errno(EAGAIN);  // another Submit's start just failed
      const Status started = StartLocked();
      if (!started.ok()) return started;
    }
    try {
      queue_.push_back(std::move(task));
    } catch (const std::bad_alloc&) {
      return Status::Errno(ENOMEM);
    }
  }
  ready_.NotifyOne();
  return Status::Ok();
}

void TaskPool::Work(size_t index) {
  NameThisThread(role_, static_cast<int>(index));
  MutexLock lock(mu_);
  for (;;) {
    while (!stopping_ && queue_.empty()) ready_.Wait(mu_);
    if (queue_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    MutexUnlock unlocked(mu_);
    task();
  }
}

}  // namespace hipfile::engine
