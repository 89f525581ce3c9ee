// SPDX-License-Identifier: MIT
#include "runtime/cpu/stream_worker.h"

#include <utility>

#include "util/thread_name.h"

namespace hipfile::runtime::cpu {

StreamWorker::StreamWorker(unsigned flags, unsigned queue, int device)
    : flags_(flags), hw_queue_(queue), device_(device), thread_([this] {
        NameThisThread("cpu-stream");
        Loop();
      }) {}

StreamWorker::~StreamWorker() {
  Close();
  thread_.join();
}

SyncPoint StreamWorker::Submit(std::vector<SyncPoint> waits, std::function<void()> task) {
  uint64_t seq;
  {
    MutexLock lock(mu_);
    // Numbered under mu_ so that queue order and sequence order agree; queued first, so that a
    // queue that cannot grow (std::bad_alloc, thrown to the caller) leaves no number behind that
    // the stream would wait for.
    queue_.push_back(Task{0, std::move(waits), std::move(task)});
    seq = timeline_->Advance();
    queue_.back().seq = seq;
  }
  cv_.NotifyOne();
  return SyncPoint{timeline_, seq};
}

void StreamWorker::Close() {
  {
    MutexLock lock(mu_);
    closed_ = true;
  }
  cv_.NotifyOne();
}

bool StreamWorker::Finished() const {
  MutexLock lock(mu_);
  return finished_;
}

void StreamWorker::Loop() {
  for (;;) {
    Task task;
    {
      MutexLock lock(mu_);
      while (!closed_ && queue_.empty()) cv_.Wait(mu_);
      if (queue_.empty()) {
        finished_ = true;
        return;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    for (const SyncPoint& point : task.waits) point.Wait();
    task.run();
    timeline_->Complete(task.seq);
  }
}

}  // namespace hipfile::runtime::cpu
