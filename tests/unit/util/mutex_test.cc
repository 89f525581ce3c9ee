// SPDX-License-Identifier: MIT
#include "util/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace hipfile {
namespace {

struct Box {
  Mutex mu;
  CondVar cv;
  int value GUARDED_BY(mu) = 0;
};

TEST(MutexTest, WaitReturnsHoldingTheMutexOnceNotified) {
  Box box;
  std::thread setter([&box] {
    {
      MutexLock lock(box.mu);
      box.value = 7;
    }
    box.cv.NotifyAll();
  });
  {
    MutexLock lock(box.mu);
    while (box.value == 0) box.cv.Wait(box.mu);
    EXPECT_EQ(box.value, 7);
    box.value = 8;  // still held: the setter has finished writing
  }
  setter.join();
  MutexLock lock(box.mu);
  EXPECT_EQ(box.value, 8);
}

TEST(MutexTest, WaitUntilIsFalseAfterTheDeadlineAndTheMutexIsHeldAgain) {
  Box box;
  MutexLock lock(box.mu);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  bool woken = true;
  while (woken && box.value == 0) woken = box.cv.WaitUntil(box.mu, deadline);
  EXPECT_FALSE(woken);
  EXPECT_GE(std::chrono::steady_clock::now(), deadline);
  box.value = 1;
}

TEST(MutexTest, MutexUnlockLetsAnotherThreadInAndTakesTheMutexBack) {
  Box box;
  MutexLock lock(box.mu);
  box.value = 1;
  {
    MutexUnlock unlocked(box.mu);
    // Would deadlock if the mutex were still held here.
    std::thread other([&box] {
      MutexLock other_lock(box.mu);
      box.value = 2;
    });
    other.join();
  }
  EXPECT_EQ(box.value, 2);
}

struct SharedBox {
  SharedMutex mu;
  int value GUARDED_BY(mu) = 0;
};

TEST(MutexTest, ReadersShareTheMutex) {
  SharedBox box;
  {
    ReaderLock reader(box.mu);
    // A second reader gets in while the first holds the mutex (else this would deadlock).
    std::thread other([&box] {
      ReaderLock other_reader(box.mu);
      EXPECT_EQ(box.value, 0);
    });
    other.join();
  }
  {
    WriterLock writer(box.mu);
    box.value = 1;
  }
  ReaderLock reader(box.mu);
  EXPECT_EQ(box.value, 1);
}

}  // namespace
}  // namespace hipfile
