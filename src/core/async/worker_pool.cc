// SPDX-License-Identifier: MIT
#include "core/async/worker_pool.h"

#include <utility>

#include "util/exception_status.h"
#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::core {

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(platform::Sys& sys, unsigned threads,
                                                      const char* role) {
  if (threads == 0) threads = 1;
  std::unique_ptr<WorkerPool> pool(new WorkerPool(role));
  pool->threads_.reserve(threads);
  WorkerPool* self = pool.get();
  for (unsigned i = 0; i < threads; ++i) {
    Result<std::thread> thread = sys.StartThread([self, i] { self->Run(i); });
    if (!thread.ok()) {
      HF_LOG(kWarn, "starting thread %u of %u for hf-%s failed: errno %d", i + 1, threads, role,
             thread.status().code());
      pool->Stop();
      return thread.status();
    }
    pool->threads_.push_back(std::move(thread).value());
  }
  return pool;
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Stop() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  cv_.NotifyAll();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::Push(std::function<void()> task) {
  {
    MutexLock lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  cv_.NotifyOne();
}

void WorkerPool::Run(unsigned index) {
  NameThisThread(role_, static_cast<int>(index));
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(mutex_);
      while (!stopping_ && tasks_.empty()) cv_.Wait(mutex_);
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (...) {
      (void)CurrentExceptionStatus(role_);  // logged; the task's own caller saw nothing
    }
  }
}

}  // namespace hipfile::core
