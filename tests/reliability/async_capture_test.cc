// SPDX-License-Identifier: MIT
// Stream-ordered operations on a stream being captured into a graph (docs/async.md, "Streams
// being captured"): refused at submission with hipErrorStreamCaptureUnsupported, nothing queued
// on the stream, no file I/O, nothing counted, and the stream, its neighbours and the driver
// unharmed. The CPU runtime has no graphs: FaultRuntime::SetCapturing answers for a stream as
// CUDA does between cuStreamBeginCapture and cuStreamEndCapture (the CUDA runtime's own answer
// is tested on the GPU: unit_cuda_runtime_tests).
#include <gtest/gtest.h>

#include <vector>

#include "core/config.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kFile = 64 * 1024;

// What a stream-ordered submission queues on its stream or does to the file, whichever way it
// would have gone.
constexpr GpuOp kQueuing[] = {GpuOp::kLaunchHostFunc,     GpuOp::kStreamWaitValue32,
                              GpuOp::kStreamWriteValue32, GpuOp::kMemcpyAsync,
                              GpuOp::kCopyTableAsync,     GpuOp::kEventRecord};
constexpr SysOp kFileIo[] = {SysOp::kPread, SysOp::kPreadCached, SysOp::kPwrite, SysOp::kRingRead,
                             SysOp::kRingWrite};

class AsyncCaptureTest : public IoPathTest {
 protected:
  AsyncCaptureTest() { fh_ = OpenFile("capture.dat", kFile); }

  // A fresh driver with every way decided at submission on (the defaults; the fixture's is the
  // queued way alone), the file registered with it.
  void TakeDefaults() {
    Config config = ParseConfig(sys_);
    config.page_cache_pin_ahead = 0;
    ReplaceDriver(config);
    fh_ = Register(path_);
  }
  // One stream-ordered read of the whole file on `stream`, waited for and checked.
  void ExpectReadOn(runtime::Stream stream) {
    FillDevice(std::vector<unsigned char>(kFile, 0));
    AsyncSlot slot{kFile, 0, 0, 12345};
    ASSERT_TRUE(SubmitSlotOn(stream, fh_, dev_, &slot).ok());
    ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(kFile));
    EXPECT_EQ(DeviceBytes(kFile), testing::PatternBytes(kFile));
  }

  // Calls that would have queued work or moved bytes, from now on.
  void Forget() {
    gpu_.Reset();
    sys_.Reset();
  }
  void ExpectNothingQueuedOrMoved() {
    for (const GpuOp op : kQueuing) {
      EXPECT_EQ(gpu_.Calls(op), 0u) << "runtime call " << static_cast<size_t>(op);
    }
    for (const SysOp op : kFileIo) {
      EXPECT_EQ(sys_.Calls(op), 0u) << "file call " << static_cast<size_t>(op);
    }
    const hipFileExtAsyncWayStats_t ways = AsyncWays();
    for (const uint64_t n : ways.read_ops) EXPECT_EQ(n, 0u);
    for (const uint64_t n : ways.write_ops) EXPECT_EQ(n, 0u);
  }

  void RefusedAndNothingQueued();

  void* fh_ = nullptr;
};

TEST_F(AsyncCaptureTest, ReadsAndWritesOnACapturingStreamAreRefusedAndNothingIsQueued) {
  for (const bool defaults : {false, true}) {
    SCOPED_TRACE(defaults ? "every way decided at submission on" : "the queued way alone");
    if (defaults) TakeDefaults();
    RefusedAndNothingQueued();
  }
}

void AsyncCaptureTest::RefusedAndNothingQueued() {
  const std::vector<unsigned char> before(kFile, 0x5a);
  FillDevice(before);
  const runtime::Stream stream = Stream();
  Forget();
  gpu_.SetCapturing(stream);
  for (const IoDirection direction : {IoDirection::kRead, IoDirection::kWrite}) {
    for (const size_t size : {size_t{4096}, kFile}) {
      AsyncSlot slot{size, 0, 0, 12345};
      const Status s = SubmitSlot(fh_, &slot, direction);
      EXPECT_TRUE(s.IsGpu(hipErrorStreamCaptureUnsupported)) << s.ToString();
      EXPECT_EQ(slot.bytes, 12345) << "*bytes_p of a refused operation is left as it was";
    }
  }
  EXPECT_GE(gpu_.Calls(GpuOp::kStreamIsCapturing), 4u);
  // Nothing else was asked of the stream: on CUDA the device question invalidated a capture.
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamGetDevice), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamGetFlags), 0u);
  ExpectNothingQueuedOrMoved();
  // The buffer and the file are as they were.
  EXPECT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(DeviceBytes(kFile), before);
  gpu_.Reset();
  ExpectReadOn(stream);
}

TEST_F(AsyncCaptureTest, OtherStreamsKeepWorkingAndTheStreamWorksOnceTheCaptureEnds) {
  TakeDefaults();
  runtime::Stream other = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&other, hipStreamNonBlocking), hipSuccess);
  const runtime::Stream captured = Stream();
  gpu_.SetCapturing(captured);
  AsyncSlot refused{kFile, 0, 0, 12345};
  EXPECT_TRUE(SubmitSlot(fh_, &refused).IsGpu(hipErrorStreamCaptureUnsupported));
  ExpectReadOn(other);  // another stream meanwhile
  gpu_.Reset();         // the capture ends: the same stream takes operations again
  ExpectReadOn(captured);
  EXPECT_EQ(gpu_.StreamDestroy(other), hipSuccess);
}

// CUDA answers an error for the legacy default stream while a blocking stream it would wait for
// is capturing; any error from the question refuses the operation with it.
TEST_F(AsyncCaptureTest, AnErrorFromTheQuestionRefusesTheOperation) {
  const runtime::Stream stream = Stream();
  for (const hipError_t error : {hipErrorStreamCaptureUnsupported, hipErrorInvalidHandle}) {
    Forget();
    gpu_.FailAlways(GpuOp::kStreamIsCapturing, error);
    AsyncSlot slot{4096, 0, 0, 12345};
    const Status s = SubmitSlot(fh_, &slot);
    EXPECT_TRUE(s.IsGpu(error)) << s.ToString();
    EXPECT_EQ(slot.bytes, 12345);
    ExpectNothingQueuedOrMoved();
  }
  gpu_.Reset();
  ExpectReadOn(stream);
}

TEST_F(AsyncCaptureTest, ACapturingStreamIsNotRegisteredUntilTheCaptureEnds) {
  const runtime::Stream stream = Stream();
  Forget();
  gpu_.SetCapturing(stream);
  const Status refused = driver_->RegisterStream(stream, HIPFILE_STREAM_FIXED_FILE_SIZE);
  EXPECT_TRUE(refused.IsGpu(hipErrorStreamCaptureUnsupported)) << refused.ToString();
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamGetDevice), 0u);
  // Not registered: deregistering it is refused as for any stream never registered.
  EXPECT_TRUE(driver_->DeregisterStream(stream).IsOp(hipFileInvalidValue));
  gpu_.Reset();
  ASSERT_TRUE(driver_->RegisterStream(stream, HIPFILE_STREAM_FIXED_FILE_SIZE).ok());
  ExpectReadOn(stream);
  EXPECT_TRUE(driver_->DeregisterStream(stream).ok());
}

}  // namespace
}  // namespace hipfile::core
