// SPDX-License-Identifier: MIT
// Device memory for reads copied ahead (engine/device_scratch.h): the budget, reuse of regions
// handed back, refused allocations, and retired regions, on the CPU runtime.
#include "engine/device_scratch.h"

#include <gtest/gtest.h>

#include <memory>

#include "fakes/fault_runtime.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kGrain = DeviceScratch::kGrain;

class DeviceScratchTest : public ::testing::Test {
 protected:
  std::unique_ptr<runtime::GpuRuntime> cpu_ = runtime::CreateCpuRuntime();
  testing::FaultRuntime gpu_{*cpu_};
};

TEST_F(DeviceScratchTest, NoBudgetLeasesNothing) {
  DeviceScratch scratch(gpu_);
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr);
  scratch.SetBudget(4 * kMiB);
  EXPECT_EQ(scratch.Lease(0, 0), nullptr);
  EXPECT_EQ(scratch.Lease(0, 5 * kMiB), nullptr) << "larger than the budget";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 0u);
}

// Regions are whole grains; one handed back serves the next lease it holds, the smallest first;
// past the budget nothing more is allocated.
TEST_F(DeviceScratchTest, RegionsHandedBackAreLeasedAgainWithinTheBudget) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(3 * kGrain);
  size_t got = 0;
  std::shared_ptr<void> small = scratch.Lease(0, kMiB, &got);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(got, kGrain);
  std::shared_ptr<void> large = scratch.Lease(0, kGrain + 1, &got);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(got, 2 * kGrain);
  EXPECT_EQ(scratch.Allocated(0), 3 * kGrain);
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr) << "the budget is spent";
  void* const small_at = small.get();
  void* const large_at = large.get();
  small.reset();
  large.reset();
  EXPECT_EQ(scratch.Leased(0), 0u);
  EXPECT_EQ(scratch.Lease(0, kMiB).get(), small_at) << "the smallest region that holds it";
  EXPECT_EQ(scratch.Lease(0, kGrain + 1).get(), large_at);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 2u);
}

TEST_F(DeviceScratchTest, ARefusedAllocationLeasesNothingAndCountsNothing) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(2 * kGrain);
  gpu_.FailNth(GpuOp::kMalloc, 1, hipErrorOutOfMemory);
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr);
  EXPECT_EQ(scratch.Allocated(0), 0u);
  EXPECT_NE(scratch.Lease(0, kMiB), nullptr) << "the next one is allocated";
}

// A retired region (a stream may still copy into it) is never leased again, stays counted as
// leased, and is freed with the pool.
TEST_F(DeviceScratchTest, ARetiredRegionIsNeverLeasedAgain) {
  std::unique_ptr<DeviceScratch> scratch = std::make_unique<DeviceScratch>(gpu_);
  scratch->SetBudget(2 * kGrain);
  std::shared_ptr<void> stranded = scratch->Lease(0, kMiB);
  ASSERT_NE(stranded, nullptr);
  void* const stranded_at = stranded.get();
  std::shared_ptr<void> other = scratch->Lease(0, kMiB);
  ASSERT_NE(other, nullptr);
  std::shared_ptr<void> sharer = stranded;  // another read of its stream holding it
  scratch->Retire(stranded);
  scratch->Retire(nullptr);  // nothing to retire
  stranded.reset();
  sharer.reset();
  other.reset();
  EXPECT_EQ(scratch->Leased(0), kGrain) << "the retired region counts as leased";
  std::shared_ptr<void> next = scratch->Lease(0, kMiB);
  ASSERT_NE(next, nullptr);
  EXPECT_NE(next.get(), stranded_at);
  EXPECT_EQ(scratch->Lease(0, kMiB), nullptr) << "the retired region is not free for it";
  next.reset();
  EXPECT_EQ(gpu_.Calls(GpuOp::kFree), 0u);
  scratch.reset();
  EXPECT_EQ(gpu_.Calls(GpuOp::kFree), 2u) << "the retired region is freed with the pool";
}

}  // namespace
}  // namespace hipfile::engine
