// SPDX-License-Identifier: MIT
#include "engine/staging_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "engine_test_util.h"
#include "util/align.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;

class StagingPoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<runtime::GpuRuntime> cpu_ = runtime::CreateCpuRuntime();
  testing::FaultRuntime gpu_{*cpu_};
};

// Acquire(1) on another thread must wait while `held` is out, and succeed once it is released.
void ExpectAcquireWaitsForRelease(StagingPool& pool, StagingPool::Lease* held) {
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    StagingPool::Lease lease;
    EXPECT_TRUE(pool.Acquire(1, &lease).ok());
    acquired = true;
    pool.Release(&lease);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(acquired.load());
  pool.Release(held);
  waiter.join();
  EXPECT_TRUE(acquired.load());
}

TEST_F(StagingPoolTest, MakesBuffersLazilyAndReusesThem) {
  StagingPool pool(gpu_, kTestChunk, 4);
  EXPECT_EQ(pool.allocated(), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), 0u);
  std::set<void*> seen;
  for (int i = 0; i < 50; ++i) {
    StagingPool::Lease lease;
    ASSERT_TRUE(pool.Acquire(2, &lease).ok());
    ASSERT_EQ(lease.count, 2u);
    for (size_t b = 0; b < lease.count; ++b) {
      EXPECT_TRUE(IsAligned(lease.buffers[b], 4096));
      runtime::PointerInfo info;
      ASSERT_EQ(gpu_.PointerGetInfo(lease.buffers[b], &info), hipSuccess);
      EXPECT_EQ(info.type, hipMemoryTypeHost);
      seen.insert(lease.buffers[b]);
    }
    pool.Release(&lease);
    EXPECT_EQ(lease.count, 0u);
  }
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(pool.allocated(), 2u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), 2u);
}

TEST_F(StagingPoolTest, LeaseTakesWhatIsLeftWithoutWaiting) {
  StagingPool pool(gpu_, kTestChunk, 3);
  StagingPool::Lease a;
  StagingPool::Lease b;
  ASSERT_TRUE(pool.Acquire(2, &a).ok());
  ASSERT_TRUE(pool.Acquire(2, &b).ok());
  EXPECT_EQ(a.count, 2u);
  EXPECT_EQ(b.count, 1u);
  EXPECT_EQ(pool.allocated(), 3u);
  pool.Release(&a);
  pool.Release(&b);
}

TEST_F(StagingPoolTest, WaitsWhenTheCapIsReached) {
  StagingPool pool(gpu_, kTestChunk, 1);
  StagingPool::Lease held;
  ASSERT_TRUE(pool.Acquire(2, &held).ok());
  ASSERT_EQ(held.count, 1u);
  ExpectAcquireWaitsForRelease(pool, &held);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), 1u);
}

TEST_F(StagingPoolTest, AllocationFailureIsReportedAndNotHeldAgainstTheCap) {
  StagingPool pool(gpu_, kTestChunk, 1);
  gpu_.FailNth(GpuOp::kHostMalloc, 1, hipErrorOutOfMemory);
  StagingPool::Lease lease;
  EXPECT_TRUE(pool.Acquire(1, &lease).IsGpu(hipErrorOutOfMemory));
  EXPECT_EQ(lease.count, 0u);
  EXPECT_EQ(pool.allocated(), 0u);
  ASSERT_TRUE(pool.Acquire(1, &lease).ok());
  EXPECT_EQ(lease.count, 1u);
  pool.Release(&lease);
}

// Regression: a transfer failed with hipErrorOutOfMemory while another held the only buffer.
TEST_F(StagingPoolTest, AllocationFailureWaitsForABufferThatExists) {
  StagingPool pool(gpu_, kTestChunk, 4);
  StagingPool::Lease held;
  ASSERT_TRUE(pool.Acquire(1, &held).ok());
  gpu_.FailAlways(GpuOp::kHostMalloc, hipErrorOutOfMemory);
  ExpectAcquireWaitsForRelease(pool, &held);
  EXPECT_EQ(pool.allocated(), 1u);
}

TEST_F(StagingPoolTest, SecondBufferFailureLeavesOne) {
  StagingPool pool(gpu_, kTestChunk, 2);
  gpu_.FailNth(GpuOp::kHostMalloc, 2, hipErrorOutOfMemory);
  StagingPool::Lease lease;
  ASSERT_TRUE(pool.Acquire(2, &lease).ok());
  EXPECT_EQ(lease.count, 1u);
  pool.Release(&lease);
}

TEST_F(StagingPoolTest, ManyThreadsNeverExceedTheCap) {
  constexpr size_t kCap = 3;
  StagingPool pool(gpu_, kTestChunk, kCap);
  std::atomic<size_t> in_use{0};
  std::atomic<size_t> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        StagingPool::Lease lease;
        ASSERT_TRUE(pool.Acquire(2, &lease).ok());
        const size_t now = in_use += lease.count;
        size_t seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        in_use -= lease.count;
        pool.Release(&lease);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(peak.load(), kCap);
  EXPECT_LE(gpu_.Calls(GpuOp::kHostMalloc), kCap);
}

}  // namespace
}  // namespace hipfile::engine
