// SPDX-License-Identifier: MIT
#include "core/async/reap_queue.h"

#include <utility>

namespace hipfile::core {

ReapQueue::~ReapQueue() {
  MutexLock lock(mu_);
  for (const Item& item : queued_) item.destroy(item.thing);
}

void ReapQueue::Push(Item item) noexcept {
  bool post = false;
  {
    MutexLock lock(mu_);
    try {
      queued_.push_back(item);
    } catch (...) {
      // No room in the queue: a task of its own, or here (as TaskGroup::PostOrRun does).
      MutexUnlock unlocked(mu_);
      reaper_.PostOrRun([item] { item.destroy(item.thing); });
      return;
    }
    post = !std::exchange(posted_, true);
  }
  if (post && !reaper_.TryPost([this] { Drain(); })) Drain();
}

void ReapQueue::Drain() {
  std::vector<Item> batch;
  for (;;) {
    {
      MutexLock lock(mu_);
      if (queued_.empty()) {
        posted_ = false;
        return;
      }
      batch.swap(queued_);  // queued_ gets the last batch's room back
    }
    for (const Item& item : batch) item.destroy(item.thing);
    batch.clear();
  }
}

}  // namespace hipfile::core
