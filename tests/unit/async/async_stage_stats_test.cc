// SPDX-License-Identifier: MIT
// Where a stream-ordered operation's time goes (core/async/async_stage_stats.h): the parts are
// stamped in order and add up to the total, on the CPU runtime's executor; nothing is recorded
// while timing is off.
#include "core/async/async_stage_stats.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/async/async_executor.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {
namespace {

using namespace std::chrono_literals;

class SleepWork final : public AsyncWork {
 public:
  bool Write() const override { return false; }
  ssize_t Run(const AsyncParams& params) override {
    std::this_thread::sleep_for(2ms);  // the "file I/O"
    return static_cast<ssize_t>(params.size);
  }
};

struct Slot {
  size_t size = 4096;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  ssize_t bytes = -999;
};

std::unique_ptr<AsyncOp> MakeOp(Slot* slot) {
  auto op = std::make_unique<AsyncOp>();
  op->size_p = &slot->size;
  op->file_offset_p = &slot->file_offset;
  op->buffer_offset_p = &slot->buffer_offset;
  op->bytes_p = &slot->bytes;
  op->submitted = {slot->size, slot->file_offset, slot->buffer_offset};
  op->work = std::make_unique<SleepWork>();
  return op;
}

// Runs `ops` operations on one stream, each behind a 1 ms host function (the stream reaching it
// takes that long), with timing `on`, and returns the figures.
hipFileExtAsyncStageStats_t RunOps(bool on, int ops) {
  AsyncStageStats stages;
  stages.set_enabled(on);
  auto gpu = runtime::CreateCpuRuntime();
  runtime::Stream s = nullptr;
  EXPECT_EQ(gpu->StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  {
    engine::WorkerPool pool(platform::RealSys(), 2);
    auto executor = AsyncExecutor::Create(platform::RealSys(), *gpu, pool,
                                          AsyncExecutor::kMaxChannels, &stages);
    EXPECT_TRUE(executor.ok());
    std::vector<Slot> slots(static_cast<size_t>(ops));
    for (Slot& slot : slots) {
      EXPECT_EQ(gpu->LaunchHostFunc(
                    s, [](void*) { std::this_thread::sleep_for(1ms); }, nullptr),
                hipSuccess);
      EXPECT_TRUE((*executor)->Submit(s, MakeOp(&slot)).ok());
    }
    EXPECT_EQ(gpu->StreamSynchronize(s), hipSuccess);
    (*executor)->WaitIdle();
    for (const Slot& slot : slots) EXPECT_EQ(slot.bytes, 4096);
  }
  EXPECT_EQ(gpu->StreamDestroy(s), hipSuccess);
  hipFileExtAsyncStageStats_t out{};
  stages.Fill(&out);
  return out;
}

TEST(AsyncStageStatsTest, EveryPartIsCountedOnceAndThePartsAddUpToTheTotal) {
  const hipFileExtAsyncStageStats_t st = RunOps(true, 8);
  for (int p = 0; p < HIPFILE_EXT_ASYNC_STAGES; ++p) {
    EXPECT_EQ(st.count[p], 8u) << hipFileExtAsyncStageName(p);
    uint64_t in_hist = 0;
    for (int b = 0; b < HIPFILE_EXT_ASYNC_STAGE_BUCKETS; ++b) in_hist += st.ns_hist[p][b];
    EXPECT_EQ(in_hist, 8u) << hipFileExtAsyncStageName(p);
  }
  uint64_t parts = 0;
  for (int p = 0; p < hipFileExtAsyncStageTotal; ++p) parts += st.sum_ns[p];
  EXPECT_EQ(parts, st.sum_ns[hipFileExtAsyncStageTotal]);
  // In order: the stream reaches each operation ~1 ms after its submission returned (its host
  // function), the I/O takes 2 ms; the run way copies nothing after the release.
  EXPECT_GE(st.sum_ns[hipFileExtAsyncStageIo], 8 * 2'000'000u);
  EXPECT_GE(st.sum_ns[hipFileExtAsyncStageReach], 8 * 1'000'000u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageCopy], 0u);
  EXPECT_LT(st.sum_ns[hipFileExtAsyncStageSubmit], st.sum_ns[hipFileExtAsyncStageIo]);
}

TEST(AsyncStageStatsTest, NothingIsRecordedWhileTimingIsOff) {
  const hipFileExtAsyncStageStats_t st = RunOps(false, 4);
  for (int p = 0; p < HIPFILE_EXT_ASYNC_STAGES; ++p) {
    EXPECT_EQ(st.count[p], 0u);
    EXPECT_EQ(st.sum_ns[p], 0u);
  }
}

TEST(AsyncStageStatsTest, AStampEarlierThanTheOneBeforeCountsZeroAndTheSumStillAddsUp) {
  AsyncStageStats stages;
  // Reached (t=150) before the submission returned (t=300): reach counts 0.
  const uint64_t t[AsyncStamps::kPoints] = {100, 300, 150, 400, 1400, 1500, 1500};
  stages.Record(t);
  hipFileExtAsyncStageStats_t st{};
  stages.Fill(&st);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageSubmit], 200u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageReach], 0u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageHandoff], 100u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageIo], 1000u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageRelease], 100u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageCopy], 0u);
  EXPECT_EQ(st.sum_ns[hipFileExtAsyncStageTotal], 1400u);
  EXPECT_EQ(st.ns_hist[hipFileExtAsyncStageReach][0], 1u);
  EXPECT_EQ(st.ns_hist[hipFileExtAsyncStageIo][AsyncStageStats::Bucket(1000)], 1u);
  EXPECT_EQ(AsyncStageStats::Bucket(1000), 10);  // [512, 1024)
}

}  // namespace
}  // namespace hipfile::core
