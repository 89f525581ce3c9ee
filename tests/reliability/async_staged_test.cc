// SPDX-License-Identifier: MIT
// Stream-ordered operations on device memory whose copies run on their own stream (staged:
// core/async/async_executor.h), through a core::Driver on FaultRuntime over the CPU runtime:
// every byte of multi-chunk reads and writes, sizes bound at execution, end of file, system-call
// and GPU faults, and many streams sharing few hardware queues - where copies on the engine's
// own streams deadlock (bench/results/h200-2026-12-01).
#include <gtest/gtest.h>
#include <hipfile.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "fakes/wait_until.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

// How long a test waits for another thread (a worker, the poller, a freeing thread) before
// failing rather than hanging.
constexpr std::chrono::seconds kWaitLimit{20};

constexpr size_t kChunk = engine::kStreamChunkBytes;
constexpr size_t kFile = 2 * kChunk + 12345;  // three chunks, the last one partial
constexpr size_t kBuffer = 3 * kChunk;

// First of the fixture's bases, so that its watchdog also sees the teardown, which waits for
// every operation: a deadlock there is reported as one too.
struct WatchedTest {};

class AsyncStagedTest : private WatchedTest, public IoPathTest {
 protected:
  explicit AsyncStagedTest(const runtime::CpuRuntimeOptions& options = {}, size_t buffer = kBuffer)
      : IoPathTest(buffer, options) {}

  size_t Staged() { return (*driver_->async_executor())->StagedOperations(); }

  // Submits one operation on `stream` without waiting; the variables live in `slot`.
  using Slot = AsyncSlot;
  Status Submit(IoDirection direction, void* fh, Slot* slot, runtime::Stream stream) {
    return SubmitSlotOn(stream, fh, dev_, slot, direction);
  }
  // The same into (or out of) device memory `buffer`.
  Status SubmitTo(IoDirection direction, void* fh, void* buffer, Slot* slot,
                  runtime::Stream stream) {
    return SubmitSlotOn(stream, fh, buffer, slot, direction);
  }

  // Writes `data` from device memory over the start of `fh` (at path_) on Stream(), waits, and
  // checks that the whole write was reported and the file holds it.
  void WriteAndCheck(void* fh, const std::vector<unsigned char>& data) {
    FillDevice(data);
    Slot write{data.size(), 0, 0};
    ASSERT_TRUE(Submit(IoDirection::kWrite, fh, &write, Stream()).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(write.bytes, static_cast<ssize_t>(data.size()));
    EXPECT_EQ(testing::ReadFileOrDie(path_), data);
  }

  // What StreamQuery says of `s` once it is idle or `within` has passed: hipSuccess unless the
  // stream is stuck (a deadlock fails the test instead of hanging it).
  hipError_t QueryWithin(runtime::Stream s, std::chrono::seconds within) {
    const auto until = std::chrono::steady_clock::now() + within;
    while (gpu_.StreamQuery(s) == hipErrorNotReady && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return gpu_.StreamQuery(s);
  }

  // Device memory for a test to free while streams wait: the free waits for every stream, and
  // holds every other runtime call meanwhile (runtime/cpu/driver_lock.h).
  void* Spare() {
    void* p = nullptr;
    EXPECT_EQ(gpu_.Malloc(&p, 4096), hipSuccess);
    return p;
  }
};

// The bytes OpenFile writes (no seed), or others.
std::vector<unsigned char> Pattern(size_t n) { return testing::PatternBytes(n); }
std::vector<unsigned char> Pattern(size_t n, unsigned seed) {
  return testing::PatternBytes(n, seed);
}

// Holds every call of `op` a while, as a driver call takes microseconds, and counts the callers
// inside it at once: how many chains are being queued at the same time. Drops every hook and
// fault of the runtime when it goes.
class CallOverlap {
 public:
  CallOverlap(testing::FaultRuntime& gpu, GpuOp op, std::chrono::microseconds hold) : gpu_(gpu) {
    gpu_.BeforeCall(op, [this, hold] {
      const int now = ++inside_;
      int most = most_.load();
      while (now > most && !most_.compare_exchange_weak(most, now)) {
      }
      std::this_thread::sleep_for(hold);
      --inside_;
    });
  }
  ~CallOverlap() { gpu_.Reset(); }
  CallOverlap(const CallOverlap&) = delete;
  CallOverlap& operator=(const CallOverlap&) = delete;
  int Most() const { return most_.load(); }

 private:
  testing::FaultRuntime& gpu_;
  std::atomic<int> inside_{0};
  std::atomic<int> most_{0};
};

TEST_P(AsyncStagedTest, MultiChunkReadsAndWritesMoveEveryByte) {
  void* fh = OpenFile("f", kFile);
  const size_t before = Staged();
  // The whole file, from offset 0, into a buffer that holds it.
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  Slot read{kFile, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &read, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(read.bytes, static_cast<ssize_t>(kFile));
  std::vector<unsigned char> got = DeviceBytes(kBuffer);
  const std::vector<unsigned char> file = Pattern(kFile);
  EXPECT_EQ(std::mismatch(file.begin(), file.end(), got.begin()).first - file.begin(),
            static_cast<std::ptrdiff_t>(kFile))
      << "the first byte that is not the file's";
  EXPECT_EQ(got[kFile], 0xee) << "a byte past the transfer was written";
  // Odd offsets in the file and the buffer, across a chunk boundary, past the end of the file.
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  Slot odd{2 * kChunk, static_cast<off_t>(kChunk + 5), 3};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &odd, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  const size_t left = kFile - (kChunk + 5);
  EXPECT_EQ(odd.bytes, static_cast<ssize_t>(left)) << "short at end of file";
  got = DeviceBytes(kBuffer);
  EXPECT_EQ(got[2], 0xee);
  EXPECT_TRUE(std::equal(file.begin() + kChunk + 5, file.end(), got.begin() + 3));
  EXPECT_EQ(got[3 + left], 0xee);
  // A write of new bytes over the whole file, then a read of them back.
  const std::vector<unsigned char> data = Pattern(kFile, 9);
  ASSERT_NO_FATAL_FAILURE(WriteAndCheck(fh, data));
  EXPECT_EQ(Staged() - before, 3u) << "the operations did not take the staged way";
}

// Sizes are bound when the stream gets there: a smaller one moves only its bytes, a larger one
// than at submission is refused, and later work on the stream sees the result.
TEST_P(AsyncStagedTest, SizeIsBoundWhenTheStreamGetsThere) {
  void* fh = OpenFile("f", kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  // Hold the stream until both sizes are changed.
  std::atomic<bool> go{false};
  ASSERT_EQ(gpu_.LaunchHostFunc(
                Stream(),
                [](void* flag) {
                  while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
                },
                &go),
            hipSuccess);
  Slot smaller{kFile, 0, 0};
  Slot larger{100, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &smaller, stream_).ok());
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &larger, stream_).ok());
  smaller.size = kChunk + 1;
  larger.size = 101;
  go = true;
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(smaller.bytes, static_cast<ssize_t>(kChunk + 1));
  EXPECT_EQ(larger.bytes, -static_cast<ssize_t>(hipFileInvalidValue));
  const std::vector<unsigned char> got = DeviceBytes(kBuffer);
  const std::vector<unsigned char> file = Pattern(kFile);
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + kChunk + 1, got.begin()));
  EXPECT_EQ(got[kChunk + 1], 0xee) << "bytes past the bound size were written";
}

// A read failing in its second chunk returns the first chunk's bytes (the file's); failing in the
// first, the error. A write failing in its second chunk counts the first, which is in the file.
TEST_P(AsyncStagedTest, SystemCallFailuresGiveShortCountsOrTheError) {
  Executor().SetLargeChunksFrom(0);  // the steps of small chunks (large ones: AsyncLargeChunksTest)
  // Bytes pinned by the rounds before would be copied ahead, with no system call to fail
  // (AsyncCopiedAheadTest): this is about the chunks' failures.
  Executor().SetDeviceScratchBytes(0);
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  for (const uint64_t nth : {uint64_t{2}, uint64_t{1}}) {
    SCOPED_TRACE("pread " + std::to_string(nth));
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    sys_.Reset();
    sys_.FailNth(SysOp::kPread, nth, EIO);
    const Outcome out = Run(IoDirection::kRead, fh, kFile, 0);
    ++g_faults;
    if (nth == 1) {
      ASSERT_FALSE(out.ok);
      EXPECT_TRUE(out.error.IsErrno(EIO)) << out.error.ToString();
    } else {
      ASSERT_TRUE(out.ok) << out.error.ToString();
      EXPECT_EQ(out.bytes, kChunk);
      const std::vector<unsigned char> got = DeviceBytes(kChunk + 1);
      EXPECT_TRUE(std::equal(file.begin(), file.begin() + kChunk, got.begin()));
      EXPECT_EQ(got[kChunk], 0xee) << "the failed chunk was copied";
    }
  }
  ExpectCleanRead(fh, kFile);

  const std::vector<unsigned char> data = Pattern(kFile, 4);
  FillDevice(data);
  sys_.Reset();
  sys_.FailNth(SysOp::kPwrite, 2, ENOSPC);
  const Outcome out = Run(IoDirection::kWrite, fh, kFile, 0);
  ++g_faults;
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, kChunk);
  const std::vector<unsigned char> now = testing::ReadFileOrDie(path_);
  EXPECT_TRUE(std::equal(data.begin(), data.begin() + kChunk, now.begin()));
  EXPECT_TRUE(std::equal(file.begin() + kChunk, file.end(), now.begin() + kChunk))
      << "bytes past the failed chunk changed";
}

// Queueing the chain fails part way on the stream: the copy of the second chunk, the `copied`
// store of the second chunk, or the final wait (HIPFILE_ASYNC_COPY_RUNS=ahead: a launch per
// token for a read from windows); for a read copied ahead, or one from windows by default (one
// launch for its tokens), that launch, the `copied` store after it, or the final wait. The
// submission reports
// the GPU error, the stream is let through (whatever of the chain was queued), later operations
// on it work - on the engine's streams, as its tokens no longer line up - and a fresh stream
// stages again.
TEST_P(AsyncStagedTest, QueueingFailureLeavesTheStreamUsable) {
  Executor().SetLargeChunksFrom(0);  // the chain of small chunks
  void* fh = OpenFile("f", kFile);
  ExpectCleanRead(fh, kFile);
  struct Fault {
    const char* what;
    GpuOp op;
    uint64_t nth;
    bool ahead;  // the read copied ahead (the device memory budget on), else not
    AsyncCopyRuns runs = AsyncCopyRuns::kAhead;
  };
  // A three-chunk read queues: write reached, then per chunk wait / copy / write copied, then
  // the final wait: so write #3 is chunk 1's `copied`, wait #4 the final one. Copied ahead:
  // its copies ahead, write reached, wait for the first chunk, the launch, write copied, the
  // final wait.
  constexpr uint64_t kBudget = uint64_t{128} << 20;  // hipFile's default max device cache size
  for (const Fault& fault :
       {Fault{"copy of chunk 1", GpuOp::kCopyTableAsync, 2, false},
        Fault{"copied store of chunk 1", GpuOp::kStreamWriteValue32, 3, false},
        Fault{"final wait", GpuOp::kStreamWaitValue32, 4, false},
        Fault{"the launch for a read copied ahead", GpuOp::kCopyTableRunAsync, 1, true},
        Fault{"copied store after it", GpuOp::kStreamWriteValue32, 2, true},
        Fault{"final wait after it", GpuOp::kStreamWaitValue32, 2, true},
        Fault{"the launch for a read from windows", GpuOp::kCopyTableRunAsync, 1, false,
              AsyncCopyRuns::kWindows}}) {
    SCOPED_TRACE(fault.what);
    Executor().SetDeviceScratchBytes(fault.ahead ? kBudget : 0);
    Executor().SetCopyRuns(fault.runs);
    const bool one_launch = fault.ahead || fault.runs == AsyncCopyRuns::kWindows;
    runtime::Stream s = nullptr;
    ASSERT_EQ(gpu_.StreamCreate(&s, 0), hipSuccess);
    gpu_.Reset();
    gpu_.FailNth(fault.op, fault.nth, hipErrorLaunchFailure);
    const size_t copied_ahead = Executor().CopiedAhead();
    Slot slot{kFile, 0, 0};
    const Status submitted = Submit(IoDirection::kRead, fh, &slot, s);
    ++g_faults;
    EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
    EXPECT_EQ(gpu_.Calls(GpuOp::kCopyTableRunAsync) > 0, one_launch);
    EXPECT_EQ(Executor().CopiedAhead(), copied_ahead) << "a refused read is not counted";
    ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(slot.bytes, 0) << "a dropped operation reports nothing";
    gpu_.Reset();
    const size_t before = Staged();
    FillDevice(std::vector<unsigned char>(kBuffer, 0));
    Slot again{kFile, 0, 0};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &again, s).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(again.bytes, static_cast<ssize_t>(kFile));
    EXPECT_EQ(DeviceBytes(kFile), Pattern(kFile));
    EXPECT_EQ(Staged(), before) << "the stream's tokens no longer line up: not staged";
    EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
  }
  Executor().SetCopyRuns(AsyncCopyRuns::kWindows);
  const size_t before = Staged();
  ExpectCleanRead(fh, kFile);  // the fixture's stream: never broken
  EXPECT_EQ(Staged(), before + 1);
}

// A worker may finish a read before its submission has queued the whole chain: nothing of the
// read waits for the chain's last step, its final `wait done`. When that step is then refused,
// the submission returns the error and the caller's *bytes_p is 0, as for any refused
// submission, not the count the worker stored (it was before 2026-12-05).
TEST_P(AsyncStagedTest, AReadFinishedBeforeItsQueueingFailedReportsNothing) {
  Executor().SetLargeChunksFrom(0);
  Executor().SetDeviceScratchBytes(0);            // not copied ahead,
  Executor().SetCopyRuns(AsyncCopyRuns::kAhead);  // nor one launch: the chain of three chunks
  void* fh = OpenFile("f", kFile);
  ExpectCleanRead(fh, kFile);
  runtime::Stream s = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&s, 0), hipSuccess);
  gpu_.Reset();
  Slot slot{kFile, 0, 0};
  std::atomic<int> waits{0};
  bool finished_first = false;
  // The chain's fourth wait, its final one, waits for the worker to have finished (nothing is
  // outstanding: the executor's lock, under which the worker set *bytes_p, orders that read
  // before this one), then fails.
  gpu_.BeforeCall(GpuOp::kStreamWaitValue32, [&] {
    if (++waits != 4) return;
    finished_first =
        testing::WaitUntil([&] { return Executor().Outstanding() == 0; }, kWaitLimit) &&
        slot.bytes == static_cast<ssize_t>(kFile);
  });
  gpu_.FailNth(GpuOp::kStreamWaitValue32, 4, hipErrorLaunchFailure);
  const Status submitted = Submit(IoDirection::kRead, fh, &slot, s);
  ++g_faults;
  EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
  EXPECT_TRUE(finished_first) << "the worker never finished the read before the failure";
  EXPECT_EQ(slot.bytes, 0) << "a refused submission reports nothing";
  gpu_.Reset();
  ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(slot.bytes, 0);
  Executor().WaitIdle();
  EXPECT_EQ(Executor().Outstanding(), 0u);
  EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
}

// A worker that read the chain's limits before its queueing failed holds the windows of its
// copies for a `copied` store that was never queued (DeferLeases): here a read from windows, one
// launch for its tokens, whose first table copies the whole read, the launch refused once the
// worker has filled that table and handed its windows to the channel. The entry must not wait
// for ever - the executor was never idle again, and the driver's close hung (seen once under
// TSan in QueueingFailureLeavesTheStreamUsable, 2026-12-06) - so the windows are kept until the
// driver closes (their copies may be on the stream) and the entry waits for the last `copied`
// that was queued.
TEST_P(AsyncStagedTest, WindowsHeldForACopyNeverQueuedDoNotHoldUpTheExecutor) {
  Executor().SetLargeChunksFrom(0);
  Executor().SetDeviceScratchBytes(0);  // not copied ahead: from the windows, by one launch
  Executor().SetCopyRuns(AsyncCopyRuns::kWindows);
  Executor().SetCopyAtSubmission(false);  // the stream's way, not copies at submission
  void* fh = OpenFile("f", kFile);
  ExpectCleanRead(fh, kFile);
  ExpectCleanRead(fh, kFile);  // its windows pinned at the second read
  runtime::Stream s = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&s, 0), hipSuccess);
  gpu_.Reset();
  const size_t deferred = Executor().DeferredLeases();
  Slot slot{kFile, 0, 0};
  bool deferred_first = false;
  gpu_.BeforeCall(GpuOp::kCopyTableRunAsync, [&] {
    deferred_first =
        testing::WaitUntil([&] { return Executor().DeferredLeases() > deferred; }, kWaitLimit);
  });
  gpu_.FailNth(GpuOp::kCopyTableRunAsync, 1, hipErrorLaunchFailure);
  const Status submitted = Submit(IoDirection::kRead, fh, &slot, s);
  ++g_faults;
  EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
  EXPECT_TRUE(deferred_first) << "the worker never deferred its windows before the failure";
  EXPECT_EQ(slot.bytes, 0) << "a refused submission reports nothing";
  gpu_.Reset();
  ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
  ASSERT_TRUE(testing::WaitUntil([&] { return Executor().Outstanding() == 0; }))
      << "the windows wait for a store never queued";
  EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
  Executor().SetCopyAtSubmission(true);
  ExpectCleanRead(fh, kFile);  // the fixture's stream: never broken
}

// A runtime call of a submission waits until the operation before it on the stream has run, as a
// runtime does whose queue is full. The earlier operation still completes - the stream, the
// poller and the worker it needs do not wait for the submission - and then the held one does.
TEST_P(AsyncStagedTest, ARuntimeCallWaitingForTheStreamDoesNotHoldItUp) {
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  Slot first{4096, 0, 0};
  Slot second{4096, 8192, 4096};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &first, Stream()).ok());
  AsyncExecutor& executor = **driver_->async_executor();
  std::atomic<int> calls{0};
  std::atomic<bool> first_ran{false};
  gpu_.BeforeCall(GpuOp::kCopyTableAsync, [&] {
    if (calls++ != 0) return;  // the second submission's copy
    // Outstanding: the first operation and this submission's, until the first completes. The
    // second may complete too while this call is held: its chain's first stream operations are
    // queued, and its worker moves it on without waiting for the rest.
    first_ran = testing::WaitUntil([&] { return executor.Outstanding() <= 1; }, kWaitLimit);
  });
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &second, stream_).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(first_ran) << "the earlier operation waited for the held submission";
  EXPECT_EQ(first.bytes, 4096);
  EXPECT_EQ(second.bytes, 4096);
  const std::vector<unsigned char> got = DeviceBytes(8192);
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + 4096, got.begin()));
  EXPECT_TRUE(std::equal(file.begin() + 8192, file.begin() + 12288, got.begin() + 4096));
}

// Threads submitting to one stream at once: each submission queues its chain whole (its tokens
// consecutive), so every operation copies its own bytes and the stream finishes.
TEST_P(AsyncStagedTest, ThreadsSubmittingToOneStreamEachGetTheirBytes) {
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  constexpr int kThreads = 4;
  constexpr int kEach = 40;
  constexpr size_t kBytes = 4096;
  std::vector<Slot> slots(kThreads * kEach);
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i] = Slot{kBytes, static_cast<off_t>((i * 7919 * kBytes) % (kFile - kBytes)),
                    static_cast<off_t>(i * kBytes)};
  }
  runtime::Stream stream = Stream();
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!Submit(IoDirection::kRead, fh, &slots[t * kEach + i], stream).ok()) ++refused;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(refused.load(), 0);
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  const std::vector<unsigned char> got = DeviceBytes(slots.size() * kBytes);
  for (size_t i = 0; i < slots.size(); ++i) {
    ASSERT_EQ(slots[i].bytes, static_cast<ssize_t>(kBytes)) << "operation " << i;
    ASSERT_TRUE(std::equal(file.begin() + slots[i].file_offset,
                           file.begin() + slots[i].file_offset + kBytes, got.begin() + i * kBytes))
        << "operation " << i;
  }
}

// Pinning a stream's staging fails: its operations take the engine's streams, byte for byte.
TEST_P(AsyncStagedTest, StagingThatCannotBePinnedFallsBack) {
  void* fh = OpenFile("f", kFile);
  (void)driver_->async_executor();  // made before the fault: its words are not what fails
  gpu_.FailAlways(GpuOp::kHostMalloc, hipErrorOutOfMemory);
  ++g_faults;
  const size_t before = Staged();
  ExpectCleanRead(fh, kFile);
  EXPECT_EQ(Staged(), before);
}

// A stream per request, more streams than there are staging blocks: blocks are leased per
// operation, so every operation runs staged and the pool stays within its limit.
TEST_P(AsyncStagedTest, StreamsPastTheStagingLimitAllRunStaged) {
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  const size_t staged = Staged();
  const size_t kStreams = (*driver_->async_executor())->StagingBlockLimit() + 20;
  ASSERT_GT(kStreams, 20u) << "streams get staging";
  for (size_t i = 0; i < kStreams; ++i) {
    runtime::Stream s = nullptr;
    ASSERT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
    Slot slot{4096, static_cast<off_t>((i * 4096) % kFile), 0};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slot, s).ok()) << "stream " << i;
    ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    ASSERT_EQ(slot.bytes, 4096) << "stream " << i;
    const std::vector<unsigned char> got = DeviceBytes(4096);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), file.begin() + slot.file_offset))
        << "stream " << i;
    ASSERT_EQ(gpu_.StreamDestroy(s), hipSuccess);
  }
  EXPECT_EQ(Staged() - staged, kStreams);
  EXPECT_LE((*driver_->async_executor())->StagingBlocks(),
            (*driver_->async_executor())->StagingBlockLimit());
}

// Stream-ordered staging comes out of the one pinned staging limit
// (PropertiesMaxDevicePinnedMemSizeKB): with a small limit, operations past the streams' share of
// blocks wait for a block - every byte still arrives, every operation staged - and the library
// never pins more than the limit, counting the transfer buffers pinned at the open (the streams'
// copy tables, like their words, are outside it).
TEST_P(AsyncStagedTest, PinnedStagingStaysWithinTheConfiguredLimit) {
  constexpr uint64_t kLimit = uint64_t{32} << 20;
  constexpr size_t kBufferKiB = 1024;
  ASSERT_TRUE(driver_->Close().ok());
  ASSERT_TRUE(driver_
                  ->SetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB,
                                      static_cast<size_t>(kLimit >> 10))
                  .ok());
  ASSERT_TRUE(
      driver_->SetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, kBufferKiB).ok());
  // Pinned before the open: the executor's words (when the fixture made it), nothing else (the
  // last open's transfer buffers went with its close).
  const uint64_t before = gpu_.PinnedHostBytes();
  gpu_.ResetPeakPinnedHostBytes();
  ASSERT_TRUE(driver_->Open().ok());
  const size_t io_threads = driver_->EngineOptionsInUse()->io_threads;
  const size_t blocks =
      engine::SplitStagingBudget(kLimit, sys_.PhysicalMemoryBytes(), kBufferKiB << 10, io_threads)
          .stream_blocks;
  ASSERT_GT(blocks, 0u);
  ASSERT_LE((blocks + 6) * 4096, kFile);
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  AsyncExecutor* executor = *driver_->async_executor();
  EXPECT_EQ(executor->StagingBlockLimit(), blocks);
  const uint64_t words = gpu_.PinnedHostBytes() - before;  // the executor's, if made just now
  const size_t staged = Staged();

  // Every stream's operation held in its read: those that got a block keep it, the others wait.
  const size_t streams = blocks + 6;
  std::vector<runtime::Stream> s(streams);
  std::vector<Slot> slots(streams);
  sys_.CloseGate();
  for (size_t i = 0; i < streams; ++i) {
    ASSERT_EQ(gpu_.StreamCreate(&s[i], hipStreamNonBlocking), hipSuccess);
    // Each into its own bytes of the buffer: the streams copy at the same time.
    slots[i] = Slot{4096, static_cast<off_t>(i * 4096), static_cast<off_t>(i * 4096)};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slots[i], s[i]).ok()) << "stream " << i;
  }
  sys_.OpenGate();
  for (size_t i = 0; i < streams; ++i) {
    ASSERT_EQ(gpu_.StreamSynchronize(s[i]), hipSuccess);
    EXPECT_EQ(slots[i].bytes, 4096) << "stream " << i;
    ASSERT_EQ(gpu_.StreamDestroy(s[i]), hipSuccess);
  }
  const std::vector<unsigned char> got = DeviceBytes(streams * 4096);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), file.begin())) << "every stream's bytes";
  EXPECT_EQ(executor->StagingBlocks(), blocks);
  EXPECT_EQ(Staged() - staged, streams) << "some operations ran without staging";
  EXPECT_LE(gpu_.PeakPinnedHostBytes() - before - words,
            kLimit + streams * engine::StreamCopyTables::kBytes);
}

// 16 threads, each with 4 reads of 4 KiB in flight on a stream of its own, and blocks to spare:
// every submission reserves a block, and their chains are queued side by side. Until 2026-12-02
// they were queued one at a time, process-wide: on the H200 such threads spent 400 us per
// submission, most of it waiting for each other (docs/async.md).
TEST_P(AsyncStagedTest, ChainsWithBlocksToSpareAreQueuedSideBySide) {
  constexpr int kThreads = 16;
  constexpr int kDepth = 4;
  constexpr size_t kBytes = 4096;
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  AsyncExecutor& executor = Executor();
  ASSERT_GE(executor.StagingBlockLimit(), size_t{2 * kThreads * kDepth}) << "blocks to spare";
  std::vector<runtime::Stream> streams(kThreads);
  for (auto& s : streams) ASSERT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  std::vector<Slot> slots(kThreads * kDepth);  // each into 4 KiB of the buffer of its own
  const auto round = [&](int r) {
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kDepth; ++i) {
          const size_t k = static_cast<size_t>(t * kDepth + i);
          slots[k] =
              Slot{kBytes, static_cast<off_t>((k * 7919 + r * 131) * kBytes % (kFile - kBytes)),
                   static_cast<off_t>(k * kBytes)};
          if (!Submit(IoDirection::kRead, fh, &slots[k], streams[t]).ok()) ++failed;
        }
        if (gpu_.StreamSynchronize(streams[t]) != hipSuccess) ++failed;
      });
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(failed.load(), 0);
    const std::vector<unsigned char> got = DeviceBytes(slots.size() * kBytes);
    for (size_t k = 0; k < slots.size(); ++k) {
      ASSERT_EQ(slots[k].bytes, static_cast<ssize_t>(kBytes)) << "operation " << k;
      ASSERT_TRUE(std::equal(file.begin() + slots[k].file_offset,
                             file.begin() + slots[k].file_offset + kBytes,
                             got.begin() + k * kBytes))
          << "operation " << k;
    }
  };
  round(0);  // pins the blocks (submissions pinning at once may find none free and go alone)
  {
    const size_t alone = executor.ExclusiveChains();
    CallOverlap overlap(gpu_, GpuOp::kStreamWaitValue32, std::chrono::microseconds(200));
    for (int r = 1; r <= 3; ++r) {
      SCOPED_TRACE("round " + std::to_string(r));
      round(r);
    }
    EXPECT_GT(overlap.Most(), 1) << "the chains were queued one at a time";
    EXPECT_EQ(executor.ExclusiveChains(), alone) << "a chain went alone with blocks to spare";
  }
  for (auto& s : streams) EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
}

// A stream kept busy from its first read (held by a host function, 8 reads queued behind it):
// the pool grows by as many blocks as each submission needs, so every one of them reserves a
// block and no chain goes alone. Until 2026-12-05 the pool grew by one block per submission and
// so stayed one short of what a reservation needs while the reads stayed in flight: every chain
// went alone, and with one alone in flight none after it may reserve.
TEST_P(AsyncStagedTest, AStreamKeptBusyReservesFromItsFirstSubmission) {
  constexpr int kDepth = 8;
  constexpr size_t kBytes = 4096;
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  AsyncExecutor& executor = Executor();
  ASSERT_EQ(executor.StagingBlocks(), 0u);
  ASSERT_GE(executor.StagingBlockLimit(), size_t{kDepth + 1}) << "blocks to spare";
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(Stream(), &testing::StreamGate::Wait, &gate), hipSuccess);
  std::vector<Slot> slots(kDepth);
  for (int i = 0; i < kDepth; ++i) {
    slots[i] =
        Slot{kBytes, static_cast<off_t>((i * 5 + 1) * kBytes), static_cast<off_t>(i * kBytes)};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slots[i], stream_).ok()) << "read " << i;
  }
  EXPECT_EQ(executor.ExclusiveChains(), 0u) << "a chain went alone with the pool below its limit";
  EXPECT_EQ(AsyncWays().chains_alone, 0u);
  EXPECT_EQ(executor.StagingBlocks(), size_t{kDepth + 1}) << "a block per read, and one to spare";
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  const std::vector<unsigned char> got = DeviceBytes(kDepth * kBytes);
  for (int i = 0; i < kDepth; ++i) {
    EXPECT_EQ(slots[i].bytes, static_cast<ssize_t>(kBytes)) << "read " << i;
    EXPECT_TRUE(std::equal(file.begin() + slots[i].file_offset,
                           file.begin() + slots[i].file_offset + kBytes,
                           got.begin() + slots[i].buffer_offset))
        << "read " << i;
  }
}

// With no block free (the only one is held by an operation whose read waits), every submission
// is queued alone, one chain at a time, and each operation waits for the block in turn.
TEST_P(AsyncStagedTest, ChainsAreQueuedOneAtATimeWhenNoBlockIsFree) {
  constexpr int kThreads = 16;
  constexpr size_t kBytes = 4096;
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  AsyncExecutor& executor = Executor();
  executor.SetStagingBlocks(1);
  ASSERT_EQ(executor.StagingBlocks(), 0u);
  sys_.CloseGate();
  Slot held{kBytes, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &held, Stream()).ok());
  ASSERT_TRUE(sys_.WaitHeld(1)) << "the block's operation did not start";
  std::vector<runtime::Stream> streams(kThreads);
  for (auto& s : streams) ASSERT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  std::vector<Slot> slots(kThreads);
  {
    const size_t alone = executor.ExclusiveChains();
    CallOverlap overlap(gpu_, GpuOp::kStreamWaitValue32, std::chrono::microseconds(200));
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const size_t k = static_cast<size_t>(t) + 1;
        slots[t] = Slot{kBytes, static_cast<off_t>(k * 3 * kBytes), static_cast<off_t>(k * kBytes)};
        if (!Submit(IoDirection::kRead, fh, &slots[t], streams[t]).ok()) ++failed;
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(overlap.Most(), 1) << "a chain queued alone overlapped another";
    EXPECT_EQ(executor.ExclusiveChains() - alone, static_cast<size_t>(kThreads));
    EXPECT_EQ(AsyncWays().chains_alone, executor.ExclusiveChains());
  }
  sys_.OpenGate();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  for (auto& s : streams) ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
  const std::vector<unsigned char> got = DeviceBytes((kThreads + 1) * kBytes);
  EXPECT_EQ(held.bytes, static_cast<ssize_t>(kBytes));
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + kBytes, got.begin()));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(slots[t].bytes, static_cast<ssize_t>(kBytes)) << "stream " << t;
    EXPECT_TRUE(std::equal(file.begin() + slots[t].file_offset,
                           file.begin() + slots[t].file_offset + kBytes,
                           got.begin() + slots[t].buffer_offset))
        << "stream " << t;
  }
  EXPECT_EQ(executor.StagingBlocks(), 1u);
  for (auto& s : streams) EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
}

// Streams the program holds back (each here behind a host function that waits until the test lets
// it go, as a program's stream waits for an event recorded later) keep the blocks reserved for
// their operations until they get there. Reservations never take the pool's last block that none
// counts on (AsyncExecutor::kSpareBlocks): another stream's reads, queued alone, get it and finish
// while every held stream still waits. Until 2026-12-04 the held streams' reservations could take
// every block, and the other stream's reads waited for the program to let one go: a program whose
// held streams wait for those reads never finished.
TEST_P(AsyncStagedTest, AStreamHeldBackWithABlockReservedHoldsUpNoOtherStream) {
  constexpr size_t kBytes = 4096;
  constexpr size_t kOthers = 3;  // reads on the stream that is not held, one after another
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  AsyncExecutor& executor = Executor();
  ASSERT_EQ(executor.StagingBlocks(), 0u);
  size_t at = 0;  // the next 4 KiB of the buffer, and of the file (a different 4 KiB each)
  for (size_t limit : {size_t{1}, size_t{2}, size_t{4}}) {
    SCOPED_TRACE("limit " + std::to_string(limit) + " blocks");
    executor.SetStagingBlocks(limit);
    struct Held {
      std::atomic<bool> go{false};
      std::chrono::steady_clock::time_point until;
    } held;
    held.until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    const runtime::HostFn wait = [](void* p) {
      auto* h = static_cast<Held*>(p);
      while (!h->go.load() && std::chrono::steady_clock::now() < h->until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    };
    // As many held streams as the limit has blocks, each with a read behind its hold.
    std::vector<runtime::Stream> streams(limit + 1);  // the last one is not held
    std::vector<Slot> slots;
    slots.reserve(limit + kOthers);
    for (size_t i = 0; i < streams.size(); ++i) {
      ASSERT_EQ(gpu_.StreamCreate(&streams[i], hipStreamNonBlocking), hipSuccess);
    }
    const auto submit = [&](runtime::Stream s) {
      const off_t where = static_cast<off_t>((at++ * 7 % (kFile / kBytes)) * kBytes);
      slots.push_back(
          Slot{kBytes, where, static_cast<off_t>((slots.size() + 16 * limit) * kBytes)});
      return Submit(IoDirection::kRead, fh, &slots.back(), s);
    };
    for (size_t i = 0; i < limit; ++i) {
      ASSERT_EQ(gpu_.LaunchHostFunc(streams[i], wait, &held), hipSuccess);
      ASSERT_TRUE(submit(streams[i]).ok()) << "held stream " << i;
    }
    runtime::Stream other = streams.back();
    for (size_t k = 0; k < kOthers; ++k) ASSERT_TRUE(submit(other).ok()) << "read " << k;
    const hipError_t other_done = QueryWithin(other, std::chrono::seconds(10));
    const bool still_held = std::chrono::steady_clock::now() < held.until && !held.go.load();
    held.go = true;
    EXPECT_EQ(other_done, hipSuccess) << "the stream waited for the held streams' reservations";
    EXPECT_TRUE(still_held) << "the held streams timed out first";
    for (runtime::Stream s : streams) ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    const std::vector<unsigned char> got = DeviceBytes(kBuffer);
    for (size_t k = 0; k < slots.size(); ++k) {
      EXPECT_EQ(slots[k].bytes, static_cast<ssize_t>(kBytes)) << "read " << k;
      EXPECT_TRUE(std::equal(file.begin() + slots[k].file_offset,
                             file.begin() + slots[k].file_offset + kBytes,
                             got.begin() + slots[k].buffer_offset))
          << "read " << k;
    }
    EXPECT_LE(executor.StagingBlocks(), limit) << "the pool went past its limit";
    for (runtime::Stream s : streams) EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
  }
}

// On CUDA a thread freeing memory holds every other thread's runtime calls until the streams have
// drained (runtime/cpu/driver_lock.h; the CPU runtime does the same). A submission held there
// part-way, its stream already waiting for the first chunk, must not be what the stream waits
// for: the stream is let on, the free returns, then the submission. Found on the H200, where the
// stress test's churn thread freed memory while another thread submitted.
TEST_P(AsyncStagedTest, MemoryFreedWhileASubmissionIsPartWayDoesNotDeadlock) {
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  void* spare = Spare();
  const size_t before = Staged();
  std::atomic<int> calls{0};
  std::atomic<bool> freed{false};
  std::thread freer;
  gpu_.BeforeCall(GpuOp::kCopyTableAsync, [&] {
    if (calls++ != 0) return;
    // The stream has `write reached` and `wait ready` of the first chunk.
    freer = std::thread([&] {
      EXPECT_EQ(gpu_.Free(spare), hipSuccess);
      freed = true;
    });
    testing::WaitUntil([&] { return freed.load(); }, kWaitLimit);  // the test body's verdict
  });
  Slot read{kFile, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &read, Stream()).ok());
  EXPECT_TRUE(freed) << "the free waited for a stream that waited for the held submission";
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  freer.join();
  EXPECT_EQ(Staged(), before + 1);
  EXPECT_EQ(read.bytes, static_cast<ssize_t>(kFile));
  const std::vector<unsigned char> got = DeviceBytes(kFile);
  EXPECT_TRUE(std::equal(file.begin(), file.end(), got.begin()));
}

// The same lock, met while a new stream's staging is pinned: pinning waits for a free that waits
// for another stream, whose operation the poller must hand out meanwhile - so the executor's lock
// is not held across the pinning (nor across any runtime call).
TEST_P(AsyncStagedTest, PinningStagingWhileMemoryIsFreedDoesNotHoldUpOtherStreams) {
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  void* spare = Spare();
  void* gate_memory = nullptr;
  ASSERT_EQ(gpu_.HostMalloc(&gate_memory, 4096, 0), hipSuccess);
  auto* gate = static_cast<uint32_t*>(gate_memory);
  *gate = 0;
  // Stream A: held at the gate, then a staged read.
  ASSERT_EQ(gpu_.StreamWaitValue32(Stream(), gate, 1), hipSuccess);
  Slot first{4096, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &first, stream_).ok());
  // Stream B's first staged operation pins its staging: held at the pinning until a free, which
  // waits for stream A, holds the runtime's lock; then it waits for the free.
  runtime::Stream other = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&other, 0), hipSuccess);
  std::atomic<bool> pinning{false};
  std::atomic<bool> go{false};
  gpu_.BeforeCall(GpuOp::kHostMalloc, [&] {
    pinning = true;
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  std::atomic<bool> submitted{false};
  Slot second{4096, 8192, 4096};
  std::thread submitter([&] {
    EXPECT_TRUE(Submit(IoDirection::kRead, fh, &second, other).ok());
    submitted = true;
  });
  ASSERT_TRUE(testing::WaitUntil([&] { return pinning.load(); }, kWaitLimit))
      << "stream B's submission did not pin staging";
  std::atomic<bool> freed{false};
  std::thread freer([&] {
    EXPECT_EQ(gpu_.Free(spare), hipSuccess);
    freed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the free holds the lock
  go = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the pinning waits for it
  __atomic_store_n(gate, 1, __ATOMIC_RELEASE);                 // stream A reaches its operation
  freer.join();
  submitter.join();
  EXPECT_TRUE(freed);
  EXPECT_TRUE(submitted);
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  ASSERT_EQ(gpu_.StreamSynchronize(other), hipSuccess);
  EXPECT_EQ(first.bytes, 4096);
  EXPECT_EQ(second.bytes, 4096);
  const std::vector<unsigned char> got = DeviceBytes(8192);
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + 4096, got.begin()));
  EXPECT_TRUE(std::equal(file.begin() + 8192, file.begin() + 12288, got.begin() + 4096));
  EXPECT_EQ(gpu_.StreamDestroy(other), hipSuccess);
  EXPECT_EQ(gpu_.HostFree(gate_memory), hipSuccess);
}

// Many streams over few hardware queues (the GPU runs what shares a queue in order): streams
// stalled on their value waits stall whatever shares their queue. Every operation finishes, with
// its bytes, because no copy of one waits behind another stream's wait on a worker.
class AsyncStagedQueuesTest : public AsyncStagedTest {
 protected:
  static runtime::CpuRuntimeOptions FourQueues() {
    runtime::CpuRuntimeOptions options;
    options.hardware_queues = 4;
    return options;
  }
  AsyncStagedQueuesTest() : AsyncStagedTest(FourQueues()) {}
};

TEST_P(AsyncStagedQueuesTest, SixteenStreamsOnFourQueuesAllFinish) {
  constexpr int kStreams = 16;
  constexpr size_t kEach = kBuffer / kStreams;  // disjoint pieces of the buffer
  void* fh = OpenFile("f", kBuffer);
  const std::vector<unsigned char> file = Pattern(kBuffer);
  std::vector<runtime::Stream> streams(kStreams);
  for (auto& s : streams) ASSERT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    std::vector<Slot> reads(kStreams), writes(kStreams);
    for (int i = 0; i < kStreams; ++i) {
      // Read piece i of the file into piece (i + 5) % 16 of the buffer, then write that piece
      // back to the file where it came from: the second needs the first's bytes.
      const off_t at = static_cast<off_t>(i * kEach);
      const off_t into = static_cast<off_t>(((i + 5) % kStreams) * kEach);
      reads[i] = Slot{kEach, at, into};
      writes[i] = Slot{kEach, at, into};
      ASSERT_TRUE(Submit(IoDirection::kRead, fh, &reads[i], streams[i]).ok());
      ASSERT_TRUE(Submit(IoDirection::kWrite, fh, &writes[i], streams[i]).ok());
    }
    for (auto& s : streams) ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    for (int i = 0; i < kStreams; ++i) {
      EXPECT_EQ(reads[i].bytes, static_cast<ssize_t>(kEach)) << "stream " << i;
      EXPECT_EQ(writes[i].bytes, static_cast<ssize_t>(kEach)) << "stream " << i;
    }
    const std::vector<unsigned char> got = DeviceBytes(kBuffer);
    for (int i = 0; i < kStreams; ++i) {
      const size_t into = ((i + 5) % kStreams) * kEach;
      ASSERT_TRUE(
          std::equal(file.begin() + i * kEach, file.begin() + (i + 1) * kEach, got.begin() + into))
          << "stream " << i;
    }
    EXPECT_EQ(testing::ReadFileOrDie(path_), file) << "the writes put back other bytes";
  }
  for (auto& s : streams) EXPECT_EQ(gpu_.StreamDestroy(s), hipSuccess);
}

// Reserved chains and chains queued alone, mixed on streams that share hardware queues: 16
// threads, each on a stream of its own, write a region of two chunks, read it back whole and in
// four 4 KiB pieces, with 6 blocks for all: the first submissions of a round reserve blocks, the
// rest go alone and wait for one. Every operation finishes with its bytes.
TEST_P(AsyncStagedQueuesTest, ReservedAndLoneChainsMixedOnSharedQueuesAllFinish) {
  constexpr int kThreads = 16;
  constexpr int kPieces = 4;
  constexpr size_t kPiece = 4096;
  constexpr size_t kRegion = kChunk + 3 * kPiece + 123;
  void* fh = OpenFile("f", kThreads * kRegion);
  AsyncExecutor& executor = Executor();
  executor.SetStagingBlocks(6);
  struct Thread {
    runtime::Stream stream = nullptr;
    void* wbuf = nullptr;  // what it writes
    void* rbuf = nullptr;  // its region read back whole
    void* pbuf = nullptr;  // and in pieces
  };
  std::vector<Thread> threads(kThreads);
  for (Thread& t : threads) {
    ASSERT_EQ(gpu_.StreamCreate(&t.stream, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(gpu_.Malloc(&t.wbuf, kRegion), hipSuccess);
    ASSERT_EQ(gpu_.Malloc(&t.rbuf, kRegion), hipSuccess);
    ASSERT_EQ(gpu_.Malloc(&t.pbuf, kPieces * kPiece), hipSuccess);
  }
  const size_t staged = Staged();
  const size_t alone = executor.ExclusiveChains();
  constexpr int kRounds = 3;
  for (int r = 0; r < kRounds; ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    std::vector<std::thread> running;
    for (int i = 0; i < kThreads; ++i) {
      running.emplace_back([&, i] {
        Thread& t = threads[static_cast<size_t>(i)];
        const std::vector<unsigned char> want = Pattern(kRegion, static_cast<unsigned>(i * 31 + r));
        ASSERT_EQ(gpu_.Memcpy(t.wbuf, want.data(), kRegion, hipMemcpyHostToDevice), hipSuccess);
        const off_t at = static_cast<off_t>(static_cast<size_t>(i) * kRegion);
        Slot write{kRegion, at, 0};
        Slot read{kRegion, at, 0};
        std::vector<Slot> pieces(kPieces);
        ASSERT_TRUE(SubmitTo(IoDirection::kWrite, fh, t.wbuf, &write, t.stream).ok());
        ASSERT_TRUE(SubmitTo(IoDirection::kRead, fh, t.rbuf, &read, t.stream).ok());
        for (int p = 0; p < kPieces; ++p) {
          pieces[p] = Slot{kPiece, at + static_cast<off_t>(p * (kRegion / kPieces)),
                           static_cast<off_t>(p * kPiece)};
          ASSERT_TRUE(SubmitTo(IoDirection::kRead, fh, t.pbuf, &pieces[p], t.stream).ok());
        }
        ASSERT_EQ(gpu_.StreamSynchronize(t.stream), hipSuccess);
        EXPECT_EQ(write.bytes, static_cast<ssize_t>(kRegion)) << "stream " << i;
        EXPECT_EQ(read.bytes, static_cast<ssize_t>(kRegion)) << "stream " << i;
        std::vector<unsigned char> got(kRegion);
        ASSERT_EQ(gpu_.Memcpy(got.data(), t.rbuf, kRegion, hipMemcpyDeviceToHost), hipSuccess);
        EXPECT_EQ(got, want) << "stream " << i;
        std::vector<unsigned char> piece(kPieces * kPiece);
        ASSERT_EQ(gpu_.Memcpy(piece.data(), t.pbuf, piece.size(), hipMemcpyDeviceToHost),
                  hipSuccess);
        for (int p = 0; p < kPieces; ++p) {
          const size_t from = static_cast<size_t>(p) * (kRegion / kPieces);
          EXPECT_EQ(pieces[p].bytes, static_cast<ssize_t>(kPiece)) << "stream " << i;
          EXPECT_TRUE(std::equal(want.begin() + from, want.begin() + from + kPiece,
                                 piece.begin() + p * kPiece))
              << "stream " << i << " piece " << p;
        }
      });
    }
    for (std::thread& thread : running) thread.join();
  }
  const size_t ops = Staged() - staged;
  const size_t went_alone = executor.ExclusiveChains() - alone;
  EXPECT_EQ(ops, static_cast<size_t>(kRounds * kThreads * (2 + kPieces))) << "all staged";
  EXPECT_GT(went_alone, 0u) << "no chain went alone: the blocks did not run out";
  EXPECT_LT(went_alone, ops) << "no chain reserved a block";
  EXPECT_LE(executor.StagingBlocks(), 6u);
  for (Thread& t : threads) {
    EXPECT_EQ(gpu_.StreamDestroy(t.stream), hipSuccess);
    EXPECT_EQ(gpu_.Free(t.wbuf), hipSuccess);
    EXPECT_EQ(gpu_.Free(t.rbuf), hipSuccess);
    EXPECT_EQ(gpu_.Free(t.pbuf), hipSuccess);
  }
}

// All streams on one hardware queue, two blocks. An operation can finish before its submission
// has queued its copy (its worker does not wait for the rest of its chain): its block is then
// still draining, the copy not yet on the stream. Such a block is not reserved for another
// operation: that one's chain would be queued now, its `wait ready` ahead of the copy on the
// queue, and it would wait for the block for good. It goes alone, after the first chain. The
// other block is held meanwhile by a read on a third stream, held in its file I/O, so that the
// draining block is the only one a reservation could take (the pool keeps one that no
// reservation counts on: AsyncExecutor::kSpareBlocks, which with one block reserves nothing).
class AsyncStagedOneQueueTest : public AsyncStagedTest {
 protected:
  static runtime::CpuRuntimeOptions OneQueue() {
    runtime::CpuRuntimeOptions options;
    options.hardware_queues = 1;
    return options;
  }
  AsyncStagedOneQueueTest() : AsyncStagedTest(OneQueue()) {}
};

TEST_P(AsyncStagedOneQueueTest, ABlockStillDrainingIsNotReserved) {
  constexpr size_t kBytes = 4096;
  void* fh = OpenFile("f", kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  AsyncExecutor& executor = Executor();
  executor.SetStagingBlocks(2);
  runtime::Stream other = nullptr;
  runtime::Stream third = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&other, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(gpu_.StreamCreate(&third, hipStreamNonBlocking), hipSuccess);
  // The streams' tables and both blocks, pinned first (a read at a time: the pool keeps one to
  // spare).
  for (runtime::Stream s : {stream_, other, third}) {
    Slot warm{kBytes, 0, 0};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &warm, s).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
  }
  ASSERT_EQ(executor.StagingBlocks(), 2u);
  const size_t alone = executor.ExclusiveChains();

  Slot first{kBytes, static_cast<off_t>(2 * kBytes), 0};
  Slot holder{kBytes, static_cast<off_t>(7 * kBytes), static_cast<off_t>(2 * kBytes)};
  Slot second{kBytes, static_cast<off_t>(5 * kBytes), static_cast<off_t>(kBytes)};
  std::atomic<bool> armed{true};
  std::atomic<bool> finished_first{false};
  std::atomic<bool> held_other_block{false};
  std::atomic<bool> second_returned{false};
  bool second_early = false;
  std::thread submitter;
  gpu_.BeforeCall(GpuOp::kCopyTableAsync, [&] {
    if (!armed.exchange(false)) return;  // the first operation's copy, not yet on its stream
    finished_first = testing::WaitUntil([&] { return executor.Outstanding() == 0; }, kWaitLimit);
    // The other block: leased by a read its stream has reached, held in its file I/O.
    sys_.CloseGate();
    std::thread([&] { EXPECT_TRUE(Submit(IoDirection::kRead, fh, &holder, third).ok()); }).join();
    held_other_block = sys_.WaitHeld(1);
    submitter = std::thread([&] {
      EXPECT_TRUE(Submit(IoDirection::kRead, fh, &second, other).ok());
      second_returned = true;
    });
    // Reserved the draining block, the second chain would be on the queue by now.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    second_early = second_returned;
  });
  const Status submitted = Submit(IoDirection::kRead, fh, &first, stream_);
  if (submitter.joinable()) submitter.join();
  ASSERT_TRUE(submitted.ok()) << submitted.ToString();
  gpu_.Reset();
  sys_.OpenGate();
  EXPECT_TRUE(finished_first) << "the first operation did not finish before its copy was queued";
  EXPECT_TRUE(held_other_block) << "the third stream's read did not start";
  EXPECT_FALSE(second_early) << "the second chain was queued in the middle of the first";
  for (runtime::Stream s : {stream_, other, third}) {
    ASSERT_EQ(QueryWithin(s, std::chrono::seconds(20)), hipSuccess)
        << "deadlock: a stream waits for a block for good";
  }
  EXPECT_EQ(executor.ExclusiveChains() - alone, 1u) << "the second chain was not queued alone";
  EXPECT_EQ(first.bytes, static_cast<ssize_t>(kBytes));
  EXPECT_EQ(second.bytes, static_cast<ssize_t>(kBytes));
  EXPECT_EQ(holder.bytes, static_cast<ssize_t>(kBytes));
  const std::vector<unsigned char> got = DeviceBytes(3 * kBytes);
  EXPECT_TRUE(std::equal(file.begin() + 2 * kBytes, file.begin() + 3 * kBytes, got.begin()));
  EXPECT_TRUE(
      std::equal(file.begin() + 5 * kBytes, file.begin() + 6 * kBytes, got.begin() + kBytes));
  EXPECT_TRUE(
      std::equal(file.begin() + 7 * kBytes, file.begin() + 8 * kBytes, got.begin() + 2 * kBytes));
  EXPECT_EQ(gpu_.StreamDestroy(other), hipSuccess);
  EXPECT_EQ(gpu_.StreamDestroy(third), hipSuccess);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncStagedTest, ::testing::Values(Path::kAsync), PathName);
// Operations of more than two small chunks reserve a large block where one is free or can be
// pinned, and move in chunks of engine::kStreamLargeChunkBytes (docs/async.md, "At the disk's
// rate"); four hardware queues, so that streams share them.
constexpr size_t kLarge = engine::kStreamLargeChunkBytes;
constexpr size_t kLargeFile = 2 * kLarge + 12345;  // three large chunks, the last one partial
constexpr size_t kLargeBuffer = 3 * kLarge;

class AsyncLargeChunksTest : public AsyncStagedTest {
 protected:
  static runtime::CpuRuntimeOptions FourQueues() {
    runtime::CpuRuntimeOptions options;
    options.hardware_queues = 4;
    return options;
  }
  // Every operation of more than two small chunks may take a large block (the default takes
  // operations of 64 MiB: HIPFILE_ASYNC_LARGE_CHUNKS_MB).
  AsyncLargeChunksTest() : AsyncStagedTest(FourQueues(), kLargeBuffer) {
    Executor().SetLargeChunksFrom(1);
  }
  size_t Large() { return Executor().LargeChunkOperations(); }
  // A new driver on `sys`, configured from `env`'s environment (ParseConfig): a read of the whole
  // file and a write of it, both staged, every byte checked.
  void ReadAndWriteOnANewDriver(platform::Sys& sys, platform::Sys& env) {
    if (stream_ != nullptr) {
      ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    }
    driver_.reset();
    driver_ = std::make_unique<Driver>(sys, gpu_, QueuedWayConfig(env));
    ASSERT_TRUE(driver_->Open().ok());
    void* fh = OpenFile("f", kLargeFile);
    FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
    Slot read{kLargeFile, 0, 0};
    ASSERT_TRUE(Submit(IoDirection::kRead, fh, &read, Stream()).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(read.bytes, static_cast<ssize_t>(kLargeFile));
    EXPECT_EQ(DeviceBytes(kLargeFile), Pattern(kLargeFile));
    ASSERT_NO_FATAL_FAILURE(WriteAndCheck(fh, Pattern(kLargeFile, 5)));
    EXPECT_EQ(Staged(), 2u) << "both staged";
  }
};

TEST_P(AsyncLargeChunksTest, ReadsAndWritesInLargeChunksMoveEveryByte) {
  void* fh = OpenFile("f", kLargeFile);
  const std::vector<unsigned char> file = Pattern(kLargeFile);
  const size_t before = Large();
  sys_.Reset();
  FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
  Slot read{kLargeFile, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &read, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(read.bytes, static_cast<ssize_t>(kLargeFile));
  std::vector<unsigned char> got = DeviceBytes(kLargeBuffer);
  EXPECT_TRUE(std::equal(file.begin(), file.end(), got.begin()));
  EXPECT_EQ(got[kLargeFile], 0xee) << "a byte past the transfer was written";
  EXPECT_EQ(Large(), before + 1) << "not moved in large chunks";
  EXPECT_EQ(AsyncWays().large_chunks, Large());
  // Odd offsets across a large chunk's end, short at end of file.
  FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
  Slot odd{2 * kLarge, static_cast<off_t>(kLarge - 7), 5};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &odd, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  const size_t left = kLargeFile - (kLarge - 7);
  EXPECT_EQ(odd.bytes, static_cast<ssize_t>(left));
  got = DeviceBytes(kLargeBuffer);
  EXPECT_EQ(got[4], 0xee);
  EXPECT_TRUE(std::equal(file.begin() + (kLarge - 7), file.end(), got.begin() + 5));
  EXPECT_EQ(got[5 + left], 0xee);
  // New bytes over the whole file, then read back.
  const std::vector<unsigned char> data = Pattern(kLargeFile, 3);
  ASSERT_NO_FATAL_FAILURE(WriteAndCheck(fh, data));
  EXPECT_EQ(Large(), before + 3);
  // Two small chunks or fewer: small blocks.
  Slot small{2 * kChunk, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &small, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(small.bytes, static_cast<ssize_t>(2 * kChunk));
  EXPECT_EQ(Large(), before + 3);
  // Turned off, a large operation takes small chunks, and moves the same bytes.
  Executor().SetLargeChunksFrom(0);
  FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
  Slot off{kLargeFile, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &off, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(off.bytes, static_cast<ssize_t>(kLargeFile));
  EXPECT_EQ(DeviceBytes(kLargeFile), data);
  EXPECT_EQ(Large(), before + 3);
}

// HIPFILE_ASYNC_LARGE_CHUNKS_MB reaches the executor: an operation of at least its size takes a
// large block, a smaller one (as under the default, 64) or any with 0 the small chunks, and each
// moves the same bytes.
TEST_P(AsyncLargeChunksTest, TheSettingDecidesWhichOperationsTakeLargeChunks) {
  // The variable as the process's environment would hold it, read by ParseConfig.
  struct Env : testing::FaultSys {
    const char* mb = nullptr;
    const char* Getenv(const char* name) override {
      return std::strcmp(name, "HIPFILE_ASYNC_LARGE_CHUNKS_MB") == 0 ? mb : FaultSys::Getenv(name);
    }
  } env;
  static_assert(kLargeFile > (size_t{16} << 20) && kLargeFile < (size_t{17} << 20));
  // The write (over 16 MiB, more than one large chunk) waits for the disk: large chunks whatever
  // the size, unless the setting is 0 (AWriteOfSeveralLargeChunksTakesThemBelowTheSetting).
  const struct {
    const char* mb;
    size_t large;  // operations (a read and a write) in large chunks
  } cases[] = {{nullptr, 1}, {"0", 0}, {"16", 2}, {"17", 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.mb != nullptr ? c.mb : "unset");
    env.mb = c.mb;
    ASSERT_NO_FATAL_FAILURE(ReadAndWriteOnANewDriver(sys_, env));
    EXPECT_EQ(Large(), c.large);
  }
}

// A read that would come from the disk (no page of it in the page cache, as mincore says here)
// takes large chunks below the setting's size: the disk's rate wants reads the synchronous
// path's size. So does the write of the same size (as in the test above); neither does with the
// setting at 0 (no large chunks at all), nor the read with its pages resident (the warm file, in
// the test above).
TEST_P(AsyncLargeChunksTest, AReadFromTheDiskTakesLargeChunksBelowTheSetting) {
  // The process's environment and a page cache that holds none of the file. It outlives the
  // drivers made on it (never freed): the fixture tears the last one down after this body.
  struct ColdSys : testing::FaultSys {
    const char* mb = nullptr;
    const char* Getenv(const char* name) override {
      return std::strcmp(name, "HIPFILE_ASYNC_LARGE_CHUNKS_MB") == 0 ? mb : FaultSys::Getenv(name);
    }
    Status Mincore(void* addr, size_t length, unsigned char* vec) override {
      const Status status = FaultSys::Mincore(addr, length, vec);
      const size_t page = static_cast<size_t>(PageSize());
      if (status.ok()) std::memset(vec, 0, (length + page - 1) / page);
      return status;
    }
  };
  static auto* const cold = new ColdSys;
  const struct {
    const char* mb;
    size_t large;  // operations in large chunks: the read and the write
  } cases[] = {{nullptr, 2}, {"0", 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.mb != nullptr ? c.mb : "unset (64 MiB)");
    cold->mb = c.mb;
    ASSERT_NO_FATAL_FAILURE(ReadAndWriteOnANewDriver(*cold, *cold));
    EXPECT_EQ(Large(), c.large);
  }
}

// A write waits for the disk, as a cold read does: one of more than one large chunk takes them
// below the setting's size, where the stream's copy of one chunk overlaps the write of the other;
// one of a single large chunk (which would not overlap) keeps the small chunks. Every byte lands.
TEST_P(AsyncLargeChunksTest, AWriteOfSeveralLargeChunksTakesThemBelowTheSetting) {
  Executor().SetLargeChunksFrom(size_t{64} << 20);  // the default
  const struct {
    size_t bytes;
    size_t large;  // 1: the write took large chunks
  } cases[] = {{kLarge, 0}, {kLarge + 4096, 1}, {kLargeFile, 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bytes);
    void* fh = OpenFile("w" + std::to_string(c.bytes), c.bytes);
    const size_t before = Large();
    ASSERT_NO_FATAL_FAILURE(WriteAndCheck(fh, Pattern(c.bytes, 3)));
    EXPECT_EQ(Large() - before, c.large);
  }
  EXPECT_EQ(Staged(), 3u) << "every write staged";
}

// A read failing in its second large chunk returns the first's bytes; a write the same.
TEST_P(AsyncLargeChunksTest, AFailureInTheSecondLargeChunkGivesTheFirstsBytes) {
  Executor().SetDeviceScratchBytes(0);  // the chunks' failures, not copies ahead (as above)
  void* fh = OpenFile("f", kLargeFile);
  const std::vector<unsigned char> file = Pattern(kLargeFile);
  FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
  // The first chunk's bytes in one move: count its reads, then fail the one after them.
  sys_.Reset();
  ExpectCleanRead(fh, kLarge);
  const uint64_t per_chunk = sys_.Calls(SysOp::kPread);
  ASSERT_GE(per_chunk, 1u);
  sys_.Reset();
  sys_.FailNth(SysOp::kPread, per_chunk + 1, EIO);
  FillDevice(std::vector<unsigned char>(kLargeBuffer, 0xee));
  const Outcome out = Run(IoDirection::kRead, fh, kLargeFile, 0);
  ++g_faults;
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, kLarge);
  const std::vector<unsigned char> got = DeviceBytes(kLarge + 1);
  EXPECT_TRUE(std::equal(file.begin(), file.begin() + kLarge, got.begin()));
  EXPECT_EQ(got[kLarge], 0xee) << "the failed chunk was copied";

  const std::vector<unsigned char> data = Pattern(kLargeFile, 8);
  FillDevice(data);
  sys_.Reset();
  sys_.FailNth(SysOp::kPwrite, 2, ENOSPC);
  const Outcome wrote = Run(IoDirection::kWrite, fh, kLargeFile, 0);
  ++g_faults;
  ASSERT_TRUE(wrote.ok) << wrote.error.ToString();
  EXPECT_EQ(wrote.bytes, kLarge);
  const std::vector<unsigned char> now = testing::ReadFileOrDie(path_);
  EXPECT_TRUE(std::equal(data.begin(), data.begin() + kLarge, now.begin()));
  EXPECT_TRUE(std::equal(file.begin() + kLarge, file.end(), now.begin() + kLarge))
      << "bytes past the failed chunk changed";
}

// Large blocks take at most half the pool's limit, and only what the small blocks leave; the
// operations that find none move in small chunks. 12 streams on 4 queues, each a large read
// and, behind it, small ones, with a limit of 12 small blocks' bytes: one large block (4 small
// ones' worth) at most, the rest small, some chains queued alone. Every operation finishes with
// its bytes.
TEST_P(AsyncLargeChunksTest, LargeBlocksStayWithinTheirShareAndEveryStreamFinishes) {
  constexpr int kStreams = 12;
  constexpr size_t kRead = 3 * kChunk + 4096;  // more than two small chunks: large if it can
  constexpr size_t kPiece = 4096;
  void* fh = OpenFile("f", kLargeFile);
  const std::vector<unsigned char> file = Pattern(kLargeFile);
  AsyncExecutor& executor = Executor();
  executor.SetStagingBlocks(12);
  const size_t large_before = Large();
  const size_t alone_before = executor.ExclusiveChains();
  std::vector<runtime::Stream> streams(kStreams);
  std::vector<void*> bufs(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_EQ(gpu_.StreamCreate(&streams[i], hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(gpu_.Malloc(&bufs[i], kRead + 2 * kPiece), hipSuccess);
  }
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<std::thread> threads;
    for (int i = 0; i < kStreams; ++i) {
      threads.emplace_back([&, i] {
        const off_t at = static_cast<off_t>((static_cast<size_t>(i) * 1237 * 4096 + round * 8192) %
                                            (kLargeFile - kRead));
        Slot big{kRead, at, 0};
        Slot p1{kPiece, at + 5, static_cast<off_t>(kRead)};
        Slot p2{kPiece, at + static_cast<off_t>(kRead) - 100, static_cast<off_t>(kRead + kPiece)};
        ASSERT_TRUE(SubmitTo(IoDirection::kRead, fh, bufs[i], &big, streams[i]).ok());
        ASSERT_TRUE(SubmitTo(IoDirection::kRead, fh, bufs[i], &p1, streams[i]).ok());
        ASSERT_TRUE(SubmitTo(IoDirection::kRead, fh, bufs[i], &p2, streams[i]).ok());
        ASSERT_EQ(gpu_.StreamSynchronize(streams[i]), hipSuccess);
        EXPECT_EQ(big.bytes, static_cast<ssize_t>(kRead)) << "stream " << i;
        EXPECT_EQ(p1.bytes, static_cast<ssize_t>(kPiece)) << "stream " << i;
        EXPECT_EQ(p2.bytes, static_cast<ssize_t>(kPiece)) << "stream " << i;
        std::vector<unsigned char> got(kRead + 2 * kPiece);
        ASSERT_EQ(gpu_.Memcpy(got.data(), bufs[i], got.size(), hipMemcpyDeviceToHost), hipSuccess);
        const auto from = file.begin() + at;
        EXPECT_TRUE(std::equal(from, from + kRead, got.begin())) << "stream " << i;
        EXPECT_TRUE(std::equal(from + 5, from + 5 + kPiece, got.begin() + kRead)) << "stream " << i;
        EXPECT_TRUE(std::equal(from + kRead - 100, from + kRead - 100 + kPiece,
                               got.begin() + kRead + kPiece))
            << "stream " << i;
      });
    }
    for (std::thread& t : threads) t.join();
  }
  EXPECT_GT(Large(), large_before) << "no operation took a large block";
  EXPECT_LT(Large() - large_before, size_t{3 * kStreams}) << "every one did: past their share";
  EXPECT_GT(executor.ExclusiveChains(), alone_before) << "the small blocks never ran out";
  EXPECT_LE(executor.StagingBlocks(), 12u) << "past the limit";
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(gpu_.StreamDestroy(streams[i]), hipSuccess);
    EXPECT_EQ(gpu_.Free(bufs[i]), hipSuccess);
  }
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncLargeChunksTest, ::testing::Values(Path::kAsync),
                         PathName);

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncStagedOneQueueTest, ::testing::Values(Path::kAsync),
                         PathName);
INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncStagedQueuesTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
