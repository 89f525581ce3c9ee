// SPDX-License-Identifier: MIT
// AsyncExecutor on the CPU runtime: stream order, binding time of arguments, progress across
// streams while one is blocked, each thread's per-thread default stream, parallelism, teardown
// with work in flight, and channels recycled between streams.
#include "core/async/async_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "fakes/gate.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {
namespace {

// An operation's work that runs a function (the executor's `run` way only).
class FunctionWork final : public AsyncWork {
 public:
  explicit FunctionWork(std::function<ssize_t(const AsyncParams&)> body) : body_(std::move(body)) {}
  bool Write() const override { return false; }
  ssize_t Run(const AsyncParams& params) override { return body_(params); }

 private:
  std::function<ssize_t(const AsyncParams&)> body_;
};

using namespace std::chrono_literals;

class AsyncExecutorTest : public ::testing::Test {
 public:
  // What an operation reads (size, offsets) and where it puts its result.
  struct Slot {
    size_t size = 4096;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
    ssize_t bytes = -999;
  };

 protected:
  void SetUp() override {
    gpu_ = runtime::CreateCpuRuntime();
    executor_ = Create(4, AsyncExecutor::kMaxChannels);
  }
  void TearDown() override {
    executor_.reset();
    for (runtime::Stream s : streams_) EXPECT_EQ(gpu_->StreamDestroy(s), hipSuccess);
    gpu_.reset();
  }
  runtime::Stream NewStream() {
    runtime::Stream s = nullptr;
    EXPECT_EQ(gpu_->StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
    streams_.push_back(s);
    return s;
  }
  // An executor whose slab holds `channels` channels, in place of the default one.
  void UseChannels(size_t channels) { executor_ = Create(4, channels); }
  std::unique_ptr<AsyncExecutor> Create(unsigned workers, size_t channels) {
    executor_.reset();  // before the pool it runs on
    pool_ = std::make_unique<engine::WorkerPool>(platform::RealSys(), workers);
    auto made = AsyncExecutor::Create(platform::RealSys(), *gpu_, *pool_, channels);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }
  // An operation whose I/O is `body(params)`; it returns what body returns.
  std::unique_ptr<AsyncOp> MakeOp(Slot* slot, unsigned fixed,
                                  std::function<ssize_t(const AsyncParams&)> body) {
    auto op = std::make_unique<AsyncOp>();
    op->size_p = &slot->size;
    op->file_offset_p = &slot->file_offset;
    op->buffer_offset_p = &slot->buffer_offset;
    op->bytes_p = &slot->bytes;
    op->fixed_flags = fixed;
    op->submitted = {slot->size, slot->file_offset, slot->buffer_offset};
    op->work = std::make_unique<FunctionWork>(std::move(body));
    return op;
  }

  std::unique_ptr<runtime::GpuRuntime> gpu_;
  std::unique_ptr<engine::WorkerPool> pool_;
  std::unique_ptr<AsyncExecutor> executor_;
  std::vector<runtime::Stream> streams_;
};

struct Trace {
  std::mutex mutex;
  std::vector<int> events;
  void Add(int e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(e);
  }
};

void AddToTrace(void* arg) {
  auto* pair = static_cast<std::pair<Trace*, int>*>(arg);
  pair->first->Add(pair->second);
}

TEST_F(AsyncExecutorTest, OperationRunsBetweenEarlierAndLaterStreamWork) {
  runtime::Stream s = NewStream();
  Trace trace;
  std::pair<Trace*, int> before{&trace, 1}, after{&trace, 3};
  Slot slot;
  ASSERT_EQ(gpu_->LaunchHostFunc(s, AddToTrace, &before), hipSuccess);
  ASSERT_TRUE(executor_
                  ->Submit(s, MakeOp(&slot, 0,
                                     [&](const AsyncParams& p) {
                                       trace.Add(2);
                                       return static_cast<ssize_t>(p.size);
                                     }))
                  .ok());
  ASSERT_EQ(gpu_->LaunchHostFunc(s, AddToTrace, &after), hipSuccess);
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(trace.events, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(slot.bytes, 4096);
  // The worker counts the operation done just after releasing the stream, so wait for it.
  executor_->WaitIdle();
  EXPECT_EQ(executor_->Outstanding(), 0u);
}

TEST_F(AsyncExecutorTest, ManyOperationsOnOneStreamKeepSubmissionOrder) {
  runtime::Stream s = NewStream();
  Trace trace;
  std::vector<Slot> slots(200);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(executor_
                    ->Submit(s, MakeOp(&slots[i], 0,
                                       [&trace, i](const AsyncParams&) {
                                         trace.Add(i);
                                         return ssize_t{0};
                                       }))
                    .ok());
  }
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  ASSERT_EQ(trace.events.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(trace.events[i], i);
}

void ShrinkSize(void* arg) { static_cast<size_t*>(arg)[0] = 100; }

TEST_F(AsyncExecutorTest, UnfixedSizeIsReadWhenTheOperationRuns) {
  runtime::Stream s = NewStream();
  Slot slot;
  // Hold the stream until the op is submitted, so the submission reads the size untouched.
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(s, testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_EQ(gpu_->LaunchHostFunc(s, ShrinkSize, &slot.size), hipSuccess);  // runs before the op
  ASSERT_TRUE(
      executor_->Submit(s, MakeOp(&slot, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
          .ok());
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(slot.bytes, 100);
}

TEST_F(AsyncExecutorTest, FixedSizeIgnoresLaterChanges) {
  runtime::Stream s = NewStream();
  Slot slot;
  // Keep the stream busy until the size is changed, so the change lands before the op runs.
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(s, testing::StreamGate::Wait, &gate), hipSuccess);
  ASSERT_TRUE(executor_
                  ->Submit(s, MakeOp(&slot, HIPFILE_STREAM_FIXED_FILE_SIZE,
                                     [](const AsyncParams& p) { return ssize_t(p.size); }))
                  .ok());
  slot.size = 100;
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(slot.bytes, 4096);
}

TEST_F(AsyncExecutorTest, LargerSizeThanSubmittedIsRefusedAtExecution) {
  runtime::Stream s = NewStream();
  Slot slot;
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(s, testing::StreamGate::Wait, &gate), hipSuccess);
  bool ran = false;
  ASSERT_TRUE(executor_
                  ->Submit(s, MakeOp(&slot, 0,
                                     [&ran](const AsyncParams& p) {
                                       ran = true;
                                       return ssize_t(p.size);
                                     }))
                  .ok());
  slot.size = 8192;
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(slot.bytes, -static_cast<ssize_t>(hipFileInvalidValue));
  EXPECT_FALSE(ran);
}

TEST_F(AsyncExecutorTest, StreamsProgressWhileAnotherIsBlockedInAHostFunction) {
  runtime::Stream blocked = NewStream();
  runtime::Stream free_stream = NewStream();
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(blocked, testing::StreamGate::Wait, &gate), hipSuccess);
  Slot blocked_slot, free_slot;
  ASSERT_TRUE(executor_
                  ->Submit(blocked, MakeOp(&blocked_slot, 0,
                                           [](const AsyncParams& p) { return ssize_t(p.size); }))
                  .ok());
  ASSERT_TRUE(
      executor_
          ->Submit(free_stream,
                   MakeOp(&free_slot, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
          .ok());
  ASSERT_EQ(gpu_->StreamSynchronize(free_stream), hipSuccess);
  EXPECT_EQ(free_slot.bytes, 4096);
  EXPECT_EQ(blocked_slot.bytes, -999);  // not run: its stream has not got there
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(blocked), hipSuccess);
  EXPECT_EQ(blocked_slot.bytes, 4096);
}

TEST_F(AsyncExecutorTest, OperationsOfDifferentStreamsRunAtTheSameTime) {
  // Each operation waits until all four are running: only concurrent execution completes.
  constexpr int kStreams = 4;
  std::mutex mutex;
  std::condition_variable cv;
  int running = 0;
  std::atomic<int> timed_out{0};
  auto body = [&](const AsyncParams&) {
    std::unique_lock<std::mutex> lock(mutex);
    ++running;
    cv.notify_all();
    if (!cv.wait_for(lock, 10s, [&] { return running >= kStreams; })) ++timed_out;
    return ssize_t{1};
  };
  std::vector<Slot> slots(kStreams);
  std::vector<runtime::Stream> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(NewStream());
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_TRUE(executor_->Submit(streams[i], MakeOp(&slots[i], 0, body)).ok());
  }
  for (runtime::Stream s : streams) ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(timed_out.load(), 0);
  for (const Slot& slot : slots) EXPECT_EQ(slot.bytes, 1);
}

TEST_F(AsyncExecutorTest, DefaultStreamCarriesOperations) {
  Slot slot;
  ASSERT_TRUE(
      executor_
          ->Submit(nullptr, MakeOp(&slot, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
          .ok());
  ASSERT_EQ(gpu_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(slot.bytes, 4096);
}

// hipStreamPerThread is each thread's own default stream: an operation on it waits for its
// thread's stream only, and another thread's operation on it runs meanwhile. (With one channel for
// the handle, the second thread's stream reaching its number released the first thread's
// operation before its stream got there.)
TEST_F(AsyncExecutorTest, PerThreadStreamsOfTwoThreadsAreTwoStreams) {
  const runtime::Stream own = hipStreamPerThread;
  auto whole = [](const AsyncParams& p) { return ssize_t(p.size); };
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(own, testing::StreamGate::Wait, &gate), hipSuccess);
  Slot held_slot, other_slot;
  ASSERT_TRUE(executor_->Submit(own, MakeOp(&held_slot, 0, whole)).ok());
  std::thread other([&] {
    EXPECT_TRUE(executor_->Submit(own, MakeOp(&other_slot, 0, whole)).ok());
    EXPECT_EQ(gpu_->StreamSynchronize(own), hipSuccess);
  });
  other.join();
  EXPECT_EQ(other_slot.bytes, 4096);
  std::this_thread::sleep_for(20ms);  // an operation released too early would run meanwhile
  EXPECT_EQ(held_slot.bytes, -999);   // not run: this thread's stream has not got there
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(own), hipSuccess);
  EXPECT_EQ(held_slot.bytes, 4096);
}

// The null stream and hipStreamPerThread name a stream per device: the current device's. A
// thread's on device 1 is not its stream on device 0, and holding one back holds up no operation
// of the other. (With one channel for both, device 1's stream reaching its number released
// device 0's operation before its stream got there.)
TEST_F(AsyncExecutorTest, DefaultStreamsAreOnePerDevice) {
  runtime::CpuRuntimeOptions two_devices;
  two_devices.devices = 2;
  executor_.reset();
  gpu_ = runtime::CreateCpuRuntime(two_devices);
  executor_ = Create(4, AsyncExecutor::kMaxChannels);
  auto whole = [](const AsyncParams& p) { return ssize_t(p.size); };
  for (const runtime::Stream own : {runtime::Stream{nullptr}, hipStreamPerThread}) {
    SCOPED_TRACE(own == nullptr ? "the null stream" : "hipStreamPerThread");
    ASSERT_EQ(gpu_->SetDevice(0), hipSuccess);
    testing::StreamGate gate;
    ASSERT_EQ(gpu_->LaunchHostFunc(own, testing::StreamGate::Wait, &gate), hipSuccess);
    Slot held_slot, other_slot;
    ASSERT_TRUE(executor_->Submit(own, MakeOp(&held_slot, 0, whole)).ok());
    ASSERT_EQ(gpu_->SetDevice(1), hipSuccess);
    ASSERT_TRUE(executor_->Submit(own, MakeOp(&other_slot, 0, whole)).ok());
    ASSERT_EQ(gpu_->StreamSynchronize(own), hipSuccess);
    EXPECT_EQ(other_slot.bytes, 4096);
    std::this_thread::sleep_for(20ms);  // an operation released too early would run meanwhile
    EXPECT_EQ(held_slot.bytes, -999);   // not run: device 0's stream has not got there
    ASSERT_EQ(gpu_->SetDevice(0), hipSuccess);
    gate.Open();
    ASSERT_EQ(gpu_->StreamSynchronize(own), hipSuccess);
    EXPECT_EQ(held_slot.bytes, 4096);
  }
}

// Registering hipStreamPerThread registers the calling thread's stream, as for any other stream.
TEST_F(AsyncExecutorTest, RegisteringThePerThreadStreamRegistersTheCallingThreadsOnly) {
  const auto fixed = unsigned{HIPFILE_STREAM_FIXED_BUF_OFFSET};
  ASSERT_TRUE(executor_->RegisterStream(hipStreamPerThread, fixed).ok());
  EXPECT_EQ(executor_->StreamFlags(hipStreamPerThread), fixed);
  std::thread other([&] {
    EXPECT_EQ(executor_->StreamFlags(hipStreamPerThread), 0u);
    EXPECT_TRUE(executor_->DeregisterStream(hipStreamPerThread).IsOp(hipFileInvalidValue));
    EXPECT_TRUE(executor_->RegisterStream(hipStreamPerThread, 0).ok());
    EXPECT_TRUE(executor_->DeregisterStream(hipStreamPerThread).ok());
  });
  other.join();
  EXPECT_EQ(executor_->StreamFlags(hipStreamPerThread), fixed);
  EXPECT_TRUE(executor_->DeregisterStream(hipStreamPerThread).ok());
}

TEST_F(AsyncExecutorTest, RegistrationRules) {
  runtime::Stream s = NewStream();
  EXPECT_EQ(executor_->StreamFlags(s), 0u);
  EXPECT_TRUE(executor_->RegisterStream(s, HIPFILE_STREAM_FIXED_BUF_OFFSET).ok());
  EXPECT_EQ(executor_->StreamFlags(s), unsigned{HIPFILE_STREAM_FIXED_BUF_OFFSET});
  EXPECT_TRUE(executor_->RegisterStream(s, 0).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(executor_->DeregisterStream(s).ok());
  EXPECT_TRUE(executor_->DeregisterStream(s).IsOp(hipFileInvalidValue));
  EXPECT_EQ(executor_->StreamFlags(s), 0u);
}

TEST_F(AsyncExecutorTest, DeregisteringWithWorkInFlightNeitherBlocksNorDropsIt) {
  runtime::Stream s = NewStream();
  ASSERT_TRUE(executor_->RegisterStream(s, 0).ok());
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(s, testing::StreamGate::Wait, &gate), hipSuccess);
  Slot slot;
  ASSERT_TRUE(
      executor_->Submit(s, MakeOp(&slot, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
          .ok());
  EXPECT_TRUE(executor_->DeregisterStream(s).ok());  // returns while the op waits
  EXPECT_EQ(executor_->Outstanding(), 1u);
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(slot.bytes, 4096);
}

TEST_F(AsyncExecutorTest, DestroyingTheExecutorWaitsForWorkInFlight) {
  runtime::Stream s = NewStream();
  std::vector<Slot> slots(20);
  for (Slot& slot : slots) {
    ASSERT_TRUE(executor_
                    ->Submit(s, MakeOp(&slot, 0,
                                       [](const AsyncParams& p) {
                                         std::this_thread::sleep_for(1ms);
                                         return ssize_t(p.size);
                                       }))
                    .ok());
  }
  executor_.reset();
  for (const Slot& slot : slots) EXPECT_EQ(slot.bytes, 4096);
}

// What the recycling tests move: operation `op` of stream `stream` fills its destination with
// bytes that name both, so a byte landing in another operation's place shows.
unsigned char PatternByte(int stream, int op, size_t i) {
  return static_cast<unsigned char>(stream * 31 + op * 7 + i);
}

// One stream-ordered "read" into `dst`: what the recycling tests submit.
struct Copy {
  std::vector<unsigned char> dst = std::vector<unsigned char>(4096, 0);
};

std::function<ssize_t(const AsyncParams&)> CopyBody(Copy* copy, int stream, int op) {
  return [copy, stream, op](const AsyncParams& p) {
    for (size_t i = 0; i < p.size; ++i) copy->dst[i] = PatternByte(stream, op, i);
    return static_cast<ssize_t>(p.size);
  };
}

bool CopyArrived(const Copy& copy, int stream, int op) {
  for (size_t i = 0; i < copy.dst.size(); ++i) {
    if (copy.dst[i] != PatternByte(stream, op, i)) return false;
  }
  return true;
}

// An operation counts as completed a moment after its stream was released: waits up to 10 s for
// the count to settle at `n`.
bool OutstandingBecomes(AsyncExecutor& executor, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (executor.Outstanding() != n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  return executor.Outstanding() == n;
}

// Creates a stream, runs `ops` copies on it, checks their bytes and destroys it: a program that
// makes a stream per request.
void OneStreamPerRequest(runtime::GpuRuntime& gpu, AsyncExecutor& executor, int id, int ops) {
  runtime::Stream s = nullptr;
  ASSERT_EQ(gpu.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  std::vector<AsyncExecutorTest::Slot> slots(static_cast<size_t>(ops));
  std::vector<Copy> copies(static_cast<size_t>(ops));
  for (int op = 0; op < ops; ++op) {
    auto async_op = std::make_unique<AsyncOp>();
    AsyncExecutorTest::Slot& slot = slots[static_cast<size_t>(op)];
    async_op->size_p = &slot.size;
    async_op->file_offset_p = &slot.file_offset;
    async_op->buffer_offset_p = &slot.buffer_offset;
    async_op->bytes_p = &slot.bytes;
    async_op->submitted = {slot.size, slot.file_offset, slot.buffer_offset};
    async_op->work =
        std::make_unique<FunctionWork>(CopyBody(&copies[static_cast<size_t>(op)], id, op));
    const Status st = executor.Submit(s, std::move(async_op));
    ASSERT_TRUE(st.ok()) << "stream " << id << " op " << op;
  }
  ASSERT_EQ(gpu.StreamSynchronize(s), hipSuccess);
  for (int op = 0; op < ops; ++op) {
    EXPECT_EQ(slots[static_cast<size_t>(op)].bytes, 4096) << "stream " << id << " op " << op;
    EXPECT_TRUE(CopyArrived(copies[static_cast<size_t>(op)], id, op))
        << "stream " << id << " op " << op;
  }
  ASSERT_EQ(gpu.StreamDestroy(s), hipSuccess);
}

// Regression: channels were handed out once, so stream kMaxChannels + 1 of a program that makes
// a stream per request got hipFileInternalError, and so did every stream after it.
TEST_F(AsyncExecutorTest, MoreStreamsThanTheDefaultSlabOneAfterAnother) {
  const int streams = static_cast<int>(AsyncExecutor::kMaxChannels) + 16;
  for (int i = 0; i < streams; ++i) {
    OneStreamPerRequest(*gpu_, *executor_, i, 1);
    if (HasFatalFailure() || HasFailure()) return;
  }
  EXPECT_EQ(executor_->ChannelsRecycled(), 16u);
}

TEST_F(AsyncExecutorTest, MoreStreamsThanChannelsOneAfterAnother) {
  UseChannels(8);
  for (int i = 0; i < 300; ++i) {
    OneStreamPerRequest(*gpu_, *executor_, i, 3);
    if (HasFatalFailure() || HasFailure()) return;
  }
  EXPECT_EQ(executor_->ChannelsRecycled(), 300u - 8u);  // one per stream past the slab
  executor_->WaitIdle();
}

TEST_F(AsyncExecutorTest, StreamsTakeTurnsOnOneChannel) {
  // The channel moves back and forth; each stream continues the slot's sequence numbers.
  UseChannels(1);
  runtime::Stream a = NewStream();
  runtime::Stream b = NewStream();
  for (int round = 0; round < 50; ++round) {
    for (runtime::Stream s : {a, b}) {
      Slot slot;
      Copy copy;
      const int id = s == a ? 0 : 1;
      ASSERT_TRUE(executor_->Submit(s, MakeOp(&slot, 0, CopyBody(&copy, id, round))).ok());
      ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
      EXPECT_EQ(slot.bytes, 4096);
      EXPECT_TRUE(CopyArrived(copy, id, round));
    }
  }
  EXPECT_EQ(executor_->ChannelsRecycled(), 99u);  // every submission but the first
}

TEST_F(AsyncExecutorTest, AChannelWithAnOperationInFlightIsNotTaken) {
  UseChannels(2);
  // `held` is the least recently used stream, its operation waiting behind a host function.
  runtime::Stream held = NewStream();
  testing::StreamGate held_gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(held, testing::StreamGate::Wait, &held_gate), hipSuccess);
  Slot held_slot;
  Copy held_copy;
  ASSERT_TRUE(executor_->Submit(held, MakeOp(&held_slot, 0, CopyBody(&held_copy, 0, 0))).ok());
  runtime::Stream finished = NewStream();
  Slot finished_slot;
  Copy finished_copy;
  ASSERT_TRUE(
      executor_->Submit(finished, MakeOp(&finished_slot, 0, CopyBody(&finished_copy, 1, 0))).ok());
  ASSERT_EQ(gpu_->StreamSynchronize(finished), hipSuccess);

  // The slab is used up: a new stream takes the idle channel, not the older busy one.
  runtime::Stream next = NewStream();
  Slot next_slot;
  Copy next_copy;
  ASSERT_TRUE(executor_->Submit(next, MakeOp(&next_slot, 0, CopyBody(&next_copy, 2, 0))).ok());
  ASSERT_EQ(gpu_->StreamSynchronize(next), hipSuccess);
  EXPECT_EQ(next_slot.bytes, 4096);
  EXPECT_TRUE(CopyArrived(next_copy, 2, 0));
  EXPECT_EQ(executor_->ChannelsRecycled(), 1u);
  EXPECT_EQ(held_slot.bytes, -999) << "its stream has not got there";

  // With both channels busy, another stream is refused, and nothing of it runs.
  runtime::Stream busy = NewStream();
  testing::StreamGate busy_gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(busy, testing::StreamGate::Wait, &busy_gate), hipSuccess);
  Slot busy_slot;
  Copy busy_copy;
  ASSERT_TRUE(executor_->Submit(busy, MakeOp(&busy_slot, 0, CopyBody(&busy_copy, 3, 0))).ok());
  runtime::Stream refused = NewStream();
  Slot refused_slot;
  Copy refused_copy;
  EXPECT_TRUE(executor_->Submit(refused, MakeOp(&refused_slot, 0, CopyBody(&refused_copy, 4, 0)))
                  .IsOp(hipFileInternalError));
  EXPECT_TRUE(OutstandingBecomes(*executor_, 2)) << "the held and busy operations only";

  // The held operation finishes on its own channel; then that channel serves the refused stream.
  held_gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(held), hipSuccess);
  EXPECT_EQ(held_slot.bytes, 4096);
  EXPECT_TRUE(CopyArrived(held_copy, 0, 0));
  ASSERT_TRUE(
      executor_->Submit(refused, MakeOp(&refused_slot, 0, CopyBody(&refused_copy, 4, 1))).ok());
  ASSERT_EQ(gpu_->StreamSynchronize(refused), hipSuccess);
  EXPECT_EQ(refused_slot.bytes, 4096);
  EXPECT_TRUE(CopyArrived(refused_copy, 4, 1));
  busy_gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(busy), hipSuccess);
  EXPECT_EQ(busy_slot.bytes, 4096);
  EXPECT_TRUE(CopyArrived(busy_copy, 3, 0));
  EXPECT_EQ(executor_->ChannelsRecycled(), 3u);
}

TEST_F(AsyncExecutorTest, OperationsQueuedBehindTheOldStreamsLastOneKeepTheirOrder) {
  // Several operations in flight on the stream whose channel is wanted: none of its channel is
  // taken until the last one released the stream, and they run in order.
  UseChannels(1);
  runtime::Stream old_stream = NewStream();
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(old_stream, testing::StreamGate::Wait, &gate), hipSuccess);
  Trace trace;
  std::vector<Slot> slots(5);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(executor_
                    ->Submit(old_stream, MakeOp(&slots[i], 0,
                                                [&trace, i](const AsyncParams& p) {
                                                  trace.Add(i);
                                                  return ssize_t(p.size);
                                                }))
                    .ok());
  }
  runtime::Stream new_stream = NewStream();
  Slot refused;
  EXPECT_TRUE(
      executor_
          ->Submit(new_stream, MakeOp(&refused, 0, [](const AsyncParams&) { return ssize_t{0}; }))
          .IsOp(hipFileInternalError));
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(old_stream), hipSuccess);
  EXPECT_EQ(trace.events, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const Slot& slot : slots) EXPECT_EQ(slot.bytes, 4096);
  Slot taken;
  ASSERT_TRUE(executor_
                  ->Submit(new_stream,
                           MakeOp(&taken, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
                  .ok());
  ASSERT_EQ(gpu_->StreamSynchronize(new_stream), hipSuccess);
  EXPECT_EQ(taken.bytes, 4096);
  // The old stream, used again, gets a channel like any new stream.
  Slot again;
  ASSERT_TRUE(executor_
                  ->Submit(old_stream,
                           MakeOp(&again, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
                  .ok());
  ASSERT_EQ(gpu_->StreamSynchronize(old_stream), hipSuccess);
  EXPECT_EQ(again.bytes, 4096);
  EXPECT_EQ(executor_->ChannelsRecycled(), 2u);
}

TEST_F(AsyncExecutorTest, ARegisteredStreamKeepsItsChannelWhileAnotherIsIdle) {
  UseChannels(2);
  auto run = [&](runtime::Stream s) {
    Slot slot;
    ASSERT_TRUE(
        executor_->Submit(s, MakeOp(&slot, 0, [](const AsyncParams& p) { return ssize_t(p.size); }))
            .ok());
    ASSERT_EQ(gpu_->StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(slot.bytes, 4096);
  };
  runtime::Stream registered = NewStream();
  ASSERT_TRUE(executor_->RegisterStream(registered, 0).ok());
  run(registered);  // the least recently used channel from here on
  runtime::Stream unregistered = NewStream();
  run(unregistered);

  runtime::Stream held = NewStream();
  testing::StreamGate gate;
  ASSERT_EQ(gpu_->LaunchHostFunc(held, testing::StreamGate::Wait, &gate), hipSuccess);
  Slot held_slot;
  ASSERT_TRUE(executor_
                  ->Submit(held, MakeOp(&held_slot, 0,
                                        [](const AsyncParams& p) { return ssize_t(p.size); }))
                  .ok());
  EXPECT_EQ(executor_->ChannelsRecycled(), 1u);
  run(registered);
  EXPECT_EQ(executor_->ChannelsRecycled(), 1u) << "the registered stream lost its channel";

  // With no other channel idle, a registered stream's is taken too.
  run(unregistered);
  EXPECT_EQ(executor_->ChannelsRecycled(), 2u);
  run(registered);
  EXPECT_EQ(executor_->ChannelsRecycled(), 3u);
  gate.Open();
  ASSERT_EQ(gpu_->StreamSynchronize(held), hipSuccess);
  EXPECT_EQ(held_slot.bytes, 4096);
  EXPECT_TRUE(executor_->DeregisterStream(registered).ok());
}

TEST_F(AsyncExecutorTest, StreamsFromSeveralThreadsWhileChannelsAreRecycled) {
  // As many channels as threads: a thread's stream is idle once synchronized, so every new stream
  // finds an idle channel, though which one depends on how the threads interleave.
  constexpr int kThreads = 4;
  constexpr int kStreamsPerThread = 100;
  UseChannels(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kStreamsPerThread; ++i) {
        OneStreamPerRequest(*gpu_, *executor_, t * kStreamsPerThread + i, 3);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Every stream after the first kThreads takes a recycled channel; a stream idle between its own
  // requests may lose its channel to another thread's and take one back: more recycling, not less.
  EXPECT_GE(executor_->ChannelsRecycled(), size_t{kThreads * (kStreamsPerThread - 1)});
  executor_->WaitIdle();
}

}  // namespace
}  // namespace hipfile::core
