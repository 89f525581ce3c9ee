// SPDX-License-Identifier: MIT
// StreamWorker: one emulated stream, an in-order queue of tasks run by one thread.
//
// Each task first waits for its SyncPoints (other streams' work, events), then runs; the next task
// starts only after it returns. A task that blocks therefore blocks only this stream.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/cpu/timeline.h"
#include "util/mutex.h"

namespace hipfile::runtime::cpu {

class StreamWorker {
 public:
  // `queue`: the hardware queue it shares with other streams of its device (CpuRuntimeOptions),
  // if any; `device`: the device it belongs to (the one current when it was made).
  explicit StreamWorker(unsigned flags, unsigned queue = 0, int device = 0);
  // Runs what is still queued, then joins the thread.
  ~StreamWorker();

  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  unsigned flags() const { return flags_; }
  unsigned queue() const { return hw_queue_; }
  int device() const { return device_; }
  const std::shared_ptr<Timeline>& timeline() const { return timeline_; }
  // The point of the latest submitted task (reached at once when nothing was submitted).
  SyncPoint Last() const { return SyncPoint{timeline_, timeline_->submitted()}; }

  // Queues task to run once every point in waits is reached and earlier tasks have returned.
  SyncPoint Submit(std::vector<SyncPoint> waits, std::function<void()> task);

  // Stops taking work; the thread exits once the queue is empty. Finished() then turns true.
  void Close();
  bool Finished() const;

 private:
  struct Task {
    uint64_t seq;
    std::vector<SyncPoint> waits;
    std::function<void()> run;
  };

  void Loop() EXCLUDES(mu_);

  const unsigned flags_;
  const unsigned hw_queue_;
  const int device_;
  const std::shared_ptr<Timeline> timeline_ = std::make_shared<Timeline>();
  mutable Mutex mu_;
  CondVar cv_;
  std::deque<Task> queue_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
  bool finished_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // started last, after every member it reads
};

}  // namespace hipfile::runtime::cpu
