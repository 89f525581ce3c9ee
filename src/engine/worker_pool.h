// SPDX-License-Identifier: MIT
// WorkerPool: the library's I/O threads. A Driver owns one, and its engine's helpers, the
// stream-ordered executor's workers and batch runs all queue on it (each through a TaskGroup),
// so the process has one budget of I/O threads however it moves data (docs/architecture.md,
// "Threads").
//
// Threads start when the first task is queued (or at Start): every thread up to size(), or none.
// When the system refuses one (a process limit, no memory for a stack), those this call started
// are joined and the refusal returned, with nothing queued; a later call tries again. Resize sets
// the size: threads past it leave once they find nothing of theirs to do, and missing ones start
// with the next task. A thread names itself for the role of the group whose task it runs
// ("hf-async-3"), renaming only when the role changes. The destructor runs every queued task,
// then joins. Tasks must not wait for tasks queued after them (those may have no thread); what a
// task throws is logged and dropped. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "platform/sys.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

class TaskGroup;

class WorkerPool {
 public:
  // sys and name must outlive the pool. With size 0, tasks run on the thread that queues them. A
  // thread is called hf-<name>-<index> until its first task names it for its role.
  WorkerPool(platform::Sys& sys, size_t threads, const char* name = "io")
      : sys_(sys), name_(name), size_(threads) {}
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts every thread up to size() that is not running. Errors: the thread start's errno
  // (nothing started by this call is left running), ENOMEM.
  Status Start() EXCLUDES(mu_);
  void Resize(size_t threads) EXCLUDES(mu_);
  size_t size() const { return size_.load(std::memory_order_relaxed); }
  // Threads running now (started and not yet left).
  size_t running() const EXCLUDES(mu_);

 private:
  friend class TaskGroup;
  enum class ThreadState : uint8_t { kNone, kRunning, kLeaving };
  struct Task {
    TaskGroup* group;
    std::function<void()> run;
  };

  // Queues the task, starting the threads first where they are not running.
  Status Push(TaskGroup* group, std::function<void()>&& run) EXCLUDES(mu_);
  // Moves one of the group's queued tasks to *run; false when it has none queued.
  bool TakeQueued(const TaskGroup* group, std::function<void()>* run) EXCLUDES(mu_);
  void Work(size_t index) EXCLUDES(mu_);
  Status StartLocked() REQUIRES(mu_);
  bool MustLeaveLocked(size_t index) const REQUIRES(mu_) {
    return index >= size() || states_[index] == ThreadState::kLeaving;
  }

  platform::Sys& sys_;
  const char* const name_;
  mutable Mutex mu_;
  CondVar ready_;
  // Written under mu_; read without it by size() (every Submit asks).
  std::atomic<size_t> size_;
  std::deque<Task> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool unwinding_ GUARDED_BY(mu_) = false;  // a failed start is joining what it started
  size_t running_ GUARDED_BY(mu_) = 0;
  // Indexed by thread index; a thread left (kNone) is joined before its index starts again.
  std::vector<std::thread> threads_ GUARDED_BY(mu_);
  std::vector<ThreadState> states_ GUARDED_BY(mu_);
};

// TaskGroup: what one client (the engine, the stream-ordered executor, batch) queues on a pool,
// under its role's name. The destructor drains the group: it runs on the calling thread the
// group's tasks still queued and waits for those running, so nothing the tasks use goes before
// them. A group is never destroyed from one of its own tasks.
class TaskGroup {
 public:
  // role must outlive the group ("engine", "async", ...).
  TaskGroup(WorkerPool& pool, const char* role) : pool_(pool), role_(role) {}
  ~TaskGroup() { Drain(); }
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Queues `task`; with a pool of size 0 runs it before returning. Errors (nothing queued): the
  // thread start's errno, ENOMEM.
  Status Submit(std::function<void()> task) EXCLUDES(mu_);
  // Queues a copy of `task`; false, queueing nothing, when it cannot be queued.
  template <class Fn>
  bool TryPost(const Fn& task) noexcept {
    try {
      return Submit(std::function<void()>(task)).ok();
    } catch (...) {
      return false;
    }
  }
  // Queues `task`, or runs it on the calling thread when it cannot be queued: for work that must
  // happen (an operation's completion) however short of threads or memory the process is.
  template <class Fn>
  void PostOrRun(const Fn& task) {
    if (!TryPost(task)) task();
  }
  // Runs the group's queued tasks here and waits for its running ones.
  void Drain() EXCLUDES(mu_);

  WorkerPool& pool() const { return pool_; }
  const char* role() const { return role_; }

 private:
  friend class WorkerPool;
  void Finished() EXCLUDES(mu_);

  WorkerPool& pool_;
  const char* const role_;
  // The group's tasks queued or running (low bits) and its drainers waiting for them (high bits),
  // in one word so that a task's end can tell, in the same atomic operation that counts it,
  // whether anyone may be waiting: with no drainer it costs one compare-and-swap and no mutex
  // shared with every worker; with one it counts down under mu_ (Finished says why).
  static constexpr size_t kDrainerShift = 48;
  static constexpr size_t kOneDrainer = size_t{1} << kDrainerShift;
  static constexpr size_t kPendingMask = kOneDrainer - 1;
  static constexpr size_t kDrainerMask = ~kPendingMask;
  std::atomic<size_t> state_{0};
  Mutex mu_;
  CondVar idle_;
};

}  // namespace hipfile::engine
