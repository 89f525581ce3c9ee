// SPDX-License-Identifier: MIT
#include "engine/worker_pool.h"

#include <errno.h>

#include <new>
#include <utility>

#include "util/exception_status.h"
#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::engine {

WorkerPool::~WorkerPool() {
  std::vector<std::thread> threads;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.NotifyAll();
  for (std::thread& t : threads) {
    if (t.joinable()) t.join();
  }
}

size_t WorkerPool::running() const {
  MutexLock lock(mu_);
  return running_;
}

void WorkerPool::Resize(size_t threads) {
  {
    MutexLock lock(mu_);
    if (threads == size()) return;
    size_.store(threads, std::memory_order_relaxed);
  }
  ready_.NotifyAll();  // those past the new size leave
}

Status WorkerPool::Start() {
  MutexLock lock(mu_);
  return StartLocked();
}

Status WorkerPool::StartLocked() {
  if (unwinding_) return Status::Errno(EAGAIN);  // another call's start just failed
  const size_t size = this->size();              // changes only under mu_
  if (running_ >= size) return Status::Ok();
  // Everything this call may need, allocated first: a failure afterwards must not leave a
  // thread started and untracked.
  std::vector<size_t> started;
  std::vector<std::thread> leaving;
  try {
    if (states_.size() < size) states_.resize(size, ThreadState::kNone);
    if (threads_.size() < size) threads_.resize(size);
    started.reserve(size);
    leaving.reserve(size);
  } catch (const std::bad_alloc&) {
    return Status::Errno(ENOMEM);
  }
  for (size_t i = 0; i < size; ++i) {
    if (states_[i] == ThreadState::kRunning) continue;
    // A thread that left is joined before its index runs again: it set its state with mu_ held
    // and touches nothing after, so the join is short.
    if (threads_[i].joinable()) threads_[i].join();
    Result<std::thread> thread = sys_.StartThread([this, i] { Work(i); });
    if (thread.ok()) {
      threads_[i] = std::move(thread).value();
      states_[i] = ThreadState::kRunning;
      ++running_;
      started.push_back(i);
      continue;
    }
    // All or none: the ones this call started wait on mu_, which this thread holds. Let them see
    // they must leave, join them, and leave the pool startable again.
    for (size_t j : started) states_[j] = ThreadState::kLeaving;
    unwinding_ = true;
    for (size_t j : started) leaving.push_back(std::move(threads_[j]));
    {
      MutexUnlock unlocked(mu_);
      ready_.NotifyAll();
      for (std::thread& t : leaving) t.join();
    }
    unwinding_ = false;
    HF_LOG(kWarn,
           "starting I/O thread %zu of %zu failed (errno %d); the work goes to the threads "
           "running, or to the calling thread",
           i + 1, size, thread.status().code());
    return thread.status();
  }
  return Status::Ok();
}

Status WorkerPool::Push(TaskGroup* group, std::function<void()>&& run) {
  {
    MutexLock lock(mu_);
    HF_RETURN_IF_ERROR(StartLocked());
    try {
      queue_.push_back(Task{group, std::move(run)});
    } catch (const std::bad_alloc&) {
      return Status::Errno(ENOMEM);
    }
  }
  ready_.NotifyOne();
  return Status::Ok();
}

bool WorkerPool::TakeQueued(const TaskGroup* group, std::function<void()>* run) {
  MutexLock lock(mu_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->group != group) continue;
    *run = std::move(it->run);
    queue_.erase(it);
    return true;
  }
  return false;
}

void WorkerPool::Work(size_t index) {
  NameThisThread(name_, static_cast<int>(index));  // until its first task names it by role
  const char* named_for = nullptr;
  MutexLock lock(mu_);
  for (;;) {
    while (queue_.empty() && !stopping_ && !MustLeaveLocked(index)) ready_.Wait(mu_);
    // One a failed start unwinds leaves at once; one past the size, and every one when the pool
    // stops, once nothing is queued.
    if (states_[index] == ThreadState::kLeaving || queue_.empty()) {
      states_[index] = ThreadState::kNone;
      --running_;
      return;
    }
    Task task = std::move(queue_.front());
    queue_.pop_front();
    MutexUnlock unlocked(mu_);
    TaskGroup* group = task.group;
    if (group->role_ != named_for) {
      named_for = group->role_;
      NameThisThread(named_for, static_cast<int>(index));
    }
    try {
      task.run();
    } catch (...) {
      (void)CurrentExceptionStatus(group->role_);  // logged; the task's own caller saw nothing
    }
    task.run = nullptr;  // what it holds goes before the group hears it finished
    group->Finished();
  }
}

Status TaskGroup::Submit(std::function<void()> task) {
  if (pool_.size() == 0) {
    task();
    return Status::Ok();
  }
  state_.fetch_add(1);
  const Status queued = pool_.Push(this, std::move(task));
  if (!queued.ok()) Finished();
  return queued;
}

void TaskGroup::Finished() {
  // With no drainer counted, the task's end is one compare-and-swap and the group is not touched
  // after it: a drainer that sees the count reach 0 may destroy the group at once. With one, the
  // count goes down under mu_, so the drainer (which looks at it only under mu_) sees 0 only once
  // this thread has let go of mu_ and of the group.
  size_t state = state_.load();
  while ((state & kDrainerMask) == 0) {
    if (state_.compare_exchange_weak(state, state - 1)) return;
  }
  MutexLock lock(mu_);
  if (((state_.fetch_sub(1) - 1) & kPendingMask) == 0) idle_.NotifyAll();
}

void TaskGroup::Drain() {
  std::function<void()> run;
  while (pool_.TakeQueued(this, &run)) {
    try {
      run();
    } catch (...) {
      (void)CurrentExceptionStatus(role_);
    }
    run = nullptr;
    Finished();
  }
  MutexLock lock(mu_);
  state_.fetch_add(kOneDrainer);
  while ((state_.load() & kPendingMask) != 0) idle_.Wait(mu_);
  state_.fetch_sub(kOneDrainer);
}

}  // namespace hipfile::engine
