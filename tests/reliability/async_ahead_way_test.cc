// SPDX-License-Identifier: MIT
// Parts or the windows' way, by measurement (docs/async.md): where the runtime's device reads host
// memory over a link and HIPFILE_ASYNC_AHEAD_PART_MB is not set, a new stream's first submission
// for a device, while nothing is in flight, times DMA and the copy kernel reading pinned host
// memory (core/async/host_read_probe.h) and chooses the way of the device's reads past their share
// of the budget: in parts where the kernel is slower than kWindowsFromKernelShare of DMA, the
// windows' way (parts off) otherwise. Through a core::Driver on FaultRuntime over the CPU runtime,
// which says it has a link (SetHostReadsCrossALink) and whose DMA or kernel is made slow by a
// host function of 100 ms ahead of each copy on its stream (HoldMemcpies, HoldCopyTables). A read
// the windows' way kept out of parts counts as ahead_windows_chosen (hipFileExtGetAsyncWayStats).
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <chrono>
#include <thread>

#include "core/async/async_executor.h"
#include "core/async/host_read_probe.h"
#include "fakes/gate.h"
#include "reliability/async_windows_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using Way = AsyncExecutor::AheadWay;

constexpr size_t kMiB = size_t{1} << 20;

void Nap(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

class AsyncAheadWayTest : public AsyncWindowsTest {
 protected:
  explicit AsyncAheadWayTest(const std::function<void(Config&)>& adjust = {})
      : AsyncWindowsTest({}, adjust) {
    gpu_.SetHostReadsCrossALink(true);
    // Room for the probe's 16 MiB; two busy streams' shares are 8 MiB each, so that a read of the
    // whole file (8 MiB + 12345) is past its share.
    Executor().SetDeviceScratchBytes(16 * kMiB);
  }

  // The other stream's first submission (a 2 MiB read, waited for): where the measurement is due.
  void FirstSubmissionOnTheOtherStream(void* fh) {
    MakeOtherStream();
    AsyncSlot read{2 * kMiB, 0, 0};
    ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &read).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
    EXPECT_EQ(read.bytes, static_cast<ssize_t>(2 * kMiB));
    Executor().WaitIdle();
  }

  // Both streams busy, a read of the whole file on stream_, past its share: in parts (two launches
  // of the run kernel, one a part) or not (one); every byte right either way.
  void ReadPastTheShare(bool in_parts) {
    const size_t parts = Executor().AheadInParts();
    const uint64_t chosen = AsyncWays().ahead_windows_chosen;
    const uint64_t runs = gpu_.Calls(GpuOp::kCopyTableRunAsync);
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    ASSERT_EQ(gpu_.LaunchHostFunc(other_, &testing::StreamGate::Wait, &gate), hipSuccess);
    AsyncSlot slot{kFile, 0, 0};
    ASSERT_TRUE(SubmitSlot(file_, &slot).ok());
    EXPECT_EQ(Executor().AheadInParts() - parts, in_parts ? 1u : 0u);
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync) - runs, in_parts ? 2u : 1u);
    EXPECT_EQ(AsyncWays().ahead_windows_chosen - chosen, in_parts ? 0u : 1u)
        << "hipFileExtGetAsyncWayStats says the measurement kept it whole";
    gate.Open();
    Sync();
    ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
    EXPECT_TRUE(HoldsFile(dev_, 0, 0, kFile));
    Executor().WaitIdle();
  }

  // The file opened and pinned, then the other stream's first submission with the kernel's
  // copies (or DMA's) made slow: the measurement.
  void MeasureWithASlow(bool kernel) {
    void* fh = OpenPinned();
    if (kernel) {
      gpu_.HoldCopyTables(&Nap, nullptr);
    } else {
      gpu_.HoldMemcpies(&Nap, nullptr);
    }
    FirstSubmissionOnTheOtherStream(fh);
    gpu_.HoldCopyTables(nullptr, nullptr);
    gpu_.HoldMemcpies(nullptr, nullptr);
  }

  void* OpenPinned() {
    file_ = OpenFile("f", kFile);
    PinBySyncReads(file_);
    return file_;
  }

  void* file_ = nullptr;
};

// The kernel four or more times slower than DMA here (each launch waits 100 ms): parts, the
// rates kept, and the read past its share goes in parts.
TEST_P(AsyncAheadWayTest, AKernelSlowerThanDmaKeepsParts) {
  MeasureWithASlow(/*kernel=*/true);
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kParts);
  const HostReadRates rates = Executor().HostReadRatesOf(0);
  EXPECT_GT(rates.kernel_gib_s, 0.0);
  EXPECT_LT(rates.kernel_gib_s, 0.16) << "16 MiB in no less than 100 ms";
  EXPECT_LT(rates.KernelShare(), kWindowsFromKernelShare);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 8u) << "four rounds of two ways, once";
  ReadPastTheShare(/*in_parts=*/true);
}

// DMA slow instead: the windows' way, and the read past its share is not copied in parts.
TEST_P(AsyncAheadWayTest, AKernelAsFastAsDmaTakesTheWindowsWay) {
  MeasureWithASlow(/*kernel=*/false);
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kWindows);
  const HostReadRates rates = Executor().HostReadRatesOf(0);
  EXPECT_LT(rates.dma_gib_s, 0.16);
  EXPECT_GE(rates.KernelShare(), kWindowsFromKernelShare);
  EXPECT_EQ(AsyncWays().ahead_windows_chosen, 0u) << "the first read was within its share";
  ReadPastTheShare(/*in_parts=*/false);
}

// A measurement the runtime fails (its second elapsed time): parts, no rates, nothing the probe
// made left behind, and the submission that was due to measure goes on as if it had not.
TEST_P(AsyncAheadWayTest, AFailedMeasurementKeepsParts) {
  void* fh = OpenPinned();
  const uint64_t streams = gpu_.Succeeded(GpuOp::kStreamCreate);
  const uint64_t events = gpu_.Succeeded(GpuOp::kEventCreate);
  const uint64_t streams_gone = gpu_.Succeeded(GpuOp::kStreamDestroy);
  const uint64_t events_gone = gpu_.Succeeded(GpuOp::kEventDestroy);
  gpu_.FailNth(GpuOp::kEventElapsedTime, 2, hipErrorLaunchFailure);
  FirstSubmissionOnTheOtherStream(fh);
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kParts);
  EXPECT_EQ(Executor().HostReadRatesOf(0).dma_gib_s, 0.0);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 2u) << "given up at the failure";
  // The test's own other stream is the one stream made and not destroyed.
  EXPECT_EQ(gpu_.Succeeded(GpuOp::kStreamCreate) - streams,
            gpu_.Succeeded(GpuOp::kStreamDestroy) - streams_gone + 1);
  EXPECT_EQ(gpu_.Succeeded(GpuOp::kEventCreate) - events,
            gpu_.Succeeded(GpuOp::kEventDestroy) - events_gone);
  ReadPastTheShare(/*in_parts=*/true);
}

// Nothing is measured while the library's own copies may be crossing the link: a new stream's
// first submission while a read is in flight leaves the choice to a later one.
TEST_P(AsyncAheadWayTest, NotMeasuredWhileReadsAreInFlight) {
  void* fh = OpenPinned();
  gpu_.SetHostReadsCrossALink(false);  // stream_'s first submission: nothing to measure
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
  AsyncSlot held{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &held).ok());
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kUndecided);
  gpu_.SetHostReadsCrossALink(true);
  MakeOtherStream();
  AsyncSlot meanwhile{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlotOn(other_, fh, other_dev_, &meanwhile).ok());
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kUndecided) << "a read was in flight";
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 0u);
  gate.Open();
  Sync();
  ASSERT_EQ(gpu_.StreamSynchronize(other_), hipSuccess);
  Executor().WaitIdle();
  // Their regions come back a moment after them: with none free the measurement would wait too.
  ExpectLeasedSettlesAt(0);
  runtime::Stream third = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&third, hipStreamNonBlocking), hipSuccess);
  AsyncSlot later{2 * kMiB, 0, 0};
  ASSERT_TRUE(SubmitSlotOn(third, fh, other_dev_, &later).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(third), hipSuccess);
  EXPECT_EQ(later.bytes, static_cast<ssize_t>(2 * kMiB));
  EXPECT_NE(Executor().AheadWayOf(0), Way::kUndecided) << "measured with nothing in flight";
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 8u);
  Executor().WaitIdle();
  EXPECT_EQ(gpu_.StreamDestroy(third), hipSuccess);
}

// A new stream's first submission of a small read (64 KiB: never copied ahead) measures nothing,
// and leaves the choice to a later new stream's first read of 1 MiB or more.
TEST_P(AsyncAheadWayTest, OnlyAReadThatMayBeCopiedAheadMeasures) {
  void* fh = OpenPinned();
  AsyncSlot small{64 * 1024, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &small).ok());
  Sync();
  EXPECT_EQ(small.bytes, static_cast<ssize_t>(64 * 1024));
  Executor().WaitIdle();
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kUndecided);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 0u);
  FirstSubmissionOnTheOtherStream(fh);
  EXPECT_NE(Executor().AheadWayOf(0), Way::kUndecided);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 8u);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadWayTest, ::testing::Values(Path::kAsync),
                         PathName);

// HIPFILE_ASYNC_AHEAD_PART_MB set (here as the environment sets it) is the user's choice: nothing
// is measured, and the read past its share goes in parts of the size set.
class AsyncAheadWaySetTest : public AsyncAheadWayTest {
 protected:
  AsyncAheadWaySetTest()
      : AsyncAheadWayTest([](Config& config) {
          config.async_ahead_part_mb = 8;
          config.SetSource(kEnvAsyncAheadPartMb, SettingSource::kEnvironment);
        }) {}
};

TEST_P(AsyncAheadWaySetTest, APartSizeSetIsNotMeasured) {
  MeasureWithASlow(/*kernel=*/true);  // would choose parts, were it measured
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kUndecided);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 0u);
  ReadPastTheShare(/*in_parts=*/true);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadWaySetTest, ::testing::Values(Path::kAsync),
                         PathName);

// The CPU runtime's answer (no link): nothing is measured.
class AsyncAheadWayNoLinkTest : public AsyncAheadWayTest {};

TEST_P(AsyncAheadWayNoLinkTest, NothingIsMeasuredWithoutALink) {
  gpu_.SetHostReadsCrossALink(false);
  void* fh = OpenPinned();
  FirstSubmissionOnTheOtherStream(fh);
  EXPECT_EQ(Executor().AheadWayOf(0), Way::kUndecided);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventElapsedTime), 0u);
  ReadPastTheShare(/*in_parts=*/true);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncAheadWayNoLinkTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
