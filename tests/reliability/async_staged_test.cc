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
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kChunk = engine::kStreamChunkBytes;
constexpr size_t kFile = 2 * kChunk + 12345;  // three chunks, the last one partial
constexpr size_t kBuffer = 3 * kChunk;

class AsyncStagedTest : public IoPathTest {
 protected:
  explicit AsyncStagedTest(const runtime::CpuRuntimeOptions& options = {})
      : IoPathTest(kBuffer, options) {}

  size_t Staged() { return (*driver_->async_executor())->StagedOperations(); }

  // Submits one operation on `stream` without waiting; the variables live in `slot`.
  struct Slot {
    size_t size = 0;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
    ssize_t bytes = 12345;
  };
  Status Submit(IoDirection direction, void* fh, Slot* slot, runtime::Stream stream) {
    return driver_->SubmitAsync(direction, fh, dev_, &slot->size, &slot->file_offset,
                                &slot->buffer_offset, &slot->bytes, stream);
  }

  // Device memory for a test to free while streams wait: the free waits for every stream, and
  // holds every other runtime call meanwhile (runtime/cpu/driver_lock.h).
  void* Spare() {
    void* p = nullptr;
    EXPECT_EQ(gpu_.Malloc(&p, 4096), hipSuccess);
    return p;
  }

  Watchdog watchdog_{std::chrono::seconds(60)};
};

// The bytes OpenFile writes (no seed), or others.
std::vector<unsigned char> Pattern(size_t n) { return testing::PatternBytes(n); }
std::vector<unsigned char> Pattern(size_t n, unsigned seed) {
  return testing::PatternBytes(n, seed);
}

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
  FillDevice(data);
  Slot write{kFile, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kWrite, fh, &write, Stream()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(write.bytes, static_cast<ssize_t>(kFile));
  EXPECT_EQ(testing::ReadFileOrDie(path_), data);
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
// store of the second chunk, or the final wait. The submission reports the GPU error, the stream
// is let through (whatever of the chain was queued), later operations on it work - on the
// engine's streams, as its tokens no longer line up - and a fresh stream stages again.
TEST_P(AsyncStagedTest, QueueingFailureLeavesTheStreamUsable) {
  void* fh = OpenFile("f", kFile);
  ExpectCleanRead(fh, kFile);
  struct Fault {
    const char* what;
    GpuOp op;
    uint64_t nth;
  };
  // A three-chunk read queues: write reached, then per chunk wait / copy / write copied, then
  // the final wait: so write #3 is chunk 1's `copied`, wait #4 the final one.
  for (const Fault& fault : {Fault{"copy of chunk 1", GpuOp::kCopyTableAsync, 2},
                             Fault{"copied store of chunk 1", GpuOp::kStreamWriteValue32, 3},
                             Fault{"final wait", GpuOp::kStreamWaitValue32, 4}}) {
    SCOPED_TRACE(fault.what);
    runtime::Stream s = nullptr;
    ASSERT_EQ(gpu_.StreamCreate(&s, 0), hipSuccess);
    gpu_.Reset();
    gpu_.FailNth(fault.op, fault.nth, hipErrorLaunchFailure);
    Slot slot{kFile, 0, 0};
    const Status submitted = Submit(IoDirection::kRead, fh, &slot, s);
    ++g_faults;
    EXPECT_TRUE(submitted.IsGpu(hipErrorLaunchFailure)) << submitted.ToString();
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
  const size_t before = Staged();
  ExpectCleanRead(fh, kFile);  // the fixture's stream: never broken
  EXPECT_EQ(Staged(), before + 1);
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
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (executor.Outstanding() > 1 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    first_ran = executor.Outstanding() <= 1;
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
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!freed && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
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
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pinning && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(pinning) << "stream B's submission did not pin staging";
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

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncStagedTest, ::testing::Values(Path::kAsync), PathName);
INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncStagedQueuesTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
