// SPDX-License-Identifier: MIT
// Stream-ordered operations on an idle stream (docs/async.md, "Operations on an idle stream";
// HIPFILE_ASYNC_RUN_IDLE_KB): a small one submitted to a stream with nothing left to run runs at
// once on the submitting thread, and every other one is queued on its stream as before. Through a
// core::Driver on FaultRuntime over the CPU runtime, whose streams order work as CUDA's do (a
// blocking stream's work waits for the legacy default stream's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "core/config.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kFile = 256 * 1024;
constexpr size_t kSmall = 4096;

// A host function holding a stream until released.
class Gate {
 public:
  static void Wait(void* gate) {
    auto* self = static_cast<Gate*>(gate);
    while (!self->open_.load(std::memory_order_acquire)) std::this_thread::yield();
  }
  void Open() { open_.store(true, std::memory_order_release); }

 private:
  std::atomic<bool> open_{false};
};

class AsyncRunAtOnceTest : public IoPathTest {
 protected:
  AsyncRunAtOnceTest() { Remake(64); }

  // A fresh driver that runs operations of at most `kb` KiB at once on idle streams.
  void Remake(unsigned kb) {
    Config config = ParseConfig(sys_);
    config.page_cache_pin_ahead = 0;
    config.async_run_idle_kb = kb;
    ReplaceDriver(config);
  }

  runtime::Stream NonBlocking() {
    if (non_blocking_ == nullptr) {
      EXPECT_EQ(gpu_.StreamCreate(&non_blocking_, hipStreamNonBlocking), hipSuccess);
    }
    return non_blocking_;
  }
  void TearDown() override {
    if (non_blocking_ != nullptr) {
      EXPECT_EQ(gpu_.StreamDestroy(non_blocking_), hipSuccess);
    }
  }

  using Slot = AsyncSlot;
  Status Submit(IoDirection direction, void* fh, Slot* slot, runtime::Stream stream) {
    return SubmitSlotOn(stream, fh, dev_, slot, direction);
  }
  size_t RanAtOnce() { return (*driver_->async_executor())->RanAtOnce(); }

  // The device buffer's first `size` bytes hold the file's from `offset`.
  void ExpectDeviceHoldsFile(off_t offset, size_t size) {
    const std::vector<unsigned char> file = testing::PatternBytes(kFile);
    const std::vector<unsigned char> got = DeviceBytes(size);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), file.begin() + offset))
        << "the device does not hold the file's bytes from " << offset;
  }

  runtime::Stream non_blocking_ = nullptr;
};

// A 4 KiB read on an idle stream is done when the call returns: its bytes are in device memory
// and *bytes_p is set before anything synchronizes, and nothing was queued on the stream.
TEST_P(AsyncRunAtOnceTest, SmallReadOnAnIdleStreamIsDoneWhenTheCallReturns) {
  void* fh = OpenFile("f", kFile);
  FillDevice(std::vector<unsigned char>(kSmall, 0xee));
  gpu_.Reset();
  Slot slot{kSmall, 8192, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slot, NonBlocking()).ok());
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kSmall));
  ExpectDeviceHoldsFile(8192, kSmall);
  EXPECT_EQ(RanAtOnce(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWriteValue32), 0u) << "something was queued on the stream";
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamWaitValue32), 0u);
  EXPECT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  EXPECT_EQ((*driver_->async_executor())->Outstanding(), 0u);
}

// A write likewise: the file holds the bytes when the call returns.
TEST_P(AsyncRunAtOnceTest, SmallWriteOnAnIdleStreamIsInTheFileWhenTheCallReturns) {
  void* fh = OpenFile("f", kFile);
  std::vector<unsigned char> bytes(kSmall);
  for (size_t i = 0; i < kSmall; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 3);
  FillDevice(bytes);
  Slot slot{kSmall, 4096, 0};
  ASSERT_TRUE(Submit(IoDirection::kWrite, fh, &slot, NonBlocking()).ok());
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kSmall));
  std::vector<unsigned char> file(kSmall);
  const int fd = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::pread(fd, file.data(), kSmall, 4096), static_cast<ssize_t>(kSmall));
  ::close(fd);
  EXPECT_EQ(file, bytes);
  EXPECT_EQ(RanAtOnce(), 1u);
}

// A stream with work left to run gets the operation queued behind it: nothing moves until the
// stream gets there. Once the stream is idle again, the next one runs at once.
TEST_P(AsyncRunAtOnceTest, AStreamWithWorkLeftQueuesTheOperation) {
  void* fh = OpenFile("f", kFile);
  FillDevice(std::vector<unsigned char>(kSmall, 0xee));
  Gate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(NonBlocking(), &Gate::Wait, &gate), hipSuccess);
  Slot slot{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slot, non_blocking_).ok());
  // The size may change until the stream gets there: it is bound then, not now.
  slot.size = 1000;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(slot.bytes, 0) << "the operation ran before its stream got there";  // 0 until done
  EXPECT_EQ(DeviceBytes(1)[0], 0xee);
  EXPECT_EQ(RanAtOnce(), 0u);
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  EXPECT_EQ(slot.bytes, 1000);
  ExpectDeviceHoldsFile(0, 1000);

  Slot next{kSmall, kSmall, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &next, non_blocking_).ok());
  EXPECT_EQ(next.bytes, static_cast<ssize_t>(kSmall));
  ExpectDeviceHoldsFile(kSmall, kSmall);
  EXPECT_EQ(RanAtOnce(), 1u);
}

// Operations larger than the limit are queued, idle stream or not; 0 turns running at once off.
TEST_P(AsyncRunAtOnceTest, OnlyOperationsUpToTheLimitRunAtOnce) {
  Remake(4);
  void* fh = OpenFile("f", kFile);
  Slot larger{kSmall + 1, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &larger, NonBlocking()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  EXPECT_EQ(larger.bytes, static_cast<ssize_t>(kSmall + 1));
  ExpectDeviceHoldsFile(0, kSmall + 1);
  EXPECT_EQ(RanAtOnce(), 0u);
  Slot limit{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &limit, non_blocking_).ok());
  EXPECT_EQ(limit.bytes, static_cast<ssize_t>(kSmall));
  EXPECT_EQ(RanAtOnce(), 1u);

  Remake(0);
  fh = Register(path_);
  Slot off{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &off, non_blocking_).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  EXPECT_EQ(off.bytes, static_cast<ssize_t>(kSmall));
  EXPECT_EQ(RanAtOnce(), 0u);
}

// A blocking stream's work waits for the legacy default stream's: with that one busy, an
// operation on an idle blocking stream is queued, and runs after it. A non-blocking stream does
// not wait for it, and runs its operation at once.
TEST_P(AsyncRunAtOnceTest, ABlockingStreamWaitsForTheLegacyDefaultStream) {
  void* fh = OpenFile("f", kFile);
  FillDevice(std::vector<unsigned char>(kSmall, 0xee));
  Gate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(nullptr, &Gate::Wait, &gate), hipSuccess);
  Slot blocking{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &blocking, Stream()).ok());  // flags 0
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(blocking.bytes, 0) << "ran before the legacy default stream's work";
  EXPECT_EQ(RanAtOnce(), 0u);
  Slot other{kSmall, kSmall, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &other, NonBlocking()).ok());
  EXPECT_EQ(other.bytes, static_cast<ssize_t>(kSmall));
  EXPECT_EQ(RanAtOnce(), 1u);
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(blocking.bytes, static_cast<ssize_t>(kSmall));
  ExpectDeviceHoldsFile(0, kSmall);
}

// The null stream's work waits for every blocking stream's, which no single query tells: its
// operations are always queued.
TEST_P(AsyncRunAtOnceTest, TheNullStreamIsAlwaysQueued) {
  void* fh = OpenFile("f", kFile);
  Slot slot{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slot, nullptr).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kSmall));
  EXPECT_EQ(RanAtOnce(), 0u);
}

// A stream the runtime cannot query (or whose flags it cannot say) is taken for a busy (or a
// blocking) one: the operation is queued, and completes as before.
TEST_P(AsyncRunAtOnceTest, RuntimeFailuresOnlyTurnItOff) {
  void* fh = OpenFile("f", kFile);
  gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorLaunchFailure);
  Slot slot{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &slot, NonBlocking()).ok());
  ASSERT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kSmall));
  EXPECT_EQ(RanAtOnce(), 0u);
  gpu_.Reset();
  Remake(64);  // the flags are asked once per stream
  fh = Register(path_);
  gpu_.FailAlways(GpuOp::kStreamGetFlags, hipErrorNotSupported);
  Gate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(nullptr, &Gate::Wait, &gate), hipSuccess);
  Slot unknown{kSmall, kSmall, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &unknown, non_blocking_).ok());
  EXPECT_EQ(RanAtOnce(), 0u) << "a stream of unknown flags ran while the legacy stream was busy";
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(non_blocking_), hipSuccess);
  ASSERT_EQ(gpu_.StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(unknown.bytes, static_cast<ssize_t>(kSmall));
  gpu_.Reset();
}

// What the transfer returns reaches *bytes_p as it would from the stream: a short count at the
// end of the file, and a failed read's error.
TEST_P(AsyncRunAtOnceTest, ShortCountsAndErrorsReachBytesP) {
  void* fh = OpenFile("f", kFile);
  Slot tail{kSmall, kFile - 100, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &tail, NonBlocking()).ok());
  EXPECT_EQ(tail.bytes, 100);
  sys_.FailNth(SysOp::kPread, 1, EIO);
  Slot failed{kSmall, 0, 0};
  ASSERT_TRUE(Submit(IoDirection::kRead, fh, &failed, non_blocking_).ok());
  EXPECT_EQ(failed.bytes, -EIO);
  sys_.Reset();
  EXPECT_EQ(RanAtOnce(), 2u);
  ExpectCleanRead(fh, kSmall);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncRunAtOnceTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
