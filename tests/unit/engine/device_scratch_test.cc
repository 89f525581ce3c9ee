// SPDX-License-Identifier: MIT
// Device memory for reads copied ahead (engine/device_scratch.h): the budget, arenas, reuse of
// grains handed back (merged with their neighbours), refused allocations, and retired regions, on
// the CPU runtime.
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

// Regions are whole grains of one arena (the budget is under kArenaBytes); grains handed back
// serve the next lease they hold; past the budget nothing more is allocated.
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
  std::shared_ptr<void> again = scratch.Lease(0, kMiB);
  EXPECT_EQ(again.get(), small_at);
  EXPECT_EQ(scratch.Lease(0, kGrain + 1).get(), large_at);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 1u) << "one arena";
}

// Grains handed back next to each other serve a larger read (a pool of regions that never
// merged had no room for it once small reads had spent the budget).
TEST_F(DeviceScratchTest, GrainsHandedBackNextToEachOtherServeALargerRead) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(4 * kGrain);
  std::shared_ptr<void> grain[4];
  for (auto& g : grain) {
    g = scratch.Lease(0, kMiB);
    ASSERT_NE(g, nullptr);
  }
  void* const first_at = grain[0].get();
  void* const second_at = grain[1].get();
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr) << "the budget is spent";
  grain[1].reset();
  grain[2].reset();
  size_t got = 0;
  std::shared_ptr<void> two = scratch.Lease(0, 2 * kGrain, &got);
  EXPECT_EQ(two.get(), second_at) << "the second and third grains, merged";
  EXPECT_EQ(got, 2 * kGrain);
  two.reset();
  grain[0].reset();
  grain[3].reset();
  EXPECT_EQ(scratch.Lease(0, 4 * kGrain).get(), first_at) << "the whole arena";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 1u);
}

TEST_F(DeviceScratchTest, GrainsApartDoNotServeALargerRead) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(4 * kGrain);
  std::shared_ptr<void> grain[4];
  for (auto& g : grain) g = scratch.Lease(0, kMiB);
  grain[0].reset();
  grain[2].reset();
  EXPECT_EQ(scratch.Leased(0), 2 * kGrain);
  EXPECT_EQ(scratch.Lease(0, 2 * kGrain), nullptr) << "two free grains, not next to each other";
  EXPECT_NE(scratch.Lease(0, kGrain), nullptr);
}

// The smallest run of free grains that holds a lease serves it: the larger runs stay whole.
TEST_F(DeviceScratchTest, TheSmallestRunThatHoldsItIsTaken) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(6 * kGrain);
  std::shared_ptr<void> grain[6];
  for (auto& g : grain) g = scratch.Lease(0, kMiB);
  void* const lone_at = grain[4].get();
  void* const run_at = grain[0].get();
  for (int i : {0, 1, 2, 4}) grain[i].reset();  // free runs: grains 0-2, and 4
  EXPECT_EQ(scratch.Lease(0, kMiB).get(), lone_at);
  EXPECT_EQ(scratch.Lease(0, 3 * kGrain).get(), run_at);
}

// Arenas are kArenaBytes, or a larger region's size, or what the budget leaves.
TEST_F(DeviceScratchTest, ArenasAreAllocatedWithinTheBudget) {
  constexpr size_t kArena = DeviceScratch::kArenaBytes;
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(kArena + 100 * kMiB + 36 * kMiB);
  std::shared_ptr<void> small = scratch.Lease(0, kMiB);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(scratch.Allocated(0), kArena);
  std::shared_ptr<void> large = scratch.Lease(0, 100 * kMiB);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(scratch.Allocated(0), kArena + 100 * kMiB) << "an arena of its own size";
  std::shared_ptr<void> rest = scratch.Lease(0, kArena - kGrain);
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(scratch.Allocated(0), kArena + 100 * kMiB) << "the first arena's free grains";
  std::shared_ptr<void> more = scratch.Lease(0, 30 * kMiB);
  ASSERT_NE(more, nullptr);
  EXPECT_EQ(scratch.Allocated(0), kArena + 136 * kMiB) << "what the budget left";
  EXPECT_EQ(scratch.Lease(0, 8 * kMiB), nullptr);
  EXPECT_EQ(scratch.Leased(0), kArena + 130 * kMiB);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 3u);
  EXPECT_EQ(scratch.Allocated(1), 0u) << "per device";
}

TEST_F(DeviceScratchTest, ARaisedBudgetAllowsANewArena) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(2 * kGrain);
  std::shared_ptr<void> first = scratch.Lease(0, 2 * kGrain);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr);
  scratch.SetBudget(4 * kGrain);
  EXPECT_NE(scratch.Lease(0, kMiB), nullptr);
  EXPECT_EQ(scratch.Allocated(0), 4 * kGrain);
  scratch.SetBudget(kGrain);
  first.reset();
  EXPECT_NE(scratch.Lease(0, kMiB), nullptr) << "a lower budget frees nothing: its grains serve";
  EXPECT_EQ(scratch.Allocated(0), 4 * kGrain);
}

TEST_F(DeviceScratchTest, ARefusedAllocationLeasesNothingAndCountsNothing) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(kGrain);
  gpu_.FailNth(GpuOp::kMalloc, 1, hipErrorOutOfMemory);
  EXPECT_EQ(scratch.Lease(0, kMiB), nullptr);
  EXPECT_EQ(scratch.Allocated(0), 0u);
  EXPECT_NE(scratch.Lease(0, kMiB), nullptr) << "the next one is allocated";
}

// A device nearly full may refuse a whole arena and still have room for the read's region.
TEST_F(DeviceScratchTest, AnArenaRefusedIsTriedAgainAtTheRegionsSize) {
  DeviceScratch scratch(gpu_);
  scratch.SetBudget(8 * kGrain);
  gpu_.FailNth(GpuOp::kMalloc, 1, hipErrorOutOfMemory);
  size_t got = 0;
  std::shared_ptr<void> region = scratch.Lease(0, kGrain + 1, &got);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(got, 2 * kGrain);
  EXPECT_EQ(scratch.Allocated(0), 2 * kGrain) << "the region's own size";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 2u);
  gpu_.FailTimes(GpuOp::kMalloc, 2, hipErrorOutOfMemory);
  EXPECT_EQ(scratch.Lease(0, 2 * kGrain), nullptr) << "both refused";
  EXPECT_EQ(scratch.Allocated(0), 2 * kGrain);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 4u);
  EXPECT_NE(scratch.Lease(0, 2 * kGrain), nullptr);
  EXPECT_EQ(scratch.Allocated(0), 8 * kGrain) << "the whole arena when the runtime allows it";
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
  EXPECT_EQ(scratch->Lease(0, 2 * kGrain), nullptr) << "nor merged with its neighbour";
  EXPECT_EQ(gpu_.Calls(GpuOp::kFree), 0u);
  scratch.reset();
  EXPECT_EQ(gpu_.Calls(GpuOp::kFree), 1u) << "the retired region is freed with the pool";
}

}  // namespace
}  // namespace hipfile::engine
