// SPDX-License-Identifier: MIT
// Stream-ordered reads copied ahead into device memory (docs/async.md, "Reads copied ahead into
// device memory"): a read on a busy stream without the FIXED flags, whose bytes at the values seen
// at submission are all in pinned page-cache windows, gets them copied by its stream into device
// memory of the library's own before the stream reaches it; the worker's table copies on from
// there where the values bound when the stream gets there name the same bytes, and from the
// windows otherwise. Through a core::Driver on FaultRuntime over the CPU runtime (staged, as on a
// GPU). Windows are 64 MiB (the Driver's).
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <vector>

#include "core/async/async_executor.h"
#include "fakes/wait_until.h"
#include "reliability/async_windows_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kMiB = size_t{1} << 20;

class AsyncCopiedAheadTest : public AsyncWindowsTest {};

// The default budget (hipFile's max device cache size, 128 MiB) copies a busy stream's resident
// read ahead: every byte arrives, from the copy ahead, counted once as page_cache, none staged.
TEST_P(AsyncCopiedAheadTest, ABusyStreamsResidentReadIsCopiedAhead) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const uint64_t page_cache = ReadBytes(hipFileExtPathPageCache);
  const uint64_t preads = sys_.Calls(SysOp::kPread);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile - 20, 20, 3};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 1u) << "counted once its copies are on the stream";
  EXPECT_EQ(AsyncWays().copied_ahead, 1u);
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  EXPECT_GE(Executor().DeviceScratchBytes(0), kFile);
  gate.Open();
  Sync();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile - 20));
  EXPECT_TRUE(HoldsFile(dev_, 3, 20, kFile - 20));
  EXPECT_EQ(DeviceBytes(3)[2], 0xee);
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAhead(), 1u);
  EXPECT_EQ(AsyncWays().used_ahead, 1u);
  EXPECT_EQ(AsyncWays().ahead_on_companion, 0u);
  EXPECT_EQ(ReadBytes(hipFileExtPathPageCache) - page_cache, kFile - 20);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), preads) << "a resident byte was staged";
}

// Values changed after submission are the ones read: overlapping the copy ahead, its bytes are
// used for the overlap and the windows for the rest; elsewhere in the file, the windows only.
TEST_P(AsyncCopiedAheadTest, ValuesChangedAfterSubmissionAreTheOnesRead) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  struct Case {
    off_t file_offset;
    size_t size;
    off_t buffer_offset;
    size_t used;  // UsedAhead() after it
  };
  // Submitted as 2 MiB at 1 MiB into buffer offset 0.
  for (const Case c : {Case{static_cast<off_t>(2 * kMiB) + 100, 2 * kMiB, 5, 1},
                       Case{static_cast<off_t>(5 * kMiB), kMiB, 0, 1},
                       Case{512, 2 * kMiB, static_cast<off_t>(kMiB) + 1, 2}}) {
    SCOPED_TRACE(c.file_offset);
    const size_t copied = Executor().CopiedAhead();
    ReadRebound(fh, AsyncSlot{2 * kMiB, static_cast<off_t>(kMiB), 0},
                AsyncSlot{c.size, c.file_offset, c.buffer_offset},
                [&] { EXPECT_EQ(Executor().CopiedAhead(), copied + 1); });
    Executor().WaitIdle();
    EXPECT_EQ(Executor().UsedAhead(), c.used);
  }
}

// A read copied ahead is one launch for all its tokens (CopyTableRunAsync), none per token: its
// copy on from the region ends the run at its first table. Where the values bound later need
// staging instead (here a file offset the windows cannot serve at the kernel's word speed, in a
// range the copy ahead does not hold), the same launch takes the staged chunks one by one: every
// byte right. (RuntimeConformance.CopyTableRunCopiesItsTokensAsTheHostReleasesThem refills a
// slot the launch copied out of.)
TEST_P(AsyncCopiedAheadTest, AReadCopiedAheadIsOneLaunchStagedOrNot) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  for (const bool staged : {false, true}) {
    SCOPED_TRACE(staged ? "staged after all" : "copied on from the region");
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    const uint64_t tables = gpu_.Calls(GpuOp::kCopyTableAsync);
    const uint64_t buffered = ReadBytes(hipFileExtPathBuffered);
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot slot{6 * kMiB, 0, 0};  // three chunks
    ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync), runs + 1);
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableAsync), tables) << "a launch per token";
    if (staged) {  // past the copy ahead, a file offset unlike the buffer's mod 16: two chunks
      slot.file_offset = static_cast<off_t>(6 * kMiB) + 5;
      slot.size = 2 * kMiB + 12000;
    }
    gate.Open();
    Sync();
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
    EXPECT_TRUE(
        HoldsFile(dev_, static_cast<size_t>(slot.buffer_offset), slot.file_offset, slot.size));
    EXPECT_EQ(DeviceBytes(static_cast<size_t>(slot.buffer_offset) + slot.size + 1).back(), 0xee);
    if (staged) {
      EXPECT_EQ(ReadBytes(hipFileExtPathBuffered) - buffered, slot.size) << "not all staged";
    } else {
      EXPECT_EQ(ReadBytes(hipFileExtPathBuffered), buffered) << "a byte was staged";
    }
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
  }
}

// HIPFILE_ASYNC_COPY_RUNS chooses which reads take one launch: `off`, none (a read copied ahead
// launches per token); `ahead`, reads copied ahead only (one served from windows without a budget
// launches per token); `windows` (the default), those and reads whose every byte was in pinned
// windows at submission, copied ahead or not (no budget), but not a read of a file whose window
// is not pinned yet; `reads`, every staged read (one not copied ahead too, and one whose bytes
// are staged after all): every byte right each way.
TEST_P(AsyncCopiedAheadTest, TheCopyRunsSettingChoosesWhichReadsTakeOneLaunch) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  void* unpinned = OpenFile("g", kFile);  // in the page cache, its window never pinned
  struct Case {
    AsyncCopyRuns runs;
    uint64_t budget;     // device memory for copies ahead
    off_t bound_offset;  // the file offset the stream binds (submitted: 0)
    uint64_t launches;   // CopyTableRunAsync calls
    bool pinned = true;  // the read is of the file whose window is pinned
  };
  const uint64_t budget = uint64_t{128} << 20;
  for (const Case c :
       {Case{AsyncCopyRuns::kOff, budget, 0, 0}, Case{AsyncCopyRuns::kAhead, 0, 0, 0},
        Case{AsyncCopyRuns::kAhead, budget, 0, 1}, Case{AsyncCopyRuns::kWindows, 0, 0, 1},
        Case{AsyncCopyRuns::kWindows, budget, 0, 1}, Case{AsyncCopyRuns::kWindows, 0, 0, 0, false},
        Case{AsyncCopyRuns::kWindows, 0, static_cast<off_t>(kMiB) + 5, 1},
        Case{AsyncCopyRuns::kReads, 0, 0, 1},
        Case{AsyncCopyRuns::kReads, 0, static_cast<off_t>(kMiB) + 5, 1}}) {
    SCOPED_TRACE(static_cast<int>(c.runs));
    SCOPED_TRACE(c.budget);
    SCOPED_TRACE(c.bound_offset);
    SCOPED_TRACE(c.pinned);
    Executor().SetCopyRuns(c.runs);
    Executor().SetDeviceScratchBytes(c.budget);
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    const uint64_t tables = gpu_.Calls(GpuOp::kCopyTableAsync);
    const uint64_t one_launch = AsyncWays().one_launch;
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot slot{6 * kMiB, 0, 0};  // three chunks
    ASSERT_TRUE(SubmitSlot(c.pinned ? fh : unpinned, &slot).ok());
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync) - runs, c.launches);
    EXPECT_EQ(AsyncWays().one_launch - one_launch, c.launches) << "hipFileExtGetAsyncWayStats";
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableAsync) - tables, c.launches == 0 ? 3u : 0u);
    slot.file_offset = c.bound_offset;
    gate.Open();
    Sync();
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
    EXPECT_TRUE(HoldsFile(dev_, 0, slot.file_offset, slot.size));
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
  }
  Executor().SetCopyRuns(AsyncCopyRuns::kWindows);
}

// A budget of 0 (hipFileDriverSetMaxCacheSize(0)) copies nothing ahead; the read is queued and
// right as before.
TEST_P(AsyncCopiedAheadTest, NoBudgetNoCopyAhead) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(0);
  const uint64_t mallocs = gpu_.Calls(GpuOp::kMalloc);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  gate.Open();
  Sync();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, kFile));
  EXPECT_EQ(Executor().CopiedAhead(), 0u);
  EXPECT_EQ(AsyncWays().ahead_no_room + AsyncWays().ahead_not_pinned, 0u) << "nothing to miss";
  // No device memory but the stream's two run tables (its read from windows is one launch).
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc) - mallocs, Executor().RunMirrors());
  EXPECT_LE(Executor().RunMirrors(), 1u);
  Executor().WaitIdle();
}

// With HIPFILE_ASYNC_RUN_TABLE=device (SetRunTableOnDevice(true); off by default), a read taking
// one launch (from windows, or copied ahead) has its first table copied into device memory by
// its stream, where the launch reads it: two tables of the channel's, made at its first such
// read and used by the next ones. Not made where off, or where the device memory is refused -
// asked once, logged, the launch reading the host table then: every byte right each way.
TEST_P(AsyncCopiedAheadTest, ARunReadsItsFirstTableFromTheStreamsMirror) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  const auto read = [&](runtime::Stream stream, void* dev, off_t offset) {
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot slot{6 * kMiB, offset, 0};  // three chunks
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    ASSERT_TRUE(
        (stream == stream_ ? SubmitSlot(fh, &slot) : SubmitSlotOn(stream, fh, dev, &slot)).ok());
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync), runs + 1);
    gate.Open();
    ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
    EXPECT_TRUE(HoldsFile(dev, 0, offset, slot.size));
    Executor().WaitIdle();
  };
  Executor().SetDeviceScratchBytes(0);  // from windows, not copied ahead: no other device memory
  const uint64_t mallocs = gpu_.Calls(GpuOp::kMalloc);
  read(stream_, dev_, 0);
  EXPECT_EQ(gpu_.LastRunMirror(), nullptr) << "off by default";
  EXPECT_EQ(Executor().RunMirrors(), 0u);
  Executor().SetRunTableOnDevice(true);
  read(stream_, dev_, 0);
  EXPECT_EQ(Executor().RunMirrors(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), mallocs + 1);
  EXPECT_NE(gpu_.LastRunMirror(), nullptr);
  read(stream_, dev_, 4096);
  EXPECT_EQ(Executor().RunMirrors(), 1u) << "the stream's second run made another";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), mallocs + 1);

  // Off: the host table.
  Executor().SetRunTableOnDevice(false);
  MakeOtherStream();
  const uint64_t before = gpu_.Calls(GpuOp::kMalloc);
  read(other_, other_dev_, 100);
  EXPECT_EQ(gpu_.LastRunMirror(), nullptr);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), before);

  // Refused: asked once for the channel, the host table meanwhile.
  Executor().SetRunTableOnDevice(true);
  gpu_.FailTimes(GpuOp::kMalloc, 1, hipErrorOutOfMemory);
  read(other_, other_dev_, 0);
  EXPECT_EQ(gpu_.LastRunMirror(), nullptr);
  read(other_, other_dev_, 8192);
  EXPECT_EQ(gpu_.LastRunMirror(), nullptr);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), before + 1) << "asked again after a refusal";
  EXPECT_EQ(Executor().RunMirrors(), 1u);
  gpu_.Reset();
}

// Reads of one stream share its region (the stream copies into it only after the reads before
// copied out of it), so a budget of one region serves them all; another stream finds none left
// and is queued without, every byte right on both.
TEST_P(AsyncCopiedAheadTest, AStreamsReadsShareItsRegionWithinTheBudget) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(4 * kMiB);
  MakeOtherStream();
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &gate), hipSuccess);
  std::vector<AsyncSlot> slots;
  for (size_t i = 0; i < 3; ++i) {
    // (16-byte aligned offsets: the copy kernel copies unaligned bytes from staging instead.)
    slots.push_back(AsyncSlot{2 * kMiB + i, static_cast<off_t>(i * kMiB + 64), 0});
  }
  slots[1].buffer_offset = static_cast<off_t>(3 * kMiB);
  slots[2].buffer_offset = static_cast<off_t>(6 * kMiB);
  for (AsyncSlot& slot : slots) ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 3u);
  AsyncSlot on_other{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &on_other).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 3u) << "past the budget";
  EXPECT_EQ(Executor().DeviceScratchBytes(0), 4 * kMiB) << "one region, the budget";
  EXPECT_EQ(AsyncWays().ahead_no_room, 1u) << "hipFileExtGetAsyncWayStats says why";
  EXPECT_EQ(AsyncWays().ahead_not_pinned, 0u);
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  for (const AsyncSlot& slot : slots) {
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
    EXPECT_TRUE(
        HoldsFile(dev_, static_cast<size_t>(slot.buffer_offset), slot.file_offset, slot.size));
  }
  EXPECT_EQ(on_other.bytes, static_cast<ssize_t>(2 * kMiB));
  EXPECT_TRUE(HoldsFile(other_dev_, 0, 0, 2 * kMiB));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAhead(), 3u);
  // The region comes back (its last lease may go on the reaper's thread a moment after the reads
  // finished): the other stream gets it then.
  ASSERT_TRUE(testing::WaitUntil([&] { return Executor().DeviceScratchLeased(0) == 0; }))
      << "the region never came back";
  // (Held by a gate still closed: a stream found idle would get the copies at submission.)
  testing::StreamGate held;
  ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &held), hipSuccess);
  AsyncSlot again{2 * kMiB, static_cast<off_t>(kMiB), 0};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &again).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 4u);
  held.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  EXPECT_TRUE(HoldsFile(other_dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
  Executor().WaitIdle();
}

// The runtime refusing the copy ahead refuses the submission whole (nothing else is on the
// stream); the next read works and is copied ahead into the same region.
TEST_P(AsyncCopiedAheadTest, ARefusedCopyAheadRefusesTheSubmission) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  gpu_.FailNth(GpuOp::kMemcpyAsync, 1, hipErrorLaunchFailure);
  AsyncSlot slot{kMiB, 0, 0};
  const Status submitted = SubmitSlot(fh, &slot);
  EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
  EXPECT_EQ(slot.bytes, 0) << "set to 0 at submission, and left so";
  EXPECT_EQ(Executor().CopiedAhead(), 0u);
  gpu_.Reset();
  AsyncSlot next{kMiB, static_cast<off_t>(kMiB), 0};
  ASSERT_TRUE(SubmitSlot(fh, &next).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 1u);
  gate.Open();
  Sync();
  EXPECT_EQ(next.bytes, static_cast<ssize_t>(kMiB));
  EXPECT_TRUE(HoldsFile(dev_, 0, static_cast<off_t>(kMiB), kMiB));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().Outstanding(), 0u);
}

// Refused after its copies ahead are on the stream (the runtime refuses `write reached`): nothing
// says when the stream is past them, so their region is never leased again (a late copy would
// land in another read's bytes); another stream's read gets a region of its own, every byte right.
TEST_P(AsyncCopiedAheadTest, ARefusalAfterItsCopiesAheadKeepsTheirRegionFromOtherReads) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(4 * kMiB);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  gpu_.FailNth(GpuOp::kStreamWriteValue32, 1, hipErrorLaunchFailure);
  AsyncSlot refused{2 * kMiB, 0, 0};
  const Status submitted = SubmitSlot(fh, &refused);
  EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
  gpu_.Reset();
  // Still leased with nothing in flight: the copies ahead were queued, and their region kept.
  EXPECT_EQ(Executor().Outstanding(), 0u);
  EXPECT_EQ(Executor().DeviceScratchLeased(0), 2 * kMiB);
  MakeOtherStream();
  testing::StreamGate other_gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &other_gate), hipSuccess);
  AsyncSlot read{2 * kMiB, static_cast<off_t>(kMiB), 0};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &read).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 1u);
  EXPECT_EQ(Executor().DeviceScratchBytes(0), 4 * kMiB) << "the refused read's region was reused";
  other_gate.Open();
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  EXPECT_EQ(refused.bytes, 0);
  EXPECT_EQ(read.bytes, static_cast<ssize_t>(2 * kMiB));
  EXPECT_TRUE(HoldsFile(other_dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
  Executor().WaitIdle();
  testing::WaitUntil([&] { return Executor().DeviceScratchLeased(0) <= 2 * kMiB; });
  EXPECT_EQ(Executor().DeviceScratchLeased(0), 2 * kMiB) << "the refused read's region came back";
}

// A read whose bytes are not all in pinned windows, and a read below kAheadMinBytes, are not
// copied ahead.
TEST_P(AsyncCopiedAheadTest, OnlyWholeResidentReadsOfAMebibyteOrMore) {
  void* fh = OpenFile("f", kFile);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot unpinned{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &unpinned).ok());
  gate.Open();
  Sync();
  EXPECT_EQ(Executor().CopiedAhead(), 0u);
  EXPECT_EQ(AsyncWays().ahead_not_pinned, 1u) << "hipFileExtGetAsyncWayStats says why";
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, 2 * kMiB));
  PinBySyncReads(fh);
  testing::StreamGate gate2;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate2), hipSuccess);
  AsyncSlot small{AsyncExecutor::kAheadMinBytes - 1, 3, 0};
  ASSERT_TRUE(SubmitSlot(fh, &small).ok());
  gate2.Open();
  Sync();
  EXPECT_EQ(Executor().CopiedAhead(), 0u);
  EXPECT_EQ(AsyncWays().ahead_not_pinned, 1u) << "a small read is not counted";
  EXPECT_EQ(AsyncWays().ahead_no_room, 0u);
  EXPECT_TRUE(HoldsFile(dev_, 0, 3, small.size));
  Executor().WaitIdle();
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncCopiedAheadTest, ::testing::Values(Path::kAsync),
                         PathName);

// The Driver hands the setting (HIPFILE_ASYNC_COPY_RUNS=off, parsed into Config) to its executor.
class AsyncCopyRunsOffTest : public AsyncWindowsTest {
 protected:
  AsyncCopyRunsOffTest()
      : AsyncWindowsTest({}, [](Config& config) { config.async_copy_runs = AsyncCopyRuns::kOff; }) {
  }
};

TEST_P(AsyncCopyRunsOffTest, TheDriversExecutorLaunchesPerToken) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{4 * kMiB, 0, 0};  // two chunks, copied ahead
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableAsync), 2u);
  gate.Open();
  Sync();
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, 4 * kMiB));
  Executor().WaitIdle();
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncCopyRunsOffTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
