// SPDX-License-Identifier: MIT
// ReapQueue: what the stream-ordered executor destroys off its workers (finished operations, the
// window leases of copies made), on the reaper's thread, batched: one reaper task takes every
// thing queued meanwhile, so a burst of completions wakes the reaper once instead of once each.
//
// Destroying a finished operation may free or unpin memory (its file's or buffer's last
// reference), which on CUDA waits for every stream; so it never happens on a worker or the
// poller while they still have streams to release (AsyncExecutor's header comment). Here, as
// with TaskGroup::PostOrRun before, a thing is destroyed on the calling thread only where no
// memory is left to queue it.
#pragma once

#include <memory>
#include <vector>

#include "engine/worker_pool.h"
#include "util/mutex.h"

namespace hipfile::core {

class ReapQueue {
 public:
  // `reaper` (one thread of its own) must outlive the queue's use; its Drain (or destruction)
  // runs the queue's last task.
  explicit ReapQueue(engine::TaskGroup& reaper) : reaper_(reaper) {}
  ~ReapQueue();  // destroys what is left (nothing, once the reaper was drained)
  ReapQueue(const ReapQueue&) = delete;
  ReapQueue& operator=(const ReapQueue&) = delete;

  // Destroys `gone` on the reaper's thread, soon. Never throws.
  template <class T>
  void Reap(std::unique_ptr<T> gone) noexcept {
    if (gone != nullptr) Push(Item{gone.release(), [](void* p) { delete static_cast<T*>(p); }});
  }

 private:
  struct Item {
    void* thing;
    void (*destroy)(void*);
  };
  void Push(Item item) noexcept EXCLUDES(mu_);
  void Drain() EXCLUDES(mu_);  // the reaper's task: until nothing is queued

  engine::TaskGroup& reaper_;
  Mutex mu_;
  std::vector<Item> queued_ GUARDED_BY(mu_);
  bool posted_ GUARDED_BY(mu_) = false;  // a Drain task is queued or running
};

}  // namespace hipfile::core
