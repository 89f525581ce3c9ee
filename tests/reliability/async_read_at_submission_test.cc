// SPDX-License-Identifier: MIT
// Small stream-ordered reads that take their bytes at submission (docs/async.md, "Small reads at
// submission"; HIPFILE_ASYNC_READ_AT_SUBMISSION): on a stream registered with every
// HIPFILE_STREAM_FIXED_* flag, a read of at most 16 KiB (and HIPFILE_ASYNC_RUN_IDLE_KB) whose bytes
// are all in the page cache is read then into the submitting thread's ordinary memory, and one copy
// of them is queued on the stream, which the runtime takes before it returns: no stream operation
// waits on the library, nothing stays outstanding. Anything else (bytes not cached, a
// stream-ordered write in flight, end of file, a stream without every flag) goes the other ways.
// Through a core::Driver on FaultRuntime over the CPU runtime (staged, as on a GPU).
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "core/config.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kKiB = 1024;
constexpr size_t kFile = 1024 * kKiB + 123;
constexpr size_t kBuffer = 1024 * kKiB;

class AsyncReadAtSubmissionTest : public IoPathTest {
 protected:
  AsyncReadAtSubmissionTest() : IoPathTest(kBuffer) {
    // As with many submitters in the process: reads are taken at submission before any idle
    // check (AloneAnIdleStreamsReadRunsAtOnceFirst puts the default back).
    RemakeDriver(/*quiet_streams=*/0);
    EXPECT_EQ(gpu_.StreamCreate(&stream_, hipStreamNonBlocking), hipSuccess);
  }
  ~AsyncReadAtSubmissionTest() override {
    if (registered_) {
      EXPECT_TRUE(driver_->DeregisterStream(stream_).ok());
    }
  }

  void RegisterFixed(unsigned flags = kAllFixed) {
    ASSERT_TRUE(driver_->RegisterStream(stream_, flags).ok());
    registered_ = true;
  }
  // The device buffer holds the file's bytes [offset, offset + size) at `at`.
  bool DeviceHoldsFile(size_t at, off_t offset, size_t size) {
    const std::vector<unsigned char> file = testing::PatternBytes(kFile);
    const std::vector<unsigned char> got = DeviceBytes(at + size);
    return std::equal(got.begin() + static_cast<ptrdiff_t>(at), got.end(), file.begin() + offset);
  }
  // A held stream: its work waits until the returned gate opens (the gate's fill runs then).
  std::unique_ptr<testing::StreamGate> HoldStream(bool fill) {
    auto gate = std::make_unique<testing::StreamGate>();
    if (fill) {
      gate->FillOnOpen(dev_, kBuffer);
    }
    EXPECT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, gate.get()), hipSuccess);
    return gate;
  }

  // A driver of its own (handles and registrations of the last one gone with it), as
  // HIPFILE_ASYNC_QUIET_STREAMS=quiet_streams makes it.
  void RemakeDriver(unsigned quiet_streams) {
    Config config = ParseConfig(sys_);
    config.page_cache_pin_ahead = 0;
    config.async_run_idle_kb = 64;
    config.async_copy_at_submission = true;
    config.async_read_at_submission = true;
    config.async_quiet_streams = quiet_streams;
    ReplaceDriver(config);
  }

  // Reads of 4 KiB, one at a time, on `streams` fresh streams with every flag in turn, twice
  // round: which of them made an idle check (the runtime asked whether their stream was idle).
  // Each read's bytes are checked once its stream is synchronized.
  std::vector<bool> ReadRoundTheStreams(unsigned streams) {
    void* fh = OpenFile("round", kFile);
    std::vector<runtime::Stream> made(streams, nullptr);
    for (runtime::Stream& s : made) {
      EXPECT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
      EXPECT_TRUE(driver_->RegisterStream(s, kAllFixed).ok());
    }
    std::vector<AsyncSlot> slots;
    for (unsigned i = 0; i < 2 * streams; ++i) {
      const auto at = static_cast<off_t>(i * 4 * kKiB);
      slots.push_back(AsyncSlot{4 * kKiB, at, at});
    }
    std::vector<bool> checked;
    gpu_.Reset();
    for (unsigned i = 0; i < 2 * streams; ++i) {
      const uint64_t queries = gpu_.Calls(GpuOp::kStreamQuery);
      EXPECT_TRUE(SubmitSlotOn(made[i % streams], fh, dev_, &slots[i]).ok());
      EXPECT_EQ(slots[i].bytes, static_cast<ssize_t>(slots[i].size)) << "read " << i;
      checked.push_back(gpu_.Calls(GpuOp::kStreamQuery) > queries);
    }
    for (unsigned i = 0; i < 2 * streams; ++i) {
      EXPECT_EQ(gpu_.StreamSynchronize(made[i % streams]), hipSuccess);
      EXPECT_TRUE(DeviceHoldsFile(slots[i].buffer_offset, slots[i].file_offset, slots[i].size))
          << "read " << i;
    }
    for (runtime::Stream s : made) {
      EXPECT_TRUE(driver_->DeregisterStream(s).ok());
      EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
    }
    return checked;
  }

  bool registered_ = false;
  Watchdog watchdog_{std::chrono::seconds(60)};
};

// Behind earlier work on the stream, two small reads take their bytes at submission: each call
// returns with *bytes_p set and nothing outstanding, having queued one copy and no wait on the
// library; the copies run after the earlier work, and the first read's bytes survive the second
// reusing the thread's memory before either copy ran (the runtime took them at the call). With
// many submitters in the process (the fixture's setting) not even the idle check is made.
TEST_P(AsyncReadAtSubmissionTest, CachedBytesAreTakenAtSubmissionAndCopiedInStreamOrder) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/true);
  gpu_.Reset();
  const uint64_t buffered = ReadBytes(hipFileExtPathBuffered);
  AsyncSlot first{4 * kKiB, 8 * kKiB, 0};
  AsyncSlot second{AsyncExecutor::kCachedMaxBytes, 100 * kKiB + 3, 64 * kKiB + 5};
  ASSERT_TRUE(SubmitSlot(fh, &first).ok());
  ASSERT_TRUE(SubmitSlot(fh, &second).ok());
  EXPECT_EQ(first.bytes, static_cast<ssize_t>(first.size));
  EXPECT_EQ(second.bytes, static_cast<ssize_t>(second.size));
  EXPECT_EQ(Executor().CachedAtSubmission(), 2u);
  EXPECT_EQ(AsyncWays().read_ops[hipFileExtAsyncWayReadAtSubmission], 2u);
  EXPECT_EQ(Executor().Outstanding(), 0u) << "a read at submission held something";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMemcpyAsync), 2u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitValue32), 0u) << "the stream waits on the library";
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWriteValue32),
            (first.size + second.size) / AsyncExecutor::kCachedMarkEvery)
      << "only the marks of the bytes taken";
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 0u) << "a fixed stream's read asked if it is idle";
  EXPECT_EQ(ReadBytes(hipFileExtPathBuffered) - buffered, first.size + second.size);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(DeviceHoldsFile(0, first.file_offset, first.size))
      << "the first read's bytes were lost, or copied before the earlier work";
  EXPECT_TRUE(DeviceHoldsFile(64 * kKiB + 5, second.file_offset, second.size));
  const std::vector<unsigned char> got = DeviceBytes(kBuffer);
  EXPECT_EQ(got[first.size], 0x11);
  EXPECT_EQ(got[64 * kKiB + 4], 0x11);
  EXPECT_EQ(got[64 * kKiB + 5 + second.size], 0x11);
}

// With few submissions in progress (the default kQuietSubmissions), a small read on an idle stream
// with fixed parameters runs at once first: done before the call returns, which its caller's wait
// then finds. On a busy stream it takes its bytes at submission after that one check.
TEST_P(AsyncReadAtSubmissionTest, AloneAnIdleStreamsReadRunsAtOnceFirst) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  Executor().SetQuietSubmissions(AsyncExecutor::kQuietSubmissions);
  AsyncSlot idle{4 * kKiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &idle).ok());
  EXPECT_EQ(idle.bytes, static_cast<ssize_t>(idle.size));
  EXPECT_EQ(Executor().RanAtOnce(), 1u);
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  EXPECT_TRUE(DeviceHoldsFile(0, 0, idle.size)) << "run at once: in place when the call returns";
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  gpu_.Reset();
  AsyncSlot busy{4 * kKiB, 4 * kKiB, 4 * kKiB};
  ASSERT_TRUE(SubmitSlot(fh, &busy).ok());
  EXPECT_EQ(Executor().RanAtOnce(), 1u);
  EXPECT_EQ(Executor().CachedAtSubmission(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 1u) << "one idle check";
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(DeviceHoldsFile(4 * kKiB, 4 * kKiB, busy.size));
}

// Few submissions in progress but many streams among the recent ones (16 threads each reading now
// and then, paced): past kQuietSubmissions streams a read is taken at submission with no idle
// check, which with every stream idle would have run each at once, polls and all.
TEST_P(AsyncReadAtSubmissionTest, ManyStreamsTakeReadsAtSubmissionWithoutIdleChecks) {
  Executor().SetQuietSubmissions(AsyncExecutor::kQuietSubmissions);
  constexpr unsigned kStreams = AsyncExecutor::kQuietSubmissions + 2;
  const std::vector<bool> checked = ReadRoundTheStreams(kStreams);
  for (unsigned i = 0; i < checked.size(); ++i) {
    EXPECT_EQ(checked[i], i < AsyncExecutor::kQuietSubmissions) << "read " << i;
  }
  EXPECT_EQ(Executor().RanAtOnce(), AsyncExecutor::kQuietSubmissions);
  EXPECT_EQ(Executor().CachedAtSubmission(), 2 * kStreams - AsyncExecutor::kQuietSubmissions);
}

// HIPFILE_ASYNC_QUIET_STREAMS raised to the streams in use: a caller waiting for each read on
// each of them keeps every read run at once, done when the call returns; 0: none is.
TEST_P(AsyncReadAtSubmissionTest, TheQuietStreamsSettingDecides) {
  constexpr unsigned kStreams = AsyncExecutor::kQuietSubmissions + 2;
  RemakeDriver(kStreams);
  std::vector<bool> checked = ReadRoundTheStreams(kStreams);
  EXPECT_EQ(checked, std::vector<bool>(2 * kStreams, true));
  EXPECT_EQ(Executor().RanAtOnce(), 2 * kStreams);
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  RemakeDriver(0);
  checked = ReadRoundTheStreams(kStreams);
  EXPECT_EQ(checked, std::vector<bool>(2 * kStreams, false));
  EXPECT_EQ(Executor().RanAtOnce(), 0u);
  EXPECT_EQ(Executor().CachedAtSubmission(), 2 * kStreams);
}

// A stream-ordered write in flight may change the bytes before a read's stream gets there: the
// read behind it on the stream goes the stream's way and sees what the write wrote.
TEST_P(AsyncReadAtSubmissionTest, AWriteInFlightSendsReadsTheStreamsWay) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  FillDevice(std::vector<unsigned char>(kBuffer, 0x5a));
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  AsyncSlot write{4 * kKiB, 40 * kKiB, 0};
  ASSERT_TRUE(SubmitSlot(fh, &write, IoDirection::kWrite).ok());
  AsyncSlot read{4 * kKiB, 40 * kKiB, 16 * kKiB};
  ASSERT_TRUE(SubmitSlot(fh, &read).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  EXPECT_EQ(read.bytes, 0) << "the read ended at submission";
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  EXPECT_EQ(write.bytes, static_cast<ssize_t>(write.size));
  EXPECT_EQ(read.bytes, static_cast<ssize_t>(read.size));
  const std::vector<unsigned char> got = DeviceBytes(20 * kKiB);
  EXPECT_TRUE(std::all_of(got.begin() + 16 * kKiB, got.end(), [](unsigned char b) {
    return b == 0x5a;
  })) << "the read did not see the write before it on its stream";
  // Once the write is done with the file, reads take their bytes at submission again.
  AsyncSlot later{4 * kKiB, 40 * kKiB, 32 * kKiB};
  ASSERT_TRUE(SubmitSlot(fh, &later).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), 1u);
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  const std::vector<unsigned char> again = DeviceBytes(36 * kKiB);
  EXPECT_TRUE(std::all_of(again.begin() + 32 * kKiB, again.end(),
                          [](unsigned char b) { return b == 0x5a; }));
}

// Bytes not in the page cache (the read would wait for the disk) go the stream's way, counted
// once; so does a read reaching past the end of the file, whose short count is decided there.
TEST_P(AsyncReadAtSubmissionTest, UncachedBytesAndTheEndOfTheFileGoTheStreamsWay) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  sys_.FailNth(SysOp::kPreadCached, 1, EAGAIN);
  const uint64_t before = AllReadBytes();
  AsyncSlot uncached{8 * kKiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &uncached).ok());
  AsyncSlot tail{4 * kKiB, static_cast<off_t>(kFile - 100), 64 * kKiB};
  ASSERT_TRUE(SubmitSlot(fh, &tail).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPreadCached), 2u);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  EXPECT_EQ(uncached.bytes, static_cast<ssize_t>(uncached.size));
  EXPECT_EQ(tail.bytes, 100);
  EXPECT_TRUE(DeviceHoldsFile(0, 0, uncached.size));
  EXPECT_TRUE(DeviceHoldsFile(64 * kKiB, tail.file_offset, 100));
  EXPECT_EQ(AllReadBytes() - before, uncached.size + 100) << "bytes counted twice or not at all";
}

// Without every FIXED flag the parameters are read when the stream gets there: a read behind
// earlier work is queued and sees a size changed after submission. Reads above the small limit,
// and writes, never take this way either.
TEST_P(AsyncReadAtSubmissionTest, OnlySmallReadsOnStreamsWithEveryFixedFlag) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed(HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET);
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  AsyncSlot slot{16 * kKiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  slot.size = 4 * kKiB;
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(4 * kKiB));
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);

  ASSERT_TRUE(driver_->DeregisterStream(stream_).ok());
  RegisterFixed();
  gate = HoldStream(/*fill=*/false);
  AsyncSlot large{AsyncExecutor::kCachedMaxBytes + 1, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &large).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  EXPECT_EQ(large.bytes, static_cast<ssize_t>(large.size));
  EXPECT_TRUE(DeviceHoldsFile(0, 0, large.size));
}

// The runtime refusing the copy refuses the submission whole: the call returns its error,
// *bytes_p stays 0, nothing is outstanding or counted, and the stream runs on.
TEST_P(AsyncReadAtSubmissionTest, ARefusedCopyRefusesTheSubmission) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  const uint64_t before = AllReadBytes();
  gpu_.FailNth(GpuOp::kMemcpyAsync, 1, hipErrorLaunchFailure);
  AsyncSlot slot{4 * kKiB, 0, 0};
  const Status status = SubmitSlot(fh, &slot);
  EXPECT_EQ(status, Status::Gpu(hipErrorLaunchFailure));
  EXPECT_EQ(slot.bytes, 0);
  EXPECT_EQ(Executor().Outstanding(), 0u);
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  EXPECT_EQ(AllReadBytes(), before);
  AsyncSlot next{4 * kKiB, 4 * kKiB, 0};
  ASSERT_TRUE(SubmitSlot(fh, &next).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(next.bytes, static_cast<ssize_t>(next.size));
  EXPECT_TRUE(DeviceHoldsFile(0, 4 * kKiB, next.size));
}

// A stream takes at most AsyncExecutor::kCachedBudget of such bytes not yet seen passed (CUDA's
// driver waits for the stream once its own memory for them runs out): a mark every
// kCachedMarkEvery bytes says how far the stream got. Held, a stream takes 256 KiB of 4 KiB reads
// at submission, the next goes the stream's way; once the stream passes the marks it takes them
// again. Every byte lands.
TEST_P(AsyncReadAtSubmissionTest, AStreamTakesABudgetOfBytesBeforeItsMarksPass) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  gpu_.Reset();
  constexpr size_t kOp = 4 * kKiB;
  constexpr size_t kFits = AsyncExecutor::kCachedBudget / kOp;
  std::vector<AsyncSlot> slots(kFits + 2);
  for (size_t i = 0; i < kFits; ++i) {
    slots[i] = AsyncSlot{kOp, static_cast<off_t>(i * kOp * 2), static_cast<off_t>(i * kOp)};
    ASSERT_TRUE(SubmitSlot(fh, &slots[i]).ok());
  }
  EXPECT_EQ(Executor().CachedAtSubmission(), kFits);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWriteValue32),
            AsyncExecutor::kCachedBudget / AsyncExecutor::kCachedMarkEvery)
      << "one mark every kCachedMarkEvery bytes";
  slots[kFits] = AsyncSlot{kOp, 3, static_cast<off_t>(kFits * kOp)};
  ASSERT_TRUE(SubmitSlot(fh, &slots[kFits]).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), kFits) << "past the budget";
  EXPECT_EQ(slots[kFits].bytes, 0);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  slots[kFits + 1] = AsyncSlot{kOp, 5, static_cast<off_t>((kFits + 1) * kOp)};
  ASSERT_TRUE(SubmitSlot(fh, &slots[kFits + 1]).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), kFits + 1) << "the marks passed: within the budget";
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  for (size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(slots[i].bytes, static_cast<ssize_t>(kOp)) << i;
    EXPECT_TRUE(
        DeviceHoldsFile(static_cast<size_t>(slots[i].buffer_offset), slots[i].file_offset, kOp))
        << i;
  }
}

// A mark the runtime refuses stops reads at submission on that stream (its bytes would never
// count off): the next read goes the stream's way, and every byte lands.
TEST_P(AsyncReadAtSubmissionTest, ARefusedMarkSendsLaterReadsTheStreamsWay) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  gpu_.FailNth(GpuOp::kStreamWriteValue32, 1, hipErrorLaunchFailure);
  constexpr size_t kOp = 4 * kKiB;
  constexpr size_t kMarked = AsyncExecutor::kCachedMarkEvery / kOp;
  std::vector<AsyncSlot> slots(kMarked + 1);
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i] = AsyncSlot{kOp, static_cast<off_t>(i * kOp + 7), static_cast<off_t>(i * kOp)};
    ASSERT_TRUE(SubmitSlot(fh, &slots[i]).ok()) << i;
  }
  EXPECT_EQ(Executor().CachedAtSubmission(), kMarked);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  for (size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(slots[i].bytes, static_cast<ssize_t>(kOp)) << i;
    EXPECT_TRUE(DeviceHoldsFile(i * kOp, slots[i].file_offset, kOp)) << i;
  }
}

// HIPFILE_ASYNC_READ_AT_SUBMISSION=0 turns the way off: the same read is run some other way.
class AsyncReadAtSubmissionOffTest : public AsyncReadAtSubmissionTest {
 protected:
  AsyncReadAtSubmissionOffTest() {
    Config config = ParseConfig(sys_);
    config.async_run_idle_kb = 64;
    config.async_read_at_submission = false;
    ReplaceDriver(config);
    Executor().SetQuietSubmissions(0);
  }
};

TEST_P(AsyncReadAtSubmissionOffTest, TurnedOffTheReadGoesAnotherWay) {
  void* fh = OpenFile("f", kFile);
  RegisterFixed();
  std::unique_ptr<testing::StreamGate> gate = HoldStream(/*fill=*/false);
  AsyncSlot slot{4 * kKiB, 0, 0};
  ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
  EXPECT_EQ(Executor().CachedAtSubmission(), 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPreadCached), 0u);
  gate->Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  Executor().WaitIdle();
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(slot.size));
  EXPECT_TRUE(DeviceHoldsFile(0, 0, slot.size));
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncReadAtSubmissionTest, ::testing::Values(Path::kAsync),
                         PathName);
INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncReadAtSubmissionOffTest,
                         ::testing::Values(Path::kAsync), PathName);

}  // namespace
}  // namespace hipfile::core
