// SPDX-License-Identifier: MIT
// WorkerPool: the one pool of I/O threads every path shares. Its threads are named for the role
// of the group whose task they run; it starts all its threads or none (a refused thread joins
// those started and is reported); Resize grows and shrinks it; a group's destruction runs what it
// still has queued and waits for what runs; destruction runs every queued task.
#include "engine/worker_pool.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <thread>

#include "fakes/fault_sys.h"
#include "fakes/process_threads.h"
#include "util/thread_name.h"

namespace hipfile::engine {
namespace {

using namespace std::chrono_literals;

std::string ThisThreadName() {
  char name[16] = {};
  EXPECT_EQ(pthread_getname_np(pthread_self(), name, sizeof name), 0);
  return name;
}

// This process's threads that a pool of these tests runs: named hf-io-N (the pool's name) until
// their first task names them hf-test-N (the groups' role), from /proc. Counted by name, not all
// of them: the CUDA driver (a GPU machine runs these tests on it) and TSan start threads of their
// own at times of their choosing (a count of every thread failed that way on an H100,
// 2026-12-06). A thread names itself once started: compare with Eventually.
size_t ThreadCount() {
  size_t n = 0;
  for (const auto& [tid, name] : testing::ProcessThreads()) {
    n += name.rfind("hf-io-", 0) == 0 || name.rfind("hf-test-", 0) == 0;
  }
  return n;
}

// Polls `done` for up to 10 s.
template <class Fn>
bool Eventually(Fn done) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return done();
}

std::string NameSeenBy(TaskGroup& group) {
  std::promise<std::string> seen;
  EXPECT_TRUE(group.Submit([&seen] { seen.set_value(ThisThreadName()); }).ok());
  return seen.get_future().get();
}

TEST(WorkerPoolTest, AThreadIsNamedForTheRoleOfTheTaskItRuns) {
  WorkerPool pool(platform::RealSys(), 1);
  TaskGroup engine(pool, "engine");
  TaskGroup async(pool, "async");
  EXPECT_EQ(NameSeenBy(engine), "hf-engine-0");
  EXPECT_EQ(NameSeenBy(async), "hf-async-0");  // the same thread, renamed
  EXPECT_EQ(NameSeenBy(engine), "hf-engine-0");
}

TEST(WorkerPoolTest, ThreadsStartWithTheFirstTaskAndAllOfThemAtOnce) {
  const size_t before = ThreadCount();
  WorkerPool pool(platform::RealSys(), 3);
  TaskGroup group(pool, "test");
  EXPECT_EQ(pool.running(), 0u);
  std::promise<void> ran;
  ASSERT_TRUE(group.Submit([&ran] { ran.set_value(); }).ok());
  ran.get_future().get();
  EXPECT_EQ(pool.running(), 3u);
  EXPECT_TRUE(Eventually([&] { return ThreadCount() == before + 3; }));
}

TEST(WorkerPoolTest, DestructionRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(platform::RealSys(), 1);
    TaskGroup group(pool, "test");
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(group.TryPost([&ran] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(WorkerPoolTest, AGroupsDrainRunsItsQueuedTasksHereAndWaitsForItsRunningOnes) {
  WorkerPool pool(platform::RealSys(), 1);
  TaskGroup blocker(pool, "block");
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> blocking{false};
  ASSERT_TRUE(blocker.TryPost([released, &blocking] {
    blocking = true;
    released.wait();
  }));
  ASSERT_TRUE(Eventually([&] { return blocking.load(); }));
  // The pool's only thread is held: the group's tasks run on the draining thread.
  std::atomic<int> ran{0};
  std::thread::id ran_on;
  {
    TaskGroup group(pool, "test");
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(group.TryPost([&ran, &ran_on] {
        ++ran;
        ran_on = std::this_thread::get_id();
      }));
    }
  }
  EXPECT_EQ(ran.load(), 5);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  release.set_value();
  blocker.Drain();
}

// A group destroyed the moment its last task ends: the worker that ran the task must not touch
// the group once the drainer can see it finished (under TSan or ASan, a touch after the free is
// reported). Each round puts the end of the task and the drain's look at it close together.
TEST(WorkerPoolTest, AGroupCanGoTheMomentItsLastTaskEnds) {
  WorkerPool pool(platform::RealSys(), 2);
  std::atomic<int> ran{0};
  for (int round = 0; round < 5000; ++round) {
    auto group = std::make_unique<TaskGroup>(pool, "test");
    ASSERT_TRUE(group->TryPost([&ran] { ran.fetch_add(1, std::memory_order_relaxed); }));
    if (round % 2 == 1) {
      while (ran.load(std::memory_order_relaxed) != round + 1) {
      }  // the drain looks just after the task ended
    }
    group.reset();
    ASSERT_EQ(ran.load(), round + 1);
  }
}

TEST(WorkerPoolTest, ATaskThatThrowsLeavesTheThreadRunning) {
  WorkerPool pool(platform::RealSys(), 1);
  TaskGroup group(pool, "test");
  ASSERT_TRUE(group.TryPost([] { throw std::bad_alloc(); }));
  std::promise<int> after;
  ASSERT_TRUE(group.TryPost([&after] { after.set_value(7); }));
  EXPECT_EQ(after.get_future().get(), 7);
}

TEST(WorkerPoolTest, ARefusedThreadJoinsTheStartedOnesAndIsReported) {
  testing::FaultSys sys;
  sys.FailNth(testing::SysOp::kStartThread, 3, EAGAIN);
  const size_t before = ThreadCount();
  WorkerPool pool(sys, 4);
  TaskGroup group(pool, "test");
  bool ran = false;
  const Status refused = group.Submit([&ran] { ran = true; });
  EXPECT_TRUE(refused.IsErrno(EAGAIN)) << refused.ToString();
  EXPECT_FALSE(ran);  // not queued: the caller does the work itself
  EXPECT_EQ(sys.Calls(testing::SysOp::kStartThread), 3u);
  EXPECT_EQ(pool.running(), 0u);
  EXPECT_EQ(ThreadCount(), before);  // the two started were joined
  // Once threads can be had again, the pool starts.
  ASSERT_TRUE(pool.Start().ok());
  EXPECT_EQ(pool.running(), 4u);
  EXPECT_EQ(NameSeenBy(group).rfind("hf-test-", 0), 0u);
}

TEST(WorkerPoolTest, ResizeShrinksOnceIdleAndGrowsWithTheNextTask) {
  const size_t before = ThreadCount();
  WorkerPool pool(platform::RealSys(), 4);
  TaskGroup group(pool, "test");
  ASSERT_TRUE(pool.Start().ok());
  EXPECT_EQ(pool.running(), 4u);
  pool.Resize(2);
  EXPECT_EQ(pool.size(), 2u);
  ASSERT_TRUE(Eventually([&] { return pool.running() == 2; }));
  pool.Resize(6);
  EXPECT_EQ(pool.running(), 2u);  // nothing started until there is work
  std::promise<void> ran;
  ASSERT_TRUE(group.Submit([&ran] { ran.set_value(); }).ok());
  ran.get_future().get();
  EXPECT_EQ(pool.running(), 6u);
  EXPECT_TRUE(Eventually([&] { return ThreadCount() == before + 6; }));
}

TEST(WorkerPoolTest, APoolOfNoThreadsRunsTasksOnTheCaller) {
  WorkerPool pool(platform::RealSys(), 0);
  TaskGroup group(pool, "test");
  std::thread::id ran_on;
  ASSERT_TRUE(group.Submit([&ran_on] { ran_on = std::this_thread::get_id(); }).ok());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(ThreadNameTest, LongNamesAreCutToWhatLinuxKeeps) {
  std::promise<std::string> seen;
  std::thread t([&seen] {
    NameThisThread("a-very-long-role-name", 12345);
    seen.set_value(ThisThreadName());
  });
  t.join();
  EXPECT_EQ(seen.get_future().get(), "hf-a-very-long-");
}

}  // namespace
}  // namespace hipfile::engine
