// SPDX-License-Identifier: MIT
// Stream-ordered reads copied ahead in parts (docs/async.md, "Reads copied ahead in parts"): a
// read copied ahead for which the device memory budget has no room whole, where parts are set
// (HIPFILE_ASYNC_AHEAD_PART_MB), is copied into one region of the part's size a part at a time -
// each part's copies on the stream after the launch that copied the part before out of the
// region, one launch a part - and every byte arrives from the region, in the order the stream
// runs them. Through a core::Driver on FaultRuntime over the CPU runtime (staged, as on a GPU).
// The file is 8 MiB + 12345 bytes, in one pinned 64 MiB window; parts of 8 MiB: two. On a
// companion (HIPFILE_ASYNC_AHEAD_STREAM), parts of 2 MiB through two slots taken in turn: five.
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "core/async/async_executor.h"
#include "fakes/wait_until.h"
#include "reliability/async_windows_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kPart = 8 * kMiB;

class AsyncAheadPartsTest : public AsyncWindowsTest {
 protected:
  AsyncAheadPartsTest() {
    // Room for a part (8 MiB), not for a read of the whole file.
    Executor().SetDeviceScratchBytes(kPart);
    Executor().SetAheadPartBytes(kPart);
  }
  // Copies ahead on a companion, in parts of 2 MiB, within a budget of `budget` bytes (room for
  // two slots by default).
  void OnACompanion(size_t budget = 4 * kMiB) {
    Executor().SetAheadStream(true);
    Executor().SetAheadPartBytes(2 * kMiB);
    Executor().SetDeviceScratchBytes(budget);
  }
  // A busy stream's read of the whole file (*fh, its window pinned), in parts, the runtime
  // refusing the nth call of `op` while it is queued: the submission fails, the caller's variable
  // is left 0, and the stream runs what was queued.
  void SubmitARefusedRead(GpuOp op, uint64_t nth, void** fh) {
    *fh = OpenFile("f", kFile);
    PinBySyncReads(*fh);
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    gpu_.FailNth(op, nth, hipErrorLaunchFailure);
    AsyncSlot refused{kFile, 0, 0};
    const Status submitted = SubmitSlot(*fh, &refused);
    EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
    gpu_.Reset();
    gate.Open();
    Sync();
    EXPECT_EQ(refused.bytes, 0) << "set to 0 at submission, and left so";
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
  }
  // A 2 MiB read on the other stream, held busy: copied ahead or not, every byte right.
  void ReadOnAnotherStream(void* fh, bool copied_ahead) {
    MakeOtherStream();
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &gate), hipSuccess);
    const size_t copied = Executor().CopiedAhead();
    AsyncSlot read{2 * kMiB, static_cast<off_t>(kMiB), 0};
    ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &read).ok());
    EXPECT_EQ(Executor().CopiedAhead() - copied, copied_ahead ? 1u : 0u);
    gate.Open();
    ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
    EXPECT_EQ(read.bytes, static_cast<ssize_t>(2 * kMiB));
    EXPECT_TRUE(HoldsFile(other_dev_, 0, static_cast<off_t>(kMiB), 2 * kMiB));
    Executor().WaitIdle();
  }
};

// Two streams busy at once share the 8 MiB budget: a read of 8 MiB on the first, more than its
// half, goes in parts of 4 MiB, which leaves room for the second stream's read of 4 MiB - where
// the first stream's read whole would leave none (ahead_no_room). The second stream counts once
// it submitted a read that may be copied ahead (a 2 MiB one, done before the others).
TEST_P(AsyncAheadPartsTest, BusyStreamsShareTheBudget) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  MakeOtherStream();
  {
    testing::StreamGate held;
    ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &held), hipSuccess);
    AsyncSlot earlier{2 * kMiB, 0, 0};
    ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &earlier).ok());
    EXPECT_EQ(AsyncWays().copied_ahead, 1u);
    held.Open();
    ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
    EXPECT_EQ(earlier.bytes, static_cast<ssize_t>(2 * kMiB));
    Executor().WaitIdle();
    ExpectLeasedSettlesAt(0);
  }
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot first{kPart, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &first).ok());
  EXPECT_EQ(AsyncWays().ahead_in_parts, 1u) << "more than its share: in parts";
  EXPECT_EQ(Executor().DeviceScratchLeased(0), kPart / 2) << "one part's region, half the budget";
  AsyncSlot second{kPart / 2, static_cast<off_t>(kMiB), static_cast<off_t>(kMiB)};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &second).ok());
  EXPECT_EQ(AsyncWays().copied_ahead, 3u);
  EXPECT_EQ(AsyncWays().ahead_no_room, 0u) << "the second stream found its share";
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  EXPECT_EQ(first.bytes, static_cast<ssize_t>(kPart));
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, kPart));
  EXPECT_EQ(second.bytes, static_cast<ssize_t>(kPart / 2));
  EXPECT_TRUE(
      HoldsFile(other_dev_, static_cast<size_t>(kMiB), static_cast<off_t>(kMiB), kPart / 2));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAheadBytes(), 2 * kMiB + kPart + kPart / 2)
      << "every byte from the regions";
  ExpectLeasedSettlesAt(0);
}

// Streams that submit only small reads (and writes) use none of the budget and take no share of
// it: beside one that read 64 KiB lately, a busy stream's read of the whole budget is copied ahead
// whole, not in halves. (Until 2026-12-06 every stream that submitted lately counted.)
TEST_P(AsyncAheadPartsTest, StreamsOfSmallReadsTakeNoShare) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  MakeOtherStream();
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot small{64 << 10, 0, 0};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &small).ok());
  AsyncSlot whole{kPart, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &whole).ok());
  EXPECT_EQ(AsyncWays().copied_ahead, 1u);
  EXPECT_EQ(AsyncWays().ahead_in_parts, 0u) << "the whole budget is its share: whole";
  EXPECT_EQ(Executor().DeviceScratchLeased(0), kPart);
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  EXPECT_EQ(small.bytes, static_cast<ssize_t>(64 << 10));
  EXPECT_EQ(whole.bytes, static_cast<ssize_t>(kPart));
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, kPart));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAheadBytes(), kPart) << "every byte from the region";
  ExpectLeasedSettlesAt(0);
}

// A busy stream's read of the whole file: two parts through one 8 MiB region, one launch each
// (tokens 0-3 for the first, 4 for the second), every byte from the region (so each launch found
// its part there, after the part before was copied out), nothing staged; the region comes back.
// With parts off (the default) the same read is not copied ahead: the copy kernel copies it from
// the windows.
TEST_P(AsyncAheadPartsTest, AReadTheBudgetCannotHoldWholeIsCopiedAheadInParts) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  for (const bool parts : {true, false}) {
    SCOPED_TRACE(parts ? "in parts" : "parts off");
    Executor().SetAheadPartBytes(parts ? kPart : 0);
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    const uint64_t page_cache = ReadBytes(hipFileExtPathPageCache);
    const uint64_t preads = sys_.Calls(SysOp::kPread);
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    const uint64_t tables = gpu_.Calls(GpuOp::kCopyTableAsync);
    const size_t copied = Executor().CopiedAhead();
    const uint64_t used_bytes = Executor().UsedAheadBytes();
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot slot{kFile, 0, 16};  // five chunks of 2 MiB
    ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
    EXPECT_EQ(Executor().CopiedAhead() - copied, parts ? 1u : 0u);
    EXPECT_EQ(Executor().AheadInParts(), 1u) << "counted once, in parts";
    EXPECT_EQ(AsyncWays().ahead_in_parts, 1u) << "hipFileExtGetAsyncWayStats";
    EXPECT_EQ(AsyncWays().copied_ahead, 1u);
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync) - runs, parts ? 2u : 1u);
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableAsync), tables) << "a launch per token";
    const auto [first, last] = gpu_.LastRunTokens();
    EXPECT_EQ(last - first, parts ? 0u : 4u) << "the last part is token 4 alone";
    gate.Open();
    Sync();
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
    EXPECT_TRUE(HoldsFile(dev_, 16, 0, kFile));
    EXPECT_EQ(DeviceBytes(16)[15], 0xee);
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
    EXPECT_EQ(Executor().UsedAheadBytes() - used_bytes, parts ? kFile : 0u)
        << "every byte from the region";
    EXPECT_EQ(ReadBytes(hipFileExtPathPageCache) - page_cache, kFile);
    EXPECT_EQ(sys_.Calls(SysOp::kPread), preads) << "a resident byte was staged";
    EXPECT_EQ(Executor().DeviceScratchBytes(0), kPart) << "one region, the budget";
    ExpectLeasedSettlesAt(0);
  }
}

// Values changed after submission are the ones read: the bytes of the part the stream holds in
// the region when it runs a chunk come from there, the rest from the windows; every byte right,
// nothing past the read touched.
TEST_P(AsyncAheadPartsTest, ValuesChangedAfterSubmissionAreTheOnesRead) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  struct Case {
    off_t file_offset;
    size_t size;
    off_t buffer_offset;
    uint64_t from_region;  // UsedAheadBytes() it adds
  };
  // Submitted as the whole file into buffer offset 0.
  for (const Case c : {Case{static_cast<off_t>(4 * kMiB), 4 * kMiB + 12345, 0, 4 * kMiB},
                       Case{static_cast<off_t>(2 * kMiB), 6 * kMiB + 100, 32, 6 * kMiB},
                       Case{static_cast<off_t>(kMiB) + 5, 2 * kMiB, 0, 0},
                       Case{0, kPart + 100, 4096, kPart + 100}}) {
    SCOPED_TRACE(c.file_offset);
    SCOPED_TRACE(c.size);
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    const size_t parts = Executor().AheadInParts();
    const uint64_t used_bytes = Executor().UsedAheadBytes();
    ReadRebound(fh, AsyncSlot{kFile, 0, 0}, AsyncSlot{c.size, c.file_offset, c.buffer_offset},
                [&] { EXPECT_EQ(Executor().AheadInParts(), parts + 1); });
    const std::vector<unsigned char> after =
        DeviceBytes(static_cast<size_t>(c.buffer_offset) + c.size + 1);
    EXPECT_EQ(after.back(), 0xee) << "a byte past the read";
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
    EXPECT_EQ(Executor().UsedAheadBytes() - used_bytes, c.from_region);
  }
  ExpectLeasedSettlesAt(0);
}

// The parts' copies are queued after `write reached`: the read's worker may finish it (and the
// reaper destroy it) before the last parts' copies are queued. In 8 MiB chunks (a chunk a part)
// the worker fills every chunk as soon as the stream reaches the read; here the submission is
// held before queueing the second of three parts' copies until the worker has finished the read
// and the reaper had its turn. What the submission queues after that is its own, and the stream
// still finds each part in the region when it runs the part's launch: every byte right.
TEST_P(AsyncAheadPartsTest, AReadFinishedBeforeItsLastPartIsQueuedIsRightAndIntact) {
  constexpr size_t kBig = 20 * kMiB + 100;  // three parts: 8, 8 and 4 MiB
  void* fh = OpenFile("big", kBig);
  void* buffer = nullptr;
  ASSERT_EQ(gpu_.Malloc(&buffer, kBig), hipSuccess);
  for (int i = 0; i < 2; ++i) {  // its window pinned at the second read (pin-after 2)
    const Result<size_t> n = driver_->Read(fh, buffer, kBig, 0, 0);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
  }
  ASSERT_EQ(gpu_.Memset(buffer, 0xee, kBig), hipSuccess);
  Executor().SetCopyAtSubmission(false);  // the idle stream's way, not its copies at submission
  Executor().SetLargeChunksFrom(kPart);   // 8 MiB chunks
  std::atomic<int> copies{0};
  std::atomic<bool> finished_first{false};
  gpu_.BeforeCall(GpuOp::kMemcpyAsync, [&] {
    if (++copies != 2) return;  // the second part's copy
    testing::WaitUntil([&] { return Executor().UsedAhead() > 0; });
    finished_first = Executor().UsedAhead() == 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the reaper's turn
  });
  AsyncSlot slot{kBig, 0, 0};
  ASSERT_TRUE(SubmitSlotOn(stream_, fh, buffer, &slot).ok());
  gpu_.Reset();
  EXPECT_EQ(copies.load(), 3) << "a copy a part";
  EXPECT_TRUE(finished_first.load()) << "the worker did not finish first: the test shows nothing";
  EXPECT_EQ(Executor().LargeChunkOperations(), 1u);
  Sync();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kBig));
  std::vector<unsigned char> got(kBig);
  ASSERT_EQ(gpu_.Memcpy(got.data(), buffer, kBig, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_TRUE(got == testing::PatternBytes(kBig)) << "a byte wrong";
  Executor().WaitIdle();
  EXPECT_EQ(Executor().AheadInParts(), 1u);
  EXPECT_EQ(Executor().UsedAheadBytes(), kBig) << "every byte from the region";
  EXPECT_EQ(Executor().Outstanding(), 0u);
  ExpectLeasedSettlesAt(0);
  (void)gpu_.Free(buffer);
}

// A stream's reads share its region: a read in parts while an earlier one holds it, and a read
// that fits whole takes it whole; meanwhile another stream finds no room and goes without. Every
// byte right, and the region comes back.
TEST_P(AsyncAheadPartsTest, AStreamsReadsShareItsRegionAndAnotherGoesWithout) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  MakeOtherStream();
  runtime::Stream other = other_;
  void* other_dev = other_dev_;
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_.LaunchHostFunc(other, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot a{kFile, 0, 0};
  AsyncSlot b{kFile - 4096, 4096, 0};
  AsyncSlot c{4 * kMiB, static_cast<off_t>(kMiB), 0};
  AsyncSlot d{kFile - 100, 100, 0};
  ASSERT_TRUE(SubmitSlot(fh, &a).ok());
  ASSERT_TRUE(SubmitSlot(fh, &b).ok());
  ASSERT_TRUE(SubmitSlot(fh, &c).ok());
  EXPECT_EQ(Executor().AheadInParts(), 2u);
  EXPECT_EQ(Executor().CopiedAhead(), 3u) << "the 4 MiB read, whole in the stream's region";
  ASSERT_TRUE(SubmitSlotOn(other, fh, other_dev, &d).ok());
  EXPECT_EQ(Executor().CopiedAhead(), 3u) << "past the budget";
  EXPECT_EQ(Executor().DeviceScratchBytes(0), kPart) << "one region, the budget";
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other), hipSuccess);
  for (const AsyncSlot* slot : {&a, &b, &c, &d}) {
    EXPECT_EQ(slot->bytes, static_cast<ssize_t>(slot->size));
  }
  // b's bytes past what c wrote over them, c's, and d's.
  EXPECT_TRUE(HoldsFile(dev_, 4 * kMiB, 4096 + static_cast<off_t>(4 * kMiB), b.size - 4 * kMiB));
  EXPECT_TRUE(HoldsFile(dev_, 0, static_cast<off_t>(kMiB), 4 * kMiB));
  EXPECT_TRUE(HoldsFile(other_dev, 0, 100, d.size));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().Outstanding(), 0u);
  EXPECT_EQ(Executor().UsedAhead(), 3u);
  ExpectLeasedSettlesAt(0);
}

// The runtime refusing the second part's copy: the submission fails (its caller's variable left
// 0), the first part's copy was followed by its launch's `copied`, so its windows and region go
// once the stream is past it; the channel takes no more staged reads, but a read on another
// stream gets the region.
TEST_P(AsyncAheadPartsTest, ARefusedPartsCopyFailsTheReadAndFreesItsRegion) {
  void* fh = nullptr;
  SubmitARefusedRead(GpuOp::kMemcpyAsync, 2, &fh);
  ExpectLeasedSettlesAt(0);
  ReadOnAnotherStream(fh, /*copied_ahead=*/true);
}

// Refused after a part's copy is on the stream (its token's wait refused): nothing says when that
// copy is done, so the region is never leased again (the copy would land in another read's
// bytes), and its windows stay leased; another stream's read then finds no room and goes
// without, every byte right.
TEST_P(AsyncAheadPartsTest, ARefusalAfterAPartsCopyKeepsItsRegionFromOtherReads) {
  // The chain: reached, the first part's copy, wait (token 0), the launch, copied, the second
  // part's copy, wait (token 4): refused.
  void* fh = nullptr;
  SubmitARefusedRead(GpuOp::kStreamWaitValue32, 2, &fh);
  ExpectLeasedSettlesAt(kPart);  // retired
  ReadOnAnotherStream(fh, /*copied_ahead=*/false);
  EXPECT_EQ(Executor().DeviceScratchLeased(0), kPart);
}

// On a companion with room for two slots of a part (2 MiB parts, a 4 MiB budget): the file's five
// parts go through the slots in turn, each part's copies on the companion - the first once the
// stream has reached the read (an event the stream records, the companion waits for), each later
// one once the stream has copied the part two back out of its slot (`freed`) - and the stream
// waits for them (`done`) before the part's launch. Two reads back to back on the stream, sharing
// its region: every byte from the slots, right. Without the `freed` waits the third part's copy
// lands in the slot the first part's launch reads; without the wait for the stream to reach the
// read, the second read's first copy lands in the slot of the first read's last part.
TEST_P(AsyncAheadPartsTest, OnACompanionPartsGoThroughTwoSlotsInTurn) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  MakeOtherStream();  // for its buffer
  OnACompanion();
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    ASSERT_EQ(gpu_.Memset(other_dev_, 0xee, kBuffer), hipSuccess);
    const uint64_t records = gpu_.Calls(GpuOp::kEventRecord);
    const uint64_t waits = gpu_.Calls(GpuOp::kStreamWaitEvent);
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    const uint64_t used_bytes = Executor().UsedAheadBytes();
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot a{kFile, 0, 16};
    AsyncSlot b{kFile - 4096, 4096, 0};
    ASSERT_TRUE(SubmitSlot(fh, &a).ok());
    ASSERT_TRUE(SubmitSlotOn(stream_, fh, other_dev_, &b).ok());
    EXPECT_EQ(Executor().AheadInParts(), 2u * (round + 1));
    EXPECT_EQ(Executor().AheadOnCompanion(), 2u * (round + 1));
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync) - runs, 2u * 5) << "a launch a part";
    // Each read: the stream's record before its first part, then `done` and `freed` each part;
    // the companion's wait for the first, the stream's for each part's `done`, the companion's
    // for `freed` from the third part on.
    EXPECT_EQ(gpu_.Calls(GpuOp::kEventRecord) - records, 2u * (1 + 5 + 5));
    EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitEvent) - waits, 2u * (1 + 5 + 3));
    gate.Open();
    Sync();
    EXPECT_EQ(a.bytes, static_cast<ssize_t>(kFile));
    EXPECT_EQ(b.bytes, static_cast<ssize_t>(b.size));
    EXPECT_TRUE(HoldsFile(dev_, 16, 0, kFile));
    EXPECT_EQ(DeviceBytes(16)[15], 0xee);
    EXPECT_TRUE(HoldsFile(other_dev_, 0, 4096, b.size));
    Executor().WaitIdle();
    EXPECT_EQ(Executor().Outstanding(), 0u);
    EXPECT_EQ(Executor().UsedAheadBytes() - used_bytes, a.size + b.size)
        << "every byte from the slots";
  }
  EXPECT_EQ(Executor().DeviceScratchBytes(0), 4 * kMiB) << "two slots, the budget";
  ExpectLeasedSettlesAt(0);
}

// On a companion with room for one slot only: the parts go through it on the stream, as without
// a companion, every byte right.
TEST_P(AsyncAheadPartsTest, OnACompanionWithRoomForOneSlotThePartsGoOnTheStream) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  OnACompanion(2 * kMiB);  // room for one slot
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  const uint64_t waits = gpu_.Calls(GpuOp::kStreamWaitEvent);
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().AheadInParts(), 1u);
  EXPECT_EQ(Executor().AheadOnCompanion(), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitEvent), waits) << "nothing on the companion";
  gate.Open();
  Sync();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, kFile));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().UsedAheadBytes(), kFile);
  ExpectLeasedSettlesAt(0);
}

// On a companion, the runtime refusing the companion's wait for the first slot to be free again
// (the submission's fourth event wait), after the second part's copies were followed by their
// launch and `copied`: the submission fails, and the region goes once the stream is past them;
// another stream's read then gets room.
TEST_P(AsyncAheadPartsTest, OnACompanionARefusedWaitForAFreeSlotFreesTheRegion) {
  OnACompanion();
  void* fh = nullptr;
  SubmitARefusedRead(GpuOp::kStreamWaitEvent, 4, &fh);
  ExpectLeasedSettlesAt(0);
  ReadOnAnotherStream(fh, /*copied_ahead=*/true);
}

// On a companion, the runtime refusing the stream's wait for the second part's copies (the third
// event wait), queued on the companion already: nothing says when they land, so the region (both
// slots) is never leased again, and another stream's read finds no room.
TEST_P(AsyncAheadPartsTest, OnACompanionARefusalAfterCopiesQueuedRetiresTheRegion) {
  OnACompanion();
  void* fh = nullptr;
  SubmitARefusedRead(GpuOp::kStreamWaitEvent, 3, &fh);
  ExpectLeasedSettlesAt(4 * kMiB);  // retired
  ReadOnAnotherStream(fh, /*copied_ahead=*/false);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadPartsTest, ::testing::Values(Path::kAsync),
                         PathName);

// The Driver hands the setting (HIPFILE_ASYNC_AHEAD_PART_MB, parsed into Config; rounded up to a
// multiple of 2 MiB: 3 is 4) to its executor.
class AsyncAheadPartMbTest : public AsyncWindowsTest {
 protected:
  AsyncAheadPartMbTest()
      : AsyncWindowsTest({}, [](Config& config) { config.async_ahead_part_mb = 3; }) {}
};

TEST_P(AsyncAheadPartMbTest, TheDriversExecutorCopiesAheadInParts) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  Executor().SetDeviceScratchBytes(kPart);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().AheadInParts(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync), 3u) << "parts of 4 MiB";
  gate.Open();
  Sync();
  EXPECT_TRUE(HoldsFile(dev_, 0, 0, kFile));
  Executor().WaitIdle();
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadPartMbTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
