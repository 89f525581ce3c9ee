// SPDX-License-Identifier: MIT
// Reads copied ahead on a companion stream (docs/async.md, "Reads copied ahead into device
// memory"; HIPFILE_ASYNC_AHEAD_STREAM): a read copied ahead has its copies queued on a stream of
// the library's own beside its stream, which waits for them by an event before `write reached`,
// into a region of the read's own, so the copy runs while the stream is still held by the work
// before the read. Through a core::Driver on FaultRuntime over the CPU runtime (staged, as on a
// GPU). Windows are 64 MiB (the Driver's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/async/async_executor.h"
#include "reliability/async_windows_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

constexpr size_t kMiB = size_t{1} << 20;

class AsyncAheadStreamTest : public AsyncWindowsTest {
 protected:
  explicit AsyncAheadStreamTest(const runtime::CpuRuntimeOptions& options = {})
      : AsyncWindowsTest(options, [](Config& config) { config.async_ahead_stream = true; }) {}
  // The file's bytes, written through a descriptor of its own (the page cache the windows map).
  void RewriteFile(const std::vector<unsigned char>& bytes) {
    const int fd = ::open(path_.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::pwrite(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    EXPECT_EQ(::close(fd), 0);
  }
};

// The read's copies run on the companion while its stream is still held: the companion has
// finished them before the stream gets to the read, whose bytes then come from the copy ahead.
TEST_P(AsyncAheadStreamTest, TheCopyAheadRunsWhileTheStreamIsHeld) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const uint64_t streams_made = gpu_.Calls(GpuOp::kStreamCreate);
  const uint64_t waits = gpu_.Calls(GpuOp::kStreamWaitEvent);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile - 20, 20, 3};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 1u);
  EXPECT_EQ(Executor().AheadOnCompanion(), 1u);
  EXPECT_EQ(AsyncWays().ahead_on_companion, 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamCreate), streams_made + 1) << "one companion";
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitEvent), waits + 1) << "the stream waits for its copies";
  const runtime::Stream companion = Executor().CompanionOf(stream_);
  ASSERT_NE(companion, nullptr);
  ASSERT_NE(companion, stream_);
  // Returns while the gate holds the read's stream: the copies did not wait for it.
  ASSERT_EQ(gpu_.StreamSynchronize(companion), hipSuccess);
  EXPECT_EQ(gpu_.StreamQuery(stream_), hipErrorNotReady) << "the gate holds the stream";
  EXPECT_EQ(slot.bytes, 0) << "not read before the stream gets there";
  // So the file's bytes changed now (in the page cache its windows map) are not the ones read:
  // the copy ahead has them from before. Copies on the stream would run after the gate, and see
  // the new ones.
  const std::vector<unsigned char> file = testing::PatternBytes(kFile);
  RewriteFile(std::vector<unsigned char>(kFile, 0x5a));
  gate.Open();
  Sync();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile - 20));
  EXPECT_TRUE(HoldsFile(dev_, 3, 20, kFile - 20)) << "bytes copied after the stream was let go";
  EXPECT_EQ(DeviceBytes(3)[2], 0xee);
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAhead(), 1u);
  RewriteFile(file);
  PinBySyncReads(fh);  // (a file changed has its windows made again)
  // The next read of the stream uses the same companion.
  testing::StreamGate again;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &again), hipSuccess);
  AsyncSlot next{2 * kMiB, static_cast<off_t>(kMiB), 0};
  ASSERT_TRUE(SubmitSlot(fh, &next).ok());
  EXPECT_EQ(Executor().AheadOnCompanion(), 2u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamCreate), streams_made + 1);
  again.Open();
  Sync();
  EXPECT_TRUE(HoldsFile(dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
  Executor().WaitIdle();
}

// On a companion a read's copy may land before the reads ahead of it on the stream have copied
// out of theirs, so reads in flight take a region each (on the stream itself they share one).
TEST_P(AsyncAheadStreamTest, ReadsInFlightOnAStreamTakeARegionEach) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(8 * kMiB);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  std::vector<AsyncSlot> slots;
  for (size_t i = 0; i < 3; ++i) {
    slots.push_back(
        AsyncSlot{2 * kMiB, static_cast<off_t>(i * kMiB + 4096), static_cast<off_t>(i * 3 * kMiB)});
  }
  for (AsyncSlot& slot : slots) ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().AheadOnCompanion(), 3u);
  EXPECT_EQ(Executor().DeviceScratchLeased(0), 3 * 2 * kMiB) << "one region per read";
  gate.Open();
  Sync();
  for (const AsyncSlot& slot : slots) {
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
    EXPECT_TRUE(
        HoldsFile(dev_, static_cast<size_t>(slot.buffer_offset), slot.file_offset, slot.size));
  }
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAhead(), 3u);
}

// A companion the runtime will not make (the stream, or its event) leaves the copies on the
// read's stream, as without one; the next read tries again.
TEST_P(AsyncAheadStreamTest, WithoutACompanionTheCopiesGoOnTheStream) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  for (const GpuOp refused : {GpuOp::kStreamCreate, GpuOp::kEventCreate}) {
    SCOPED_TRACE(refused == GpuOp::kStreamCreate ? "stream refused" : "event refused");
    const size_t ahead = Executor().CopiedAhead();
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    gpu_.FailNth(refused, 1, hipErrorOutOfMemory);
    const uint64_t destroyed = gpu_.Calls(GpuOp::kStreamDestroy);
    AsyncSlot slot{2 * kMiB, static_cast<off_t>(kMiB), 0};
    ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
    // The stream made for a companion whose event was refused is destroyed.
    EXPECT_EQ(gpu_.Calls(GpuOp::kStreamDestroy),
              destroyed + (refused == GpuOp::kEventCreate ? 1 : 0));
    gpu_.Reset();
    EXPECT_EQ(Executor().CopiedAhead(), ahead + 1) << "copied ahead on its stream";
    EXPECT_EQ(Executor().AheadOnCompanion(), 0u);
    EXPECT_EQ(Executor().CompanionOf(stream_), nullptr);
    gate.Open();
    Sync();
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(2 * kMiB));
    EXPECT_TRUE(HoldsFile(dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
    Executor().WaitIdle();
  }
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().AheadOnCompanion(), 1u);
  gate.Open();
  Sync();
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, 2 * kMiB));
  Executor().WaitIdle();
}

// The runtime refusing the event's record or the stream's wait for it, after the copies are on
// the companion, refuses the submission whole; the copies' region is never leased again (a late
// copy would land in another read's bytes), and the next read works.
TEST_P(AsyncAheadStreamTest, ARefusedEventRefusesTheSubmissionAndRetiresItsRegion) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(8 * kMiB);
  size_t retired = 0;
  for (const GpuOp refused : {GpuOp::kEventRecord, GpuOp::kStreamWaitEvent}) {
    SCOPED_TRACE(refused == GpuOp::kEventRecord ? "record refused" : "wait refused");
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    gpu_.FailNth(refused, 1, hipErrorLaunchFailure);
    AsyncSlot slot{2 * kMiB, 0, 0};
    const Status submitted = SubmitSlot(fh, &slot);
    gpu_.Reset();
    EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
    EXPECT_EQ(slot.bytes, 0);
    retired += 2 * kMiB;
    EXPECT_EQ(Executor().DeviceScratchLeased(0), retired) << "kept from other reads";
    AsyncSlot next{2 * kMiB, static_cast<off_t>(kMiB), 0};
    ASSERT_TRUE(SubmitSlot(fh, &next).ok());
    gate.Open();
    Sync();
    EXPECT_EQ(next.bytes, static_cast<ssize_t>(2 * kMiB));
    EXPECT_TRUE(HoldsFile(dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
  }
  EXPECT_EQ(Executor().AheadOnCompanion(), 2u) << "the two reads that went through";
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadStreamTest, ::testing::Values(Path::kAsync),
                         PathName);

// 16 streams on 4 hardware queues (a GPU's streams share its queues, and a wait at a queue's head
// holds up what is behind it), each with reads copied ahead on its companion, held back by the
// program until all are submitted: every read finishes, every byte right.
class AsyncAheadStreamQueuesTest : public AsyncAheadStreamTest {
 protected:
  AsyncAheadStreamQueuesTest() : AsyncAheadStreamTest(FourQueues()) {}
  static runtime::CpuRuntimeOptions FourQueues() {
    runtime::CpuRuntimeOptions options;
    options.hardware_queues = 4;
    return options;
  }
};

TEST_P(AsyncAheadStreamQueuesTest, SixteenStreamsOnFourQueuesFinishEveryRead) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(256 * kMiB);  // a region each: 48 of 4 MiB (two grains)
  constexpr size_t kStreams = 16;
  constexpr size_t kReads = 3;
  constexpr size_t kRead = kMiB + 4096;
  struct Lane {
    runtime::Stream stream = nullptr;
    void* buffer = nullptr;
    testing::StreamGate gate;
    std::vector<AsyncSlot> slots;
  };
  std::vector<std::unique_ptr<Lane>> lanes;
  for (size_t s = 0; s < kStreams; ++s) {
    auto lane = std::make_unique<Lane>();
    ASSERT_EQ(gpu_.StreamCreate(&lane->stream, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(gpu_.Malloc(&lane->buffer, kReads * kRead), hipSuccess);
    ASSERT_EQ(gpu_.LaunchHostFunc(lane->stream, &testing::StreamGate::Wait, &lane->gate),
              hipSuccess);
    for (size_t r = 0; r < kReads; ++r) {
      lane->slots.push_back(
          AsyncSlot{kRead, static_cast<off_t>(((s * kReads + r) * 4096 * 37) % (kFile - kRead)),
                    static_cast<off_t>(r * kRead)});
    }
    lanes.push_back(std::move(lane));
  }
  for (auto& lane : lanes) {
    for (AsyncSlot& slot : lane->slots) {
      ASSERT_TRUE(SubmitSlotOn(lane->stream, fh, lane->buffer, &slot).ok());
    }
  }
  EXPECT_EQ(Executor().AheadOnCompanion(), kStreams * kReads);
  // Let them go in an order other than their queues': the last stream first.
  for (auto it = lanes.rbegin(); it != lanes.rend(); ++it) (*it)->gate.Open();
  for (auto& lane : lanes) {
    ASSERT_EQ(gpu_.StreamSynchronize(lane->stream), hipSuccess);
    for (const AsyncSlot& slot : lane->slots) {
      EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kRead));
      EXPECT_TRUE(HoldsFile(lane->buffer, static_cast<size_t>(slot.buffer_offset), slot.file_offset,
                            kRead));
    }
  }
  Executor().WaitIdle();
  for (auto& lane : lanes) {
    EXPECT_EQ(gpu_.StreamDestroy(lane->stream), hipSuccess);
    EXPECT_EQ(gpu_.Free(lane->buffer), hipSuccess);
  }
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadStreamQueuesTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
