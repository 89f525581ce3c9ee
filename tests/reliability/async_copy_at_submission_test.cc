// SPDX-License-Identifier: MIT
// Stream-ordered reads copied from pinned page-cache windows at submission (docs/async.md, "Reads
// copied from windows at submission"; HIPFILE_ASYNC_COPY_AT_SUBMISSION): where the parameters are
// known at submission (the stream registered with every HIPFILE_STREAM_FIXED_* flag, or idle) and
// every byte is in a pinned window, the copies go on the stream there and then, in stream order,
// and the windows stay leased until the stream has made them. Through a core::Driver on
// FaultRuntime over the CPU runtime (staged, as on a GPU). Windows are 64 MiB (the Driver's).
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "fakes/wait_until.h"
#include "reliability/async_windows_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kMiB = size_t{1} << 20;

class AsyncCopyAtSubmissionTest : public AsyncWindowsTest {
 protected:
  explicit AsyncCopyAtSubmissionTest(const runtime::CpuRuntimeOptions& options = {},
                                     const std::function<void(Config&)>& adjust = {})
      : AsyncWindowsTest(options, adjust) {}
  // The device buffer holds the file's bytes [offset, offset + size) at `at`.
  bool DeviceHoldsFile(size_t at, off_t offset, size_t size) {
    const std::vector<unsigned char> file = testing::PatternBytes(kFile);
    const std::vector<unsigned char> got = DeviceBytes(at + size);
    return std::equal(got.begin() + static_cast<ptrdiff_t>(at), got.end(), file.begin() + offset);
  }
  // Every window lease let go: the executor has nothing outstanding (its poller releases them).
  void WaitUntilIdle() { Executor().WaitIdle(); }
  // *slot read from a pinned file on stream_ (not registered) behind `gate`.
  void SubmitBehind(testing::StreamGate& gate, AsyncSlot* slot) {
    void* fh = OpenFile("f", kFile);
    PinBySyncReads(fh);
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    ASSERT_TRUE(SubmitSlot(fh, slot).ok());
  }
  // Changes the slot's values (4 KiB at offset 0) before the stream gets there, then lets it go.
  void ChangeThenRun(testing::StreamGate& gate, AsyncSlot* slot) {
    slot->size = 4096;
    slot->file_offset = 0;
    gate.Open();
    ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  }
};

// On an idle stream a resident, pinned read is copied at submission: *bytes_p is set when the call
// returns, the bytes arrive once the stream gets there, they count as page_cache, and nothing is
// staged or waited for on the stream.
TEST_P(AsyncCopyAtSubmissionTest, AnIdleStreamGetsTheCopiesAtSubmission) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const uint64_t page_cache = ReadBytes(hipFileExtPathPageCache);
  const uint64_t preads = sys_.Calls(SysOp::kPread);
  gpu_.Reset();
  AsyncSlot slot{5 * kMiB + 7, 12345, 3};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
  EXPECT_EQ(Executor().CopiedAtSubmission(), 1u);
  EXPECT_EQ(AsyncWays().read_ops[hipFileExtAsyncWayCopiedAtSubmission], 1u);
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(DeviceHoldsFile(3, 12345, slot.size));
  const std::vector<unsigned char> got = DeviceBytes(slot.size + 4);
  EXPECT_EQ(got[2], 0xee);
  EXPECT_EQ(got[slot.size + 3], 0xee);
  EXPECT_EQ(ReadBytes(hipFileExtPathPageCache) - page_cache, slot.size);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), preads) << "a resident byte was staged";
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitValue32), 0u) << "the stream waited on the library";
  EXPECT_GE(gpu_.Calls(GpuOp::kMemcpyAsync), 1u);
  WaitUntilIdle();
}

// A stream registered with every FIXED flag gets the copies at submission even with work ahead of
// them, and they run after that work, in stream order. Meanwhile the windows stay leased: a
// deregistration of the file does not unpin them.
TEST_P(AsyncCopyAtSubmissionTest, FixedParametersCopyAtSubmissionBehindEarlierWork) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  ASSERT_TRUE(driver_->RegisterStream(stream_, kAllFixed).ok());
  testing::StreamGate gate;
  gate.FillOnOpen(dev_, kBuffer);
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CopiedAtSubmission(), 1u);
  EXPECT_EQ(Executor().Outstanding(), 1u) << "the read holds its windows until its copies";
  const uint64_t unpins = gpu_.Calls(GpuOp::kHostUnregister);
  driver_->DeregisterHandle(fh);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), unpins) << "a leased window was unpinned";
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(DeviceHoldsFile(0, 0, kFile)) << "the copies did not run after the earlier work";
  EXPECT_EQ(DeviceBytes(kFile + 1)[kFile], 0x11);
  WaitUntilIdle();
  EXPECT_TRUE(driver_->DeregisterStream(stream_).ok());
}

// The stream can make a read's copies and pass its `done` before the submitting thread has handed
// the read's window leases to the channel: the poller, releasing an earlier read's leases
// meanwhile, stops at the later read's entry until it is filled (it once let the empty entry go,
// counting it off early, and the submission then wrote its leases past the end of the list).
// FaultRuntime::AfterCall holds the submission right after it queued `done`; a read held on a
// second stream keeps the poller going round meanwhile.
TEST_P(AsyncCopyAtSubmissionTest, TheStreamPassingAReadBeforeItsSubmissionEndsLosesNothing) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  runtime::Stream other = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&other, hipStreamNonBlocking), hipSuccess);
  for (runtime::Stream s : {stream_, other}) {
    ASSERT_TRUE(driver_->RegisterStream(s, kAllFixed).ok());
  }
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  // Each stream's first read waits behind a gate: their entries are in their channels' lists,
  // which the poller watches.
  testing::StreamGate gate, other_gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_.LaunchHostFunc(other, &testing::StreamGate::Wait, &other_gate), hipSuccess);
  AsyncSlot first{kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &first).ok());
  AsyncSlot on_other{kMiB, 3 * kMiB, 3 * kMiB};
  ASSERT_TRUE(SubmitSlotOn(other, fh, dev_, &on_other).ok());
  ASSERT_EQ(Executor().Outstanding(), 2u);
  // The second read's submission on stream_, once it queued `done`: the stream runs both reads'
  // copies and passes both `done`s, and the poller lets the first read's leases go and keeps
  // going round for the other stream's.
  size_t outstanding_meanwhile = 12345;
  bool first_released = false;
  gpu_.AfterCall(GpuOp::kStreamWriteValue32, [&] {
    gate.Open();
    EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    first_released = testing::WaitUntil([&] { return Executor().Outstanding() <= 2; });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // more rounds of the poller
    outstanding_meanwhile = Executor().Outstanding();
  });
  AsyncSlot second{2 * kMiB, static_cast<off_t>(kMiB), static_cast<off_t>(kMiB)};
  const Status submitted = SubmitSlot(fh, &second);
  gpu_.Reset();  // the hook refers to this test's locals
  ASSERT_TRUE(submitted.ok()) << submitted.ToString();
  EXPECT_TRUE(first_released) << "the poller did not let the first read's leases go";
  EXPECT_EQ(outstanding_meanwhile, 2u)
      << "the second read's entry was let go before its leases were in";
  EXPECT_EQ(Executor().CopiedAtSubmission(), 3u);
  other_gate.Open();
  for (runtime::Stream s : {stream_, other}) ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(first.bytes, static_cast<ssize_t>(kMiB));
  EXPECT_EQ(second.bytes, static_cast<ssize_t>(2 * kMiB));
  EXPECT_EQ(on_other.bytes, static_cast<ssize_t>(kMiB));
  EXPECT_TRUE(DeviceHoldsFile(0, 0, 4 * kMiB));
  // The second read's leases go once it is filled in: nothing is left outstanding.
  WaitUntilIdle();
  EXPECT_EQ(Executor().Outstanding(), 0u);
  for (runtime::Stream s : {stream_, other}) EXPECT_TRUE(driver_->DeregisterStream(s).ok());
  EXPECT_EQ(gpu_.StreamDestroy(other), hipSuccess);
}

// Without the FIXED flags, a stream with work ahead binds the parameters when it gets there: the
// read is queued as before, and sees a size changed meanwhile.
TEST_P(AsyncCopyAtSubmissionTest, ABusyStreamWithoutFixedParametersIsQueued) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  slot.size = kMiB;
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kMiB));
  EXPECT_TRUE(DeviceHoldsFile(0, 0, kMiB));
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  WaitUntilIdle();
}

// A read whose window is not pinned yet is queued, staged as before, and its bytes are counted
// once (the attempt at submission leaves no trace in the statistics).
TEST_P(AsyncCopyAtSubmissionTest, UnpinnedBytesAreQueuedAndCountedOnce) {
  void* fh = OpenFile("f", kFile);
  const uint64_t before = AllReadBytes();
  AsyncSlot slot{kFile, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
  EXPECT_TRUE(DeviceHoldsFile(0, 0, kFile));
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  EXPECT_EQ(AllReadBytes() - before, kFile) << "bytes counted twice or not at all";
  WaitUntilIdle();
}

// A read past the end of the file goes the stream's way (its short count is decided there).
TEST_P(AsyncCopyAtSubmissionTest, AReadPastTheEndIsQueued) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  AsyncSlot slot{kMiB, static_cast<off_t>(kFile - 100), 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(slot.bytes, 100);
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  WaitUntilIdle();
}

// The runtime refusing the first copy refuses the submission whole: nothing is on the stream, the
// windows are let go, and the next read works.
TEST_P(AsyncCopyAtSubmissionTest, ARefusedCopyRefusesTheSubmission) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  gpu_.FailNth(GpuOp::kMemcpyAsync, 1, hipErrorLaunchFailure);
  AsyncSlot slot{kMiB, 0, 0};
  const Status submitted = SubmitSlot(fh, &slot);
  EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
  EXPECT_EQ(Executor().Outstanding(), 0u);
  gpu_.Reset();
  AsyncSlot next{kMiB, kMiB, 0};
  ASSERT_TRUE(SubmitSlot(fh, &next).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(next.bytes, static_cast<ssize_t>(kMiB));
  EXPECT_TRUE(DeviceHoldsFile(0, kMiB, kMiB));
  WaitUntilIdle();
}

// Two devices: the copies are queued from the submitting thread, so only where the stream's device
// is current; a submission made with another device current is queued, and its stream's way
// reads the same bytes.
class AsyncCopyAtSubmissionDevicesTest : public AsyncCopyAtSubmissionTest {
 protected:
  AsyncCopyAtSubmissionDevicesTest() : AsyncCopyAtSubmissionTest(TwoDevices()) {}
  static runtime::CpuRuntimeOptions TwoDevices() {
    runtime::CpuRuntimeOptions options;
    options.devices = 2;
    return options;
  }
};

TEST_P(AsyncCopyAtSubmissionDevicesTest, OnlyWithTheStreamsDeviceCurrent) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh);
  // A buffer and a stream of device 1.
  ASSERT_EQ(gpu_.SetDevice(1), hipSuccess);
  void* dev1 = nullptr;
  ASSERT_EQ(gpu_.Malloc(&dev1, kBuffer), hipSuccess);
  runtime::Stream stream1 = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream1, hipStreamNonBlocking), hipSuccess);
  ASSERT_TRUE(driver_->RegisterStream(stream1, kAllFixed).ok());
  // One 1 MiB read at `offset` into dev1 on stream1, waited for: *bytes_p.
  const auto read = [&](off_t offset) {
    AsyncSlot slot{kMiB, offset, 0};
    EXPECT_TRUE(SubmitSlotOn(stream1, fh, dev1, &slot).ok());
    EXPECT_EQ(gpu_.StreamSynchronize(stream1), hipSuccess);
    return slot.bytes;
  };
  // Submitted with device 0 current: queued.
  ASSERT_EQ(gpu_.SetDevice(0), hipSuccess);
  EXPECT_EQ(read(0), static_cast<ssize_t>(kMiB));
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  // With device 1 current: copied at submission.
  ASSERT_EQ(gpu_.SetDevice(1), hipSuccess);
  EXPECT_EQ(read(static_cast<off_t>(kMiB)), static_cast<ssize_t>(kMiB));
  EXPECT_EQ(Executor().CopiedAtSubmission(), 1u);
  const std::vector<unsigned char> file = testing::PatternBytes(kFile);
  std::vector<unsigned char> got(kMiB);
  ASSERT_EQ(gpu_.Memcpy(got.data(), dev1, kMiB, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), file.begin() + kMiB));
  WaitUntilIdle();
  EXPECT_TRUE(driver_->DeregisterStream(stream1).ok());
  EXPECT_EQ(gpu_.StreamDestroy(stream1), hipSuccess);
  EXPECT_EQ(gpu_.Free(dev1), hipSuccess);
  ASSERT_EQ(gpu_.SetDevice(0), hipSuccess);
}

// HIPFILE_ASYNC_ASSUME_FIXED: every operation is taken as on a stream registered with every FIXED
// flag. A read on an unregistered stream with work ahead of it is copied at submission, with the
// values of then: a size and offset changed before the stream gets there change nothing. The same
// read without the setting is queued and reads the changed values (the control).
class AsyncAssumeFixedTest : public AsyncCopyAtSubmissionTest {
 protected:
  AsyncAssumeFixedTest()
      : AsyncCopyAtSubmissionTest({}, [](Config& config) { config.async_assume_fixed = true; }) {}
};

TEST_P(AsyncAssumeFixedTest, AnUnregisteredBusyStreamsReadIsCopiedAtSubmission) {
  testing::StreamGate gate;
  AsyncSlot slot{kMiB, static_cast<off_t>(kMiB), 0};
  SubmitBehind(gate, &slot);
  EXPECT_EQ(Executor().CopiedAtSubmission(), 1u);
  EXPECT_EQ(AsyncWays().read_ops[hipFileExtAsyncWayCopiedAtSubmission], 1u);
  ChangeThenRun(gate, &slot);
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kMiB)) << "the values of submission";
  EXPECT_TRUE(DeviceHoldsFile(0, kMiB, kMiB));
  WaitUntilIdle();
}

TEST_P(AsyncCopyAtSubmissionTest, WithoutAssumeFixedAnUnregisteredBusyStreamsReadBindsLate) {
  testing::StreamGate gate;
  AsyncSlot slot{kMiB, static_cast<off_t>(kMiB), 0};
  SubmitBehind(gate, &slot);
  EXPECT_EQ(Executor().CopiedAtSubmission(), 0u);
  ChangeThenRun(gate, &slot);
  EXPECT_EQ(slot.bytes, 4096) << "the values of when the stream got there";
  EXPECT_TRUE(DeviceHoldsFile(0, 0, 4096));
  WaitUntilIdle();
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAssumeFixedTest, ::testing::Values(Path::kAsync),
                         PathName);

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncCopyAtSubmissionDevicesTest,
                         ::testing::Values(Path::kAsync), PathName);

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncCopyAtSubmissionTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
