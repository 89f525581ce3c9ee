// SPDX-License-Identifier: MIT
// Copy waits that poll a word the lane's stream writes (HIPFILE_COPY_WAIT=word,
// engine/copy_wait.h) instead of the stream: WaitForLane on a lane of its own, and SyncEngine
// reads and writes with lanes that have words, over FaultRuntime on the CPU runtime.
#include "engine/copy_wait.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/stream_pool.h"
#include "engine/sync_io.h"
#include "engine_test_util.h"
#include "fakes/gate.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::WriteFileOrDie;

constexpr size_t kSize = 5 * kTestChunk;

class CopyWaitTest : public EngineTestBase {
 protected:
  // A lane of device 0 from a pool with words.
  Lane TakeLane() {
    Result<Lane> lane = pool_.Acquire(0);
    EXPECT_TRUE(lane.ok()) << lane.status().ToString();
    return lane.ok() ? *lane : Lane{};
  }
  static CopyWaitPolicy Spin(std::chrono::microseconds spin) { return {spin, {}}; }

  StreamPool pool_{gpu_, /*words=*/true};
};

// A lane waited for by its word: one stream memory operation a wait, and no poll of the stream.
TEST_F(CopyWaitTest, AWordWaitWritesTheNextNumberAndNeverPollsTheStream) {
  const Lane lane = TakeLane();
  ASSERT_NE(lane.word, nullptr) << "the CPU runtime has stream memory operations";
  std::vector<unsigned char> src(4096, 0x5a), dst(4096, 0);
  for (uint32_t i = 1; i <= 3; ++i) {
    ASSERT_EQ(
        gpu_.MemcpyAsync(dst.data(), src.data(), src.size(), hipMemcpyHostToHost, lane.stream),
        hipSuccess);
    // A long spin: the CPU runtime's stream thread may be slow to get there on a busy machine.
    ASSERT_TRUE(WaitForLane(gpu_, sys_, lane, Spin(std::chrono::seconds(10))).ok());
    EXPECT_EQ(lane.word[0], i);
    EXPECT_EQ(dst, src);
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWriteValue32), 3u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventSynchronize), 0u);
  pool_.Release(0, lane);
}

// A stream still busy when the spin ends is waited for on the lane's event, whose error (a
// stream that failed never writes the number) is the wait's.
TEST_F(CopyWaitTest, AStreamStillBusyAfterTheSpinIsWaitedForOnTheEvent) {
  const Lane lane = TakeLane();
  ASSERT_NE(lane.word, nullptr);
  for (const hipError_t error : {hipSuccess, hipErrorLaunchFailure}) {
    SCOPED_TRACE(error);
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(lane.stream, &testing::StreamGate::Wait, &gate), hipSuccess);
    if (error != hipSuccess) gpu_.FailAlways(GpuOp::kEventSynchronize, error);
    std::thread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      gate.Open();
    });
    const uint64_t sleeps = gpu_.Calls(GpuOp::kEventSynchronize);
    const Status waited = WaitForLane(gpu_, sys_, lane, Spin(std::chrono::microseconds(20)));
    opener.join();
    EXPECT_EQ(gpu_.Calls(GpuOp::kEventSynchronize), sleeps + 1);
    if (error == hipSuccess) {
      EXPECT_TRUE(waited.ok()) << waited.ToString();
      EXPECT_EQ(lane.word[0], lane.word[1]) << "the event came before the word's write";
    } else {
      EXPECT_TRUE(waited.IsGpu(error)) << waited.ToString();
    }
    gpu_.Reset();
    ASSERT_EQ(gpu_.StreamSynchronize(lane.stream), hipSuccess);
  }
  pool_.Release(0, lane);
}

// The runtime refusing the memory operation: that wait polls the stream, and the next one tries
// the word again.
TEST_F(CopyWaitTest, ARefusedWordWritePollsTheStreamInstead) {
  const Lane lane = TakeLane();
  ASSERT_NE(lane.word, nullptr);
  gpu_.FailNth(GpuOp::kStreamWriteValue32, 1, hipErrorNotSupported);
  ASSERT_TRUE(WaitForLane(gpu_, sys_, lane, Spin(std::chrono::seconds(10))).ok());
  EXPECT_GT(gpu_.Calls(GpuOp::kStreamQuery), 0u);
  EXPECT_EQ(lane.word[1], 0u) << "a number was taken for a write that was refused";
  const uint64_t polls = gpu_.Calls(GpuOp::kStreamQuery);
  ASSERT_TRUE(WaitForLane(gpu_, sys_, lane, Spin(std::chrono::seconds(10))).ok());
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), polls);
  EXPECT_EQ(lane.word[0], 1u);
  pool_.Release(0, lane);
}

// What a wait tells its CopyWaitCounts: one call per wait, whether it slept, and its times.
class Recorder final : public CopyWaitCounts {
 public:
  void Waited(bool did_sleep, std::chrono::nanoseconds poll_time,
              std::chrono::nanoseconds sleep_time) override {
    ++waits;
    slept += did_sleep ? 1 : 0;
    polled += poll_time;
    asleep += sleep_time;
  }
  int waits = 0;
  int slept = 0;
  std::chrono::nanoseconds polled{0};
  std::chrono::nanoseconds asleep{0};
};

// A copy done within the spin: one wait, not slept, no time asleep; one held past it: slept, after
// polling the whole spin, and asleep at least until the gate opened. A failed wait counts too.
TEST_F(CopyWaitTest, EachWaitIsToldWhetherItSleptAndForHowLong) {
  for (const bool words : {true, false}) {
    SCOPED_TRACE(words ? "word" : "stream polled");
    StreamPool pool(gpu_, words);
    Result<Lane> lane = pool.Acquire(0);
    ASSERT_TRUE(lane.ok());
    Recorder counts;
    std::vector<unsigned char> src(4096, 0x5a), dst(4096, 0);
    ASSERT_EQ(
        gpu_.MemcpyAsync(dst.data(), src.data(), src.size(), hipMemcpyHostToHost, lane->stream),
        hipSuccess);
    // A long spin: the CPU runtime's stream thread may be slow to get there on a busy machine.
    ASSERT_TRUE(WaitForLane(gpu_, sys_, *lane, {std::chrono::seconds(10), {}, &counts}).ok());
    EXPECT_EQ(counts.waits, 1);
    EXPECT_EQ(counts.slept, 0);
    EXPECT_EQ(counts.asleep.count(), 0);

    const auto spin = std::chrono::microseconds(200);
    for (const hipError_t error : {hipSuccess, hipErrorLaunchFailure}) {
      SCOPED_TRACE(error);
      testing::StreamGate gate;
      ASSERT_EQ(gpu_.LaunchHostFunc(lane->stream, &testing::StreamGate::Wait, &gate), hipSuccess);
      if (error != hipSuccess) gpu_.FailAlways(GpuOp::kEventSynchronize, error);
      const Recorder before = counts;
      std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gate.Open();
      });
      const auto begin = std::chrono::steady_clock::now();
      const Status waited = WaitForLane(gpu_, sys_, *lane, {spin, {}, &counts});
      const auto end = std::chrono::steady_clock::now();
      opener.join();
      EXPECT_EQ(waited.ok(), error == hipSuccess) << waited.ToString();
      EXPECT_EQ(counts.waits, before.waits + 1);
      EXPECT_EQ(counts.slept, before.slept + 1);
      // It polled the whole spin before it slept, and its two times lie within the call.
      EXPECT_GE(counts.polled - before.polled, spin);
      EXPECT_GT(counts.asleep - before.asleep, std::chrono::nanoseconds(0));
      EXPECT_LE(counts.polled - before.polled + counts.asleep - before.asleep, end - begin);
      gpu_.Reset();
      ASSERT_EQ(gpu_.StreamSynchronize(lane->stream), hipSuccess);
    }
    pool.Release(0, *lane);
  }
}

// Lanes get words only where the device has stream memory operations, and only from a pool
// asked for them.
TEST_F(CopyWaitTest, WordsOnlyWhereAskedForAndSupported) {
  StreamPool plain(gpu_);
  Result<Lane> lane = plain.Acquire(0);
  ASSERT_TRUE(lane.ok());
  EXPECT_EQ(lane->word, nullptr);
  plain.Release(0, *lane);
  gpu_.SetStreamMemOps(0);
  StreamPool without(gpu_, /*words=*/true);
  lane = without.Acquire(0);
  ASSERT_TRUE(lane.ok());
  EXPECT_EQ(lane->word, nullptr);
  without.Release(0, *lane);
  // No memory for the word: a lane all the same, polled.
  gpu_.Reset();
  gpu_.FailAlways(GpuOp::kHostMalloc, hipErrorOutOfMemory);
  StreamPool no_memory(gpu_, /*words=*/true);
  lane = no_memory.Acquire(0);
  ASSERT_TRUE(lane.ok()) << lane.status().ToString();
  EXPECT_EQ(lane->word, nullptr);
  no_memory.Release(0, *lane);
}

// The engine with words on: staged reads and writes, several chunks and one, move every byte
// with no poll of a stream; each pinned word is freed with its pool.
TEST_F(CopyWaitTest, TheEngineMovesEveryByteWaitingOnWords) {
  const std::vector<unsigned char> content = PatternBytes(kSize, 7);
  const std::string in_path = dir_.File("in"), out_path = dir_.File("out");
  WriteFileOrDie(in_path, content);
  WriteFileOrDie(out_path, {});
  GpuBuffer mem(gpu_, kSize, hipMemoryTypeDevice);
  const uint64_t pinned = gpu_.PinnedHostBytes();
  {
    EngineOptions options = SmallOptions(4, 2);
    options.copy_wait_words = true;
    options.copy_spin_us = 10 * 1000 * 1000;  // a slow stream thread is still waited on the word
    SyncEngine engine(sys_, gpu_, options);
    ScopedFd in(in_path, O_RDONLY);
    ScopedFd out(out_path, O_WRONLY);
    for (const size_t size : {kSize, size_t{4096}}) {
      SCOPED_TRACE(size);
      mem.Fill(0);
      Result<size_t> r = engine.Read(in.file(), mem.At(0), size, 0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(*r, size);
      const std::vector<unsigned char> got = mem.Download();
      EXPECT_TRUE(
          std::equal(got.begin(), got.begin() + static_cast<ptrdiff_t>(size), content.begin()));
      Result<size_t> w = engine.Write(out.file(), mem.At(0), size, 0);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      ASSERT_EQ(*w, size);
      const std::vector<unsigned char> written = ReadFileOrDie(out_path);
      EXPECT_TRUE(std::equal(written.begin(), written.begin() + static_cast<ptrdiff_t>(size),
                             content.begin()));
    }
    EXPECT_GT(gpu_.Calls(GpuOp::kStreamWriteValue32), 0u);
    EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 0u);
  }
  EXPECT_EQ(gpu_.PinnedHostBytes(), pinned) << "a lane's word outlived its pool";
}

}  // namespace
}  // namespace hipfile::engine
