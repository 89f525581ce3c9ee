// SPDX-License-Identifier: MIT
// Mutex, SharedMutex and CondVar: std::mutex, std::shared_mutex and std::condition_variable with
// the attributes clang's thread-safety analysis reads (util/thread_annotations.h). They add no
// state and no work of their own.
//
//   mutable Mutex mu_;
//   CondVar ready_;
//   std::deque<Task> queue_ GUARDED_BY(mu_);
//
//   MutexLock lock(mu_);
//   while (queue_.empty()) ready_.Wait(mu_);
//
// Waiting is written as a loop around CondVar::Wait rather than with a predicate: the analysis
// checks a lambda's body as a function of its own, which does not hold the lock, whereas the
// loop's condition is read where the lock is known to be held.
//
// Why CondVar and not std::condition_variable_any, which could wait on a Mutex directly: _any
// keeps a mutex and a shared_ptr of its own and takes that mutex on every wait and notify.
// CondVar is a plain std::condition_variable; Wait lends it the std::mutex inside the Mutex for
// the length of the wait (adopt_lock in, release() out), so the caller's MutexLock, or its own
// Lock(), stays the one that unlocks it. The waits do not throw, so the mutex always goes back.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "util/thread_annotations.h"

namespace hipfile {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// The reverse: releases a Mutex the caller holds for its scope and takes it back at the end, also
// when an exception leaves the scope. For running something slow (an allocation, a join, a task)
// in the middle of a locked section. The destructor is RELEASE() by clang's convention: ending a
// scoped capability undoes what its constructor did, which here means locking again.
class SCOPED_CAPABILITY MutexUnlock {
 public:
  explicit MutexUnlock(Mutex& mu) RELEASE(mu) : mu_(mu) { mu_.Unlock(); }
  ~MutexUnlock() RELEASE() { mu_.Lock(); }
  MutexUnlock(const MutexUnlock&) = delete;
  MutexUnlock& operator=(const MutexUnlock&) = delete;

 private:
  Mutex& mu_;
};

// Waits on a Mutex the caller holds; the mutex is released during the wait and held again when
// Wait returns. Wakeups may be spurious: wait in a loop that checks the condition.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex& mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller unlocks it
  }
  // As Wait; false when `deadline` passed first.
  bool WaitUntil(Mutex& mu, std::chrono::steady_clock::time_point deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    const bool woken = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// A reader-writer mutex: many holders in shared mode, or one in exclusive mode.
class CAPABILITY("shared mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void LockShared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a SharedMutex exclusively for its scope.
class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~WriterLock() RELEASE() { mu_.Unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex& mu_;
};

// Holds a SharedMutex shared for its scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_.LockShared(); }
  ~ReaderLock() RELEASE() { mu_.UnlockShared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

}  // namespace hipfile
