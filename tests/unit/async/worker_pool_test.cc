// SPDX-License-Identifier: MIT
// WorkerPool runs every task posted, including those posted at destruction, and names its
// threads for the people and tools looking at them; TaskPool (the engine's) names its threads too.
// Both start all their threads or none: a refused thread joins those started and is reported.
#include "core/async/worker_pool.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <new>
#include <set>
#include <string>
#include <thread>

#include "engine/task_pool.h"
#include "fakes/fault_sys.h"
#include "util/thread_name.h"

namespace hipfile {
namespace {

std::string ThisThreadName() {
  char name[16] = {};
  EXPECT_EQ(pthread_getname_np(pthread_self(), name, sizeof name), 0);
  return name;
}

TEST(WorkerPoolTest, ThreadsAreNamedForTheirRole) {
  std::set<std::string> names;
  {
    auto pool = core::WorkerPool::Start(platform::RealSys(), 2, "test");
    ASSERT_TRUE(pool.ok());
    for (int i = 0; i < 2; ++i) {
      std::promise<std::string> seen;
      ASSERT_TRUE((*pool)->TryPost([&seen] { seen.set_value(ThisThreadName()); }));
      names.insert(seen.get_future().get());
    }
  }
  for (const std::string& name : names) {
    EXPECT_TRUE(name == "hf-test-0" || name == "hf-test-1") << name;
  }
}

TEST(WorkerPoolTest, DestructionRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    auto pool = core::WorkerPool::Start(platform::RealSys(), 1, "test");
    ASSERT_TRUE(pool.ok());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE((*pool)->TryPost([&ran] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(TaskPoolTest, ThreadsAreNamedForTheirRole) {
  engine::TaskPool pool(platform::RealSys(), 1, "engine");
  std::promise<std::string> seen;
  ASSERT_TRUE(pool.Submit([&seen] { seen.set_value(ThisThreadName()); }).ok());
  EXPECT_EQ(seen.get_future().get(), "hf-engine-0");
}

// Threads of this process, from /proc. Under TSan the sanitizer starts a thread of its own at
// some point, so counts are compared only without it.
#if defined(__SANITIZE_THREAD__)
constexpr bool kExactThreadCounts = false;
#else
constexpr bool kExactThreadCounts = true;
#endif
size_t ThreadCount() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(WorkerPoolTest, ARefusedThreadJoinsTheStartedOnesAndIsReported) {
  testing::FaultSys sys;
  sys.FailNth(testing::SysOp::kStartThread, 3, EAGAIN);
  const size_t before = ThreadCount();
  auto pool = core::WorkerPool::Start(sys, 4, "test");
  ASSERT_FALSE(pool.ok());
  EXPECT_TRUE(pool.status().IsErrno(EAGAIN)) << pool.status().ToString();
  EXPECT_EQ(sys.Calls(testing::SysOp::kStartThread), 3u);
  if (kExactThreadCounts) {
    EXPECT_EQ(ThreadCount(), before);  // the two started were joined
  }
  // Once threads can be had again, the pool starts.
  auto again = core::WorkerPool::Start(sys, 4, "test");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->size(), 4u);
}

TEST(WorkerPoolTest, ATaskThatThrowsLeavesTheWorkerRunning) {
  auto pool = core::WorkerPool::Start(platform::RealSys(), 1, "test");
  ASSERT_TRUE(pool.ok());
  ASSERT_TRUE((*pool)->TryPost([] { throw std::bad_alloc(); }));
  std::promise<int> after;
  ASSERT_TRUE((*pool)->TryPost([&after] { after.set_value(7); }));
  EXPECT_EQ(after.get_future().get(), 7);
}

TEST(TaskPoolTest, ARefusedThreadIsReportedAndTheNextSubmitStartsThePool) {
  testing::FaultSys sys;
  sys.FailNth(testing::SysOp::kStartThread, 2, EAGAIN);
  const size_t before = ThreadCount();
  {
    engine::TaskPool pool(sys, 3, "engine");
    bool ran = false;
    const Status refused = pool.Submit([&ran] { ran = true; });
    EXPECT_TRUE(refused.IsErrno(EAGAIN)) << refused.ToString();
    EXPECT_FALSE(ran);  // not queued: the caller does the work itself
    if (kExactThreadCounts) {
      EXPECT_EQ(ThreadCount(), before);
    }
    std::promise<std::string> seen;
    ASSERT_TRUE(pool.Submit([&seen] { seen.set_value(ThisThreadName()); }).ok());
    EXPECT_EQ(seen.get_future().get().rfind("hf-engine-", 0), 0u);
  }
  if (kExactThreadCounts) {
    EXPECT_EQ(ThreadCount(), before);
  }
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
}  // namespace hipfile
