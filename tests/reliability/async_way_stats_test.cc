// SPDX-License-Identifier: MIT
// Stream-ordered operations by the way they went (hipFileExtGetAsyncWayStats; docs/stats.md,
// "Stream-ordered operations by the way they went"): each accepted submission is counted once,
// by direction, under the way the executor took; a refused one is not; at statistics level 0
// nothing is. Through a core::Driver on FaultRuntime over the CPU runtime (the staged path of a
// GPU). The ways decided at submission and the staged operations' events are also checked where
// their own tests make them (async_*_test.cc).
#include <gtest/gtest.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "core/config.h"
#include "fakes/wait_until.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

constexpr size_t kFile = 256 * 1024;

class AsyncWayStatsTest : public IoPathTest {
 protected:
  hipFileExtAsyncWayStats_t Ways() {
    hipFileExtAsyncWayStats_t w;
    std::memset(&w, 0xff, sizeof w);  // every field must be written
    driver_->stats().FillAsyncWays(&w);
    return w;
  }
  static uint64_t Sum(const uint64_t (&ops)[HIPFILE_EXT_MAX_ASYNC_WAYS]) {
    return std::accumulate(ops, ops + HIPFILE_EXT_MAX_ASYNC_WAYS, uint64_t{0});
  }
};

TEST_P(AsyncWayStatsTest, QueuedOperationsCountAsStagedByDirection) {
  void* fh = OpenFile("f.bin", kFile);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 64 * 1024, 0).bytes, size_t{64 * 1024});
  EXPECT_EQ(Run(IoDirection::kRead, fh, 32 * 1024, 4096).bytes, size_t{32 * 1024});
  EXPECT_EQ(Run(IoDirection::kWrite, fh, 16 * 1024, 0).bytes, size_t{16 * 1024});
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayStaged], 2u);
  EXPECT_EQ(w.write_ops[hipFileExtAsyncWayStaged], 1u);
  EXPECT_EQ(Sum(w.read_ops), 2u) << "a read counted under another way too";
  EXPECT_EQ(Sum(w.write_ops), 1u);
  EXPECT_EQ(w.staging_waits + w.copied_ahead + w.used_ahead + w.ahead_on_companion + w.one_launch +
                w.ahead_in_parts + w.ahead_not_pinned + w.ahead_no_room + w.ahead_windows_chosen,
            0u);
  for (const uint64_t r : w.reserved) EXPECT_EQ(r, 0u);
  EXPECT_EQ(Executor().StagedOperations(), 3u);
}

TEST_P(AsyncWayStatsTest, AnEmptyOperationGoesToAWorker) {
  void* fh = OpenFile("f.bin", kFile);
  for (const IoDirection direction : {IoDirection::kRead, IoDirection::kWrite}) {
    const Outcome out = Run(direction, fh, 0, 0);
    EXPECT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, size_t{0});
  }
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayWorker], 1u);
  EXPECT_EQ(w.write_ops[hipFileExtAsyncWayWorker], 1u);
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 2u);
}

TEST_P(AsyncWayStatsTest, WithoutStreamMemoryOperationsAHostFunctionRunsIt) {
  gpu_.SetStreamMemOps(0);  // asked at the first submission to the device
  void* fh = OpenFile("f.bin", kFile);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 8192, 4096).bytes, size_t{8192});
  const std::vector<unsigned char> file = testing::PatternBytes(kFile);
  EXPECT_EQ(DeviceBytes(8192),
            std::vector<unsigned char>(file.begin() + 4096, file.begin() + 12288));
  EXPECT_EQ(Run(IoDirection::kWrite, fh, 4096, 0).bytes, size_t{4096});
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayHostFunc], 1u);
  EXPECT_EQ(w.write_ops[hipFileExtAsyncWayHostFunc], 1u);
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 2u);
}

// Where each stream's host functions run on a thread of its own (the CPU runtime), an operation
// that is not staged runs in a host function on its stream: the stream's own thread does its I/O
// when it gets there, with no stream memory operation, poller or worker between; a worker takes
// it only where host functions may share a thread (without stream memory operations, above).
TEST_P(AsyncWayStatsTest, WhereHostFunctionsRunPerStreamTheStreamsThreadRunsIt) {
  gpu_.SetDeviceMemoryIsHostMemory(true);
  gpu_.SetHostFunctionsRunPerStream(true);
  void* fh = OpenFile("f.bin", kFile);
  std::thread::id stream_thread;
  auto note_thread = [](void* arg) {
    *static_cast<std::thread::id*>(arg) = std::this_thread::get_id();
  };
  ASSERT_EQ(gpu_.LaunchHostFunc(Stream(), note_thread, &stream_thread), hipSuccess);
  gpu_.Reset();
  sys_.CloseGate();
  size_t size = 8192;
  off_t file_offset = 4096, buffer_offset = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(driver_
                  ->SubmitAsync(IoDirection::kRead, fh, dev_, &size, &file_offset, &buffer_offset,
                                &bytes, Stream())
                  .ok());
  ASSERT_TRUE(sys_.WaitHeld(1)) << "the read never started";
  EXPECT_EQ(sys_.LastHeldThread(), stream_thread) << "the read ran on another thread";
  sys_.OpenGate();
  ASSERT_EQ(gpu_.StreamSynchronize(Stream()), hipSuccess);
  EXPECT_EQ(bytes, 8192);
  const std::vector<unsigned char> file = testing::PatternBytes(kFile);
  EXPECT_EQ(DeviceBytes(8192),
            std::vector<unsigned char>(file.begin() + 4096, file.begin() + 12288));
  EXPECT_EQ(Run(IoDirection::kWrite, fh, 4096, 0).bytes, size_t{4096});
  EXPECT_EQ(gpu_.Calls(GpuOp::kLaunchHostFunc), 2u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitValue32) + gpu_.Calls(GpuOp::kStreamWriteValue32), 0u);
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayHostFunc], 1u);
  EXPECT_EQ(w.write_ops[hipFileExtAsyncWayHostFunc], 1u);
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 2u);
  EXPECT_EQ(Executor().Outstanding(), 0u);
}

TEST_P(AsyncWayStatsTest, AnIdleStreamsSmallOperationRunsAtOnce) {
  Remake([](Config& c) { c.async_run_idle_kb = 16; });
  void* fh = OpenFile("f.bin", kFile);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 4096, 0).bytes, size_t{4096});
  EXPECT_EQ(Run(IoDirection::kWrite, fh, 4096, 8192).bytes, size_t{4096});
  EXPECT_EQ(Run(IoDirection::kRead, fh, 32 * 1024, 0).bytes, size_t{32 * 1024});  // over the limit
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayRunAtOnce], 1u);
  EXPECT_EQ(w.write_ops[hipFileExtAsyncWayRunAtOnce], 1u);
  EXPECT_EQ(w.read_ops[hipFileExtAsyncWayStaged], 1u);
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 3u);
  EXPECT_EQ(Executor().RanAtOnce(), 2u);
}

// With one staging block, held by a read whose pread the test holds, another stream's read
// reached by its stream waits for the block: counted as a staging wait, and its bytes still
// arrive once the first is let go.
TEST_P(AsyncWayStatsTest, AReadReachedWithNoBlockFreeCountsAStagingWait) {
  void* fh = OpenFile("f.bin", kFile);
  Executor().SetStagingBlocks(1);
  sys_.CloseGate();
  AsyncSlot first;
  first.size = 4096;
  ASSERT_TRUE(SubmitSlotOn(Stream(), fh, dev_, &first, IoDirection::kRead).ok());
  ASSERT_TRUE(sys_.WaitHeld(1)) << "the first read did not start";
  runtime::Stream other = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&other, hipStreamNonBlocking), hipSuccess);
  AsyncSlot second;
  second.size = 4096;
  second.file_offset = 8192;
  second.buffer_offset = 4096;
  ASSERT_TRUE(SubmitSlotOn(other, fh, dev_, &second, IoDirection::kRead).ok());
  testing::WaitUntil([&] { return AsyncWays().staging_waits > 0; }, std::chrono::seconds(30));
  EXPECT_EQ(AsyncWays().staging_waits, 1u);
  sys_.OpenGate();
  EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(gpu_.StreamSynchronize(other), hipSuccess);
  EXPECT_EQ(first.bytes, 4096);
  EXPECT_EQ(second.bytes, 4096);
  const std::vector<unsigned char> file = testing::PatternBytes(kFile);
  const std::vector<unsigned char> got = DeviceBytes(8192);
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + 4096, got.begin()));
  EXPECT_TRUE(std::equal(file.begin() + 8192, file.begin() + 12288, got.begin() + 4096));
  EXPECT_EQ(AsyncWays().read_ops[hipFileExtAsyncWayStaged], 2u);
  EXPECT_EQ(gpu_.StreamDestroy(other), hipSuccess);
}

TEST_P(AsyncWayStatsTest, ARefusedSubmissionIsNotCounted) {
  void* fh = OpenFile("f.bin", kFile);
  // The channel and its staging made.
  EXPECT_EQ(Run(IoDirection::kRead, fh, 4096, 0).bytes, size_t{4096});
  gpu_.FailNth(GpuOp::kStreamWriteValue32, 1, hipErrorLaunchFailure);
  AsyncSlot slot;
  slot.size = 4096;
  const Status refused = SubmitSlotOn(Stream(), fh, dev_, &slot, IoDirection::kRead);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  ++g_faults;
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(Sum(w.read_ops), 1u) << "the refused read was counted";
  EXPECT_EQ(Sum(w.write_ops), 0u);
}

TEST_P(AsyncWayStatsTest, NothingIsCountedAtLevelZero) {
  void* fh = OpenFile("f.bin", kFile);
  driver_->stats().set_level(0);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 4096, 0).bytes, size_t{4096});
  EXPECT_EQ(Run(IoDirection::kWrite, fh, 4096, 0).bytes, size_t{4096});
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 0u);
  driver_->stats().set_level(1);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 4096, 0).bytes, size_t{4096});
  EXPECT_EQ(Ways().read_ops[hipFileExtAsyncWayStaged], 1u);
}

TEST_P(AsyncWayStatsTest, ResetZeroesThem) {
  void* fh = OpenFile("f.bin", kFile);
  EXPECT_EQ(Run(IoDirection::kRead, fh, 4096, 0).bytes, size_t{4096});
  driver_->stats().Reset();
  const hipFileExtAsyncWayStats_t w = Ways();
  EXPECT_EQ(Sum(w.read_ops) + Sum(w.write_ops), 0u);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncWayStatsTest, ::testing::Values(Path::kAsync),
                         PathName);

TEST(AsyncWayNameTest, EveryWayHasItsName) {
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayRunAtOnce), "run_at_once");
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayReadAtSubmission), "read_at_submission");
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayCopiedAtSubmission),
               "copied_at_submission");
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayStaged), "staged");
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayWorker), "worker");
  EXPECT_STREQ(hipFileExtAsyncWayName(hipFileExtAsyncWayHostFunc), "host_function");
  EXPECT_STREQ(hipFileExtAsyncWayName(HIPFILE_EXT_ASYNC_WAY_COUNT), "unknown");
  EXPECT_STREQ(hipFileExtAsyncWayName(-1), "unknown");
  EXPECT_EQ(hipFileExtGetAsyncWayStats(nullptr).err, hipFileInvalidValue);
}

}  // namespace
}  // namespace hipfile::core
