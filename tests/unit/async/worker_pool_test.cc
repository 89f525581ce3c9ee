// SPDX-License-Identifier: MIT
// WorkerPool runs every task posted, including those posted at destruction, and names its
// threads for the people and tools looking at them; TaskPool (the engine's) names its threads too.
#include "core/async/worker_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "engine/task_pool.h"
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
    core::WorkerPool pool(2, "test");
    for (int i = 0; i < 2; ++i) {
      std::promise<std::string> seen;
      pool.Post([&seen] { seen.set_value(ThisThreadName()); });
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
    core::WorkerPool pool(1, "test");
    for (int i = 0; i < 100; ++i) pool.Post([&ran] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(TaskPoolTest, ThreadsAreNamedForTheirRole) {
  engine::TaskPool pool(1, "engine");
  std::promise<std::string> seen;
  pool.Submit([&seen] { seen.set_value(ThisThreadName()); });
  EXPECT_EQ(seen.get_future().get(), "hf-engine-0");
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
