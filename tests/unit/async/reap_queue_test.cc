// SPDX-License-Identifier: MIT
// ReapQueue destroys what it is given on the reaper's thread, each thing once, however many
// threads give and whatever the reaper is doing meanwhile.
#include "core/async/reap_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "engine/worker_pool.h"
#include "fakes/gate.h"
#include "platform/sys.h"

namespace hipfile::core {
namespace {

std::atomic<int> g_destroyed{0};
std::atomic<int> g_on_caller{0};
thread_local bool t_caller = false;

struct Thing {
  testing::StreamGate* hold = nullptr;  // its destructor waits for it to open
  ~Thing() {
    if (hold != nullptr) testing::StreamGate::Wait(hold);
    if (t_caller) ++g_on_caller;
    ++g_destroyed;
  }
};

class ReapQueueTest : public ::testing::Test {
 protected:
  ReapQueueTest() {
    g_destroyed = 0;
    g_on_caller = 0;
    EXPECT_TRUE(pool_.Start().ok());
  }
  engine::WorkerPool pool_{platform::RealSys(), 1, "reap"};
  engine::TaskGroup reaper_{pool_, "reap"};
};

TEST_F(ReapQueueTest, ThingsAreDestroyedOnTheReapersThreadOnce) {
  t_caller = true;
  {
    ReapQueue queue(reaper_);
    for (int i = 0; i < 1000; ++i) queue.Reap(std::make_unique<Thing>());
    queue.Reap(std::unique_ptr<Thing>());  // nothing: nothing happens
    // (TaskGroup::Drain would run a queued task on this thread: wait for the reaper instead.)
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (g_destroyed.load() < 1000 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(g_destroyed.load(), 1000);
    reaper_.Drain();
  }
  EXPECT_EQ(g_destroyed.load(), 1000);
  EXPECT_EQ(g_on_caller.load(), 0) << "a thing was destroyed on the thread that gave it";
  t_caller = false;
}

// Things given while the reaper is busy destroying (held in a destructor) are destroyed by it
// afterwards: the queue does not count on a task that has already taken its batch.
TEST_F(ReapQueueTest, ThingsGivenWhileTheReaperIsBusyAreDestroyedToo) {
  ReapQueue queue(reaper_);
  testing::StreamGate gate;
  auto held = std::make_unique<Thing>();
  held->hold = &gate;
  queue.Reap(std::move(held));
  for (int i = 0; i < 100; ++i) queue.Reap(std::make_unique<Thing>());
  EXPECT_EQ(g_destroyed.load(), 0);
  gate.Open();
  reaper_.Drain();
  EXPECT_EQ(g_destroyed.load(), 101);
  queue.Reap(std::make_unique<Thing>());  // after the reaper went idle: a task again
  reaper_.Drain();
  EXPECT_EQ(g_destroyed.load(), 102);
}

TEST_F(ReapQueueTest, ManyThreadsGiveAtOnce) {
  ReapQueue queue(reaper_);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) queue.Reap(std::make_unique<Thing>());
    });
  }
  for (std::thread& thread : threads) thread.join();
  reaper_.Drain();
  EXPECT_EQ(g_destroyed.load(), 16000);
}

// A pool without threads runs tasks where they are queued: the thing is destroyed at once.
TEST(ReapQueueInline, APoolWithoutThreadsDestroysAtOnce) {
  g_destroyed = 0;
  engine::WorkerPool pool(platform::RealSys(), 0, "reap");
  engine::TaskGroup reaper(pool, "reap");
  ReapQueue queue(reaper);
  queue.Reap(std::make_unique<Thing>());
  EXPECT_EQ(g_destroyed.load(), 1);
  queue.Reap(std::make_unique<Thing>());
  EXPECT_EQ(g_destroyed.load(), 2);
}

}  // namespace
}  // namespace hipfile::core
