// AsyncExecutor on the CPU runtime: stream order, binding time of arguments, progress across
// streams while one is blocked, parallelism, and teardown with work in flight.
#include "core/async/async_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <vector>

#include "fakes/gate.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {
namespace {

using namespace std::chrono_literals;

class AsyncExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_ = runtime::CreateCpuRuntime();
    executor_ = std::make_unique<AsyncExecutor>(*gpu_, 4);
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
  // An operation whose I/O is `body(params)`; it returns what body returns.
  struct Slot {
    size_t size = 4096;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
    ssize_t bytes = -999;
  };
  std::unique_ptr<AsyncOp> MakeOp(Slot* slot, unsigned fixed,
                                  std::function<ssize_t(const AsyncParams&)> body) {
    auto op = std::make_unique<AsyncOp>();
    op->size_p = &slot->size;
    op->file_offset_p = &slot->file_offset;
    op->buffer_offset_p = &slot->buffer_offset;
    op->bytes_p = &slot->bytes;
    op->fixed_flags = fixed;
    op->submitted = {slot->size, slot->file_offset, slot->buffer_offset};
    op->run = std::move(body);
    return op;
  }

  std::unique_ptr<runtime::GpuRuntime> gpu_;
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

}  // namespace
}  // namespace hipfile::core
