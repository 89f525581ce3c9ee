// SPDX-License-Identifier: MIT
// Stream-ordered I/O and CUDA graphs, through the C API on a real GPU (skipped on the CPU
// runtime, which has no graphs; tests/reliability/async_capture_test.cc covers the refusal
// there): a hipFileReadAsync on a stream being captured is refused with
// hipErrorStreamCaptureUnsupported and leaves the capture whole; and the library's own work
// (windows pinned, scratch allocated, copies, threads of its own) while another thread captures
// in CUDA's global mode, PyTorch's default, neither fails nor invalidates that capture.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/process_runtime.h"
#include "fakes/cuda_capture.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

constexpr size_t kFile = 8 << 20;

class StreamCaptureTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (std::strcmp(ProcessRuntime().Name(), "cuda") != 0) {
      GTEST_SKIP() << "needs CUDA graphs; the runtime is " << ProcessRuntime().Name();
    }
    ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
    ASSERT_TRUE(capture_.ok()) << "libcuda.so.1 lacks the capture calls";
    fh_ = Register(OpenFile("capture.dat", kFile, O_RDWR));
    dev_ = DeviceAlloc(kFile);
  }
  void TearDown() override {
    if (fh_ != nullptr) hipFileHandleDeregister(fh_);
    ApiTest::TearDown();
  }
  // Reads the whole file on `stream` and checks the bytes.
  void ExpectReadOn(hipStream_t stream) {
    ASSERT_EQ(hipMemset(dev_, 0, kFile), hipSuccess);
    size_t size = kFile;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = -1;
    ASSERT_TRUE(IsSuccess(
        hipFileReadAsync(fh_, dev_, &size, &file_offset, &buffer_offset, &bytes, stream)));
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(bytes, static_cast<ssize_t>(kFile));
    EXPECT_EQ(DeviceBytes(dev_, kFile), testing::PatternBytes(kFile));
  }

  testing::CudaCapture capture_;
  hipFileHandle_t fh_ = nullptr;
  void* dev_ = nullptr;
};

TEST_F(StreamCaptureTest, AReadOnACapturingStreamIsRefusedAndTheCaptureStaysWhole) {
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(capture_.Begin(stream), 0);
  for (const size_t size_asked : {size_t{4096}, kFile}) {
    size_t size = size_asked;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 12345;
    const hipFileError_t e =
        hipFileReadAsync(fh_, dev_, &size, &file_offset, &buffer_offset, &bytes, stream);
    EXPECT_EQ(e.err, hipFileHipDriverError);
    EXPECT_EQ(e.hip_drv_err, hipErrorStreamCaptureUnsupported);
    EXPECT_EQ(bytes, 12345);
  }
  const hipFileError_t registered = hipFileStreamRegister(stream, 0);
  EXPECT_EQ(capture_.Finish(stream), 0) << "the refusals invalidated the capture";
  EXPECT_EQ(registered.err, hipFileHipDriverError);
  EXPECT_EQ(registered.hip_drv_err, hipErrorStreamCaptureUnsupported);
  ExpectReadOn(stream);  // the capture over, the stream takes reads again
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

TEST_F(StreamCaptureTest, TheLibrarysWorkDoesNotDisturbAGlobalCaptureElsewhere) {
  hipStream_t captured = nullptr, other = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&captured, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&other, hipStreamNonBlocking), hipSuccess);
  void* scratch = DeviceAlloc(4096);
  void* second = DeviceAlloc(kFile);
  ASSERT_EQ(hipMemset(dev_, 0, kFile), hipSuccess);
  // Capture on this thread, global mode; the library works on another thread meanwhile: a
  // stream-ordered read on another stream (its workers, poller and staging blocks), then
  // synchronous reads and a write (windows pinned, copies). The worker calls nothing but the
  // library: a global capture refuses a thread of the program in global mode most calls of its
  // own (hipStreamSynchronize included), so it waits for *bytes_p instead.
  ASSERT_EQ(capture_.Begin(captured), 0);
  const hipError_t recorded = hipMemsetAsync(scratch, 1, 4096, captured);
  std::atomic<ssize_t> async_bytes{-1};
  ssize_t sync_bytes[2] = {-1, -1}, written = -1;
  std::thread worker([&] {
    size_t size = kFile;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 12345;
    const hipFileError_t e =
        hipFileReadAsync(fh_, dev_, &size, &file_offset, &buffer_offset, &bytes, other);
    if (IsSuccess(e)) {
      // Set to 0 at submission, to the result when the operation finishes.
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (__atomic_load_n(&bytes, __ATOMIC_ACQUIRE) == 0 &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      async_bytes = __atomic_load_n(&bytes, __ATOMIC_ACQUIRE);
    } else {
      async_bytes = -static_cast<ssize_t>(e.err);
    }
    for (ssize_t& n : sync_bytes) n = hipFileRead(fh_, second, kFile, 0, 0);
    written = hipFileWrite(fh_, second, kFile, 0, 0);
  });
  worker.join();
  // The capture ends before anything is checked: one left open refuses the suite's later calls.
  const int finished = capture_.Finish(captured);
  EXPECT_EQ(recorded, hipSuccess);
  EXPECT_EQ(finished, 0) << "the library's work invalidated the capture";
  EXPECT_EQ(async_bytes.load(), static_cast<ssize_t>(kFile));
  EXPECT_EQ(sync_bytes[0], static_cast<ssize_t>(kFile));
  EXPECT_EQ(sync_bytes[1], static_cast<ssize_t>(kFile));
  EXPECT_EQ(written, static_cast<ssize_t>(kFile));
  ASSERT_EQ(hipStreamSynchronize(other), hipSuccess);
  EXPECT_EQ(DeviceBytes(dev_, kFile), testing::PatternBytes(kFile));
  EXPECT_EQ(DeviceBytes(second, kFile), testing::PatternBytes(kFile));
  EXPECT_EQ(hipStreamDestroy(captured), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(other), hipSuccess);
}

// A program reading inside its own capture (a loader called within `with torch.cuda.graph(g):`):
// the synchronous calls move their bytes at once, on the library's streams, in relaxed mode, and
// the capture, of another stream of the same thread, still ends with a graph.
TEST_F(StreamCaptureTest, SynchronousCallsOnTheCapturingThreadWorkAndLeaveTheCaptureWhole) {
  hipStream_t captured = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&captured, hipStreamNonBlocking), hipSuccess);
  void* scratch = DeviceAlloc(4096);
  ASSERT_EQ(hipMemset(dev_, 0, kFile), hipSuccess);
  ASSERT_EQ(capture_.Begin(captured), 0);
  const hipError_t recorded = hipMemsetAsync(scratch, 1, 4096, captured);
  const ssize_t read = hipFileRead(fh_, dev_, kFile, 0, 0);
  const ssize_t written = hipFileWrite(fh_, dev_, kFile, 0, 0);
  // The capture ends before anything is checked: one left open refuses the suite's later calls.
  const int finished = capture_.Finish(captured);
  EXPECT_EQ(recorded, hipSuccess);
  EXPECT_EQ(read, static_cast<ssize_t>(kFile));
  EXPECT_EQ(written, static_cast<ssize_t>(kFile));
  EXPECT_EQ(finished, 0) << "the library's calls invalidated the capture";
  EXPECT_EQ(DeviceBytes(dev_, kFile), testing::PatternBytes(kFile));
  EXPECT_EQ(hipStreamDestroy(captured), hipSuccess);
}

}  // namespace
}  // namespace hipfile::api
