// SPDX-License-Identifier: MIT
// hipFileReadAsync / hipFileWriteAsync / hipFileStreamRegister / hipFileStreamDeregister through
// the C API on the process runtime (spec §1.10; docs/async.md).
#include <hip/hip_runtime_api.h>
#include <hipfile_ext.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <vector>

#include "api_test_util.h"
#include "core/async/async_executor.h"
#include "fakes/gate.h"

namespace hipfile::api {
namespace {

constexpr size_t kSize = 1 << 20;

using Gate = testing::StreamGate;

void SetSizeTo4096(void* size_p) { *static_cast<size_t*>(size_p) = 4096; }

class AsyncApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    ASSERT_EQ(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), hipSuccess);
  }
  void TearDown() override {
    if (stream_registered_) {
      EXPECT_TRUE(IsSuccess(hipFileStreamDeregister(stream_)));
    }
    EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
    ApiTest::TearDown();
  }
  void RegisterStream(unsigned flags) {
    ASSERT_TRUE(IsSuccess(hipFileStreamRegister(stream_, flags)));
    stream_registered_ = true;
  }
  hipStream_t stream_ = nullptr;
  bool stream_registered_ = false;
};

TEST_F(AsyncApiTest, ClosedDriverOpensAndStillRefuses) {
  size_t size = 0;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = 0;
  int dummy = 0;
  EXPECT_TRUE(IsOp(hipFileReadAsync(nullptr, &dummy, &size, &fo, &bo, &bytes, stream_),
                   hipFileInvalidValue));
  EXPECT_EQ(hipFileUseCount(), 1);
}

TEST_F(AsyncApiTest, ArgumentErrorsAtSubmission) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -7;
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, nullptr, &size, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, nullptr, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, nullptr, &bo, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, &fo, nullptr, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, &fo, &bo, nullptr, stream_), hipFileInvalidValue));
  int not_a_handle = 0;
  EXPECT_TRUE(IsOp(hipFileReadAsync(&not_a_handle, dev, &size, &fo, &bo, &bytes, stream_),
                   hipFileHandleNotRegistered));
  size = kSize + 1;  // larger than the buffer
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  size = 16;
  fo = -1;
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  fo = 0;
  bo = kSize;  // buffer offset at the end of the buffer
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  EXPECT_EQ(bytes, -7) << "a refused submission must not touch *bytes_p";
  int host_memory[16];
  bo = 0;
  EXPECT_TRUE(IsOp(hipFileReadAsync(fh, host_memory, &size, &fo, &bo, &bytes, stream_),
                   hipFileHipMemoryTypeInvalid));
}

TEST_F(AsyncApiTest, StreamRegistrationRules) {
  EXPECT_TRUE(
      IsOp(hipFileStreamRegister(stream_, HIPFILE_STREAM_FLAGS_MASK + 1), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileStreamDeregister(stream_), hipFileInvalidValue));
  RegisterStream(HIPFILE_STREAM_FLAGS_MASK);
  EXPECT_TRUE(IsOp(hipFileStreamRegister(stream_, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsSuccess(hipFileStreamDeregister(stream_)));
  stream_registered_ = false;
  // The default stream can be registered too.
  EXPECT_TRUE(IsSuccess(hipFileStreamRegister(nullptr, 0)));
  EXPECT_TRUE(IsSuccess(hipFileStreamDeregister(nullptr)));
}

TEST_F(AsyncApiTest, ReadThenWriteOnOneStreamRoundTrips) {
  const int in_fd = OpenFile("in", kSize, O_RDONLY);
  const int out_fd = OpenFile("out", 0, O_RDWR);
  hipFileHandle_t in = Register(in_fd);
  hipFileHandle_t out = Register(out_fd);
  void* dev = DeviceAlloc(kSize);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(dev, kSize, 0)));
  RegisterStream(HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                 HIPFILE_STREAM_FIXED_FILE_SIZE | HIPFILE_STREAM_PAGE_ALIGNED_INPUTS);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t read_bytes = -1, write_bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(in, dev, &size, &fo, &bo, &read_bytes, stream_)));
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(out, dev, &size, &fo, &bo, &write_bytes, stream_)));
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(read_bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(write_bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), testing::PatternBytes(kSize));
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(dev)));
}

TEST_F(AsyncApiTest, DefaultStreamAndUnregisteredBuffersWork) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  size_t size = 4096 * 3 + 5;
  hoff_t fo = 777, bo = 13;
  ssize_t bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, nullptr)));
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  ASSERT_EQ(bytes, static_cast<ssize_t>(size));
  const std::vector<unsigned char> want = testing::PatternBytes(kSize);
  const std::vector<unsigned char> got = DeviceBytes(dev, kSize);
  EXPECT_TRUE(std::equal(got.begin() + 13, got.begin() + 13 + size, want.begin() + 777));
}

TEST_F(AsyncApiTest, BytesAreZeroAtSubmissionAndArgumentsAreReadWhenTheOperationRuns) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  ASSERT_EQ(hipLaunchHostFunc(stream_, SetSizeTo4096, &size), hipSuccess);
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  EXPECT_EQ(bytes, 0);
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, 4096) << "the size changed by earlier stream work is the one used";
}

TEST_F(AsyncApiTest, FixedSizeIsTakenAtSubmission) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  RegisterStream(HIPFILE_STREAM_FIXED_FILE_SIZE);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  Gate gate;  // holds the stream until the submission has taken the size
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(stream_, SetSizeTo4096, &size), hipSuccess);
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kSize));
}

// hipFileExtReadAsyncFixed / hipFileExtWriteAsyncFixed (hipfile_ext.h): the values are the call's
// arguments, given in a scope that has ended before the stream gets to the operations.
TEST_F(AsyncApiTest, ExtFixedReadAndWriteRoundTripOnAnUnregisteredStream) {
  const int in_fd = OpenFile("in", kSize, O_RDONLY);
  const int out_fd = OpenFile("out", 0, O_RDWR);
  hipFileHandle_t in = Register(in_fd);
  hipFileHandle_t out = Register(out_fd);
  void* dev = DeviceAlloc(kSize);
  const size_t size = 4096 * 3 + 5;
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  ssize_t read_bytes = -1, write_bytes = -1;
  [&] {
    hoff_t file_offset = 777, buffer_offset = 13;
    ASSERT_TRUE(IsSuccess(
        hipFileExtReadAsyncFixed(in, dev, size, file_offset, buffer_offset, &read_bytes, stream_)));
    file_offset = 100;
    ASSERT_TRUE(IsSuccess(hipFileExtWriteAsyncFixed(out, dev, size, file_offset, buffer_offset,
                                                    &write_bytes, stream_)));
  }();
  EXPECT_EQ(write_bytes, 0) << "queued behind the gate";
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(read_bytes, static_cast<ssize_t>(size));
  EXPECT_EQ(write_bytes, static_cast<ssize_t>(size));
  const std::vector<unsigned char> want = testing::PatternBytes(kSize);
  const std::vector<unsigned char> got = DeviceBytes(dev, kSize);
  EXPECT_TRUE(std::equal(got.begin() + 13, got.begin() + 13 + size, want.begin() + 777));
  const std::vector<unsigned char> file = testing::ReadFileOrDie(dir_.File("out"));
  ASSERT_EQ(file.size(), 100 + size);
  EXPECT_TRUE(std::equal(file.begin() + 100, file.end(), want.begin() + 777));
}

TEST_F(AsyncApiTest, ExtFixedRefusesWhatHipFileReadAsyncRefuses) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  ssize_t bytes = -7;
  EXPECT_TRUE(
      IsOp(hipFileExtReadAsyncFixed(fh, nullptr, 16, 0, 0, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileExtReadAsyncFixed(fh, dev, 16, 0, 0, nullptr, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileExtWriteAsyncFixed(fh, dev, 16, 0, 0, nullptr, stream_), hipFileInvalidValue));
  int not_a_handle = 0;
  EXPECT_TRUE(IsOp(hipFileExtReadAsyncFixed(&not_a_handle, dev, 16, 0, 0, &bytes, stream_),
                   hipFileHandleNotRegistered));
  EXPECT_TRUE(IsOp(hipFileExtReadAsyncFixed(fh, dev, kSize + 1, 0, 0, &bytes, stream_),
                   hipFileInvalidValue))
      << "larger than the buffer";
  EXPECT_TRUE(
      IsOp(hipFileExtReadAsyncFixed(fh, dev, 16, -1, 0, &bytes, stream_), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileExtReadAsyncFixed(fh, dev, 16, 0, kSize, &bytes, stream_), hipFileInvalidValue))
      << "past the buffer's end";
  EXPECT_EQ(bytes, -7) << "a refused submission leaves *bytes_p alone";
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
}

// On a busy stream that is not registered, a small resident read through the fixed entry is
// taken at submission, where hipFileReadAsync's waits to be staged: the library may bind it then.
// Needs a GPU's data paths (cpu-staged or a GPU) and a file system that says what is resident.
TEST_F(AsyncApiTest, ExtFixedTakesASmallReadAtSubmissionOnABusyStream) {
  if (ProcessRuntime().DeviceMemoryIsHostMemory()) {
    GTEST_SKIP() << "device memory is host memory here: no staged way (HIPFILE_RUNTIME=cpu-staged "
                    "runs it)";
  }
  struct statfs fs = {};
  ASSERT_EQ(::statfs(dir_.path().c_str(), &fs), 0);
  if (fs.f_type == TMPFS_MAGIC) GTEST_SKIP() << "tmpfs cannot say what is in the page cache";
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  hipFileExtAsyncWayStats_t before = {}, after_plain = {}, after_fixed = {};
  ASSERT_TRUE(IsSuccess(hipFileExtGetAsyncWayStats(&before)));
  size_t size = 4096;
  hoff_t file_offset = 8192, buffer_offset = 0;
  ssize_t plain_bytes = -1, fixed_bytes = -1;
  ASSERT_TRUE(IsSuccess(
      hipFileReadAsync(fh, dev, &size, &file_offset, &buffer_offset, &plain_bytes, stream_)));
  ASSERT_TRUE(IsSuccess(hipFileExtGetAsyncWayStats(&after_plain)));
  ASSERT_TRUE(
      IsSuccess(hipFileExtReadAsyncFixed(fh, dev, 4096, 3 * 4096, 4096, &fixed_bytes, stream_)));
  ASSERT_TRUE(IsSuccess(hipFileExtGetAsyncWayStats(&after_fixed)));
  EXPECT_EQ(
      after_plain.read_ops[hipFileExtAsyncWayStaged] - before.read_ops[hipFileExtAsyncWayStaged],
      1u);
  EXPECT_EQ(after_fixed.read_ops[hipFileExtAsyncWayReadAtSubmission] -
                after_plain.read_ops[hipFileExtAsyncWayReadAtSubmission],
            1u);
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(plain_bytes, 4096);
  EXPECT_EQ(fixed_bytes, 4096);
  const std::vector<unsigned char> want = testing::PatternBytes(kSize);
  const std::vector<unsigned char> got = DeviceBytes(dev, 2 * 4096);
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 4096, want.begin() + 8192));
  EXPECT_TRUE(std::equal(got.begin() + 4096, got.end(), want.begin() + 3 * 4096));
}

TEST_F(AsyncApiTest, ErrorsAtExecutionLandInBytes) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t grown = 4096;
  size_t write_size = 4096;
  hoff_t fo = 0, bo = 0, past_eof = 2 * kSize;
  ssize_t grown_bytes = 1, write_bytes = 1, eof_bytes = 1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &grown, &fo, &bo, &grown_bytes, stream_)));
  ASSERT_TRUE(
      IsSuccess(hipFileReadAsync(fh, dev, &write_size, &past_eof, &bo, &eof_bytes, stream_)));
  // The descriptor is read-only: the write fails in the kernel, with EBADF.
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(fh, dev, &write_size, &fo, &bo, &write_bytes, stream_)));
  grown = 8192;  // larger than at submission: refused when it runs
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(grown_bytes, -static_cast<ssize_t>(hipFileInvalidValue));
  EXPECT_EQ(eof_bytes, 0);
  EXPECT_EQ(write_bytes, -EBADF);
}

TEST_F(AsyncApiTest, ZeroSizeOperationCompletesWithZero) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  size_t size = 0;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, 0);
}

TEST_F(AsyncApiTest, OtherStreamsProgressWhileOneIsBlocked) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* blocked_dev = DeviceAlloc(kSize);
  void* free_dev = DeviceAlloc(kSize);
  hipStream_t free_stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&free_stream, hipStreamNonBlocking), hipSuccess);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t blocked_bytes = -1, free_bytes = -1;
  ASSERT_TRUE(
      IsSuccess(hipFileReadAsync(fh, blocked_dev, &size, &fo, &bo, &blocked_bytes, stream_)));
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, free_dev, &size, &fo, &bo, &free_bytes, free_stream)));
  ASSERT_EQ(hipStreamSynchronize(free_stream), hipSuccess);
  EXPECT_EQ(free_bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(blocked_bytes, 0);
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(blocked_bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(hipStreamDestroy(free_stream), hipSuccess);
}

TEST_F(AsyncApiTest, DeregistrationsWithWorkInFlightAreSafe) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(dev, kSize, 0)));
  RegisterStream(0);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  // The operation holds the buffer: hipFile refuses to deregister it.
  EXPECT_TRUE(IsOp(hipFileBufDeregister(dev), hipFileInternalError));
  EXPECT_TRUE(IsSuccess(hipFileStreamDeregister(stream_)));  // does not wait
  stream_registered_ = false;
  hipFileHandleDeregister(fh);  // the operation keeps the file
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(DeviceBytes(dev, kSize), testing::PatternBytes(kSize));
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(dev)));
}

// Buffer registrations are keyed by address, which the caller may register again: a queued
// operation is bound to the registration it was submitted with and never looks the address up
// again, so a registration remade at the same address (possible only after the last close drops
// the held one) neither changes what the operation may touch nor is held by it.
TEST_F(AsyncApiTest, AQueuedOperationKeepsTheRegistrationItWasSubmittedWith) {
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(dev, kSize, 0)));
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t size = kSize;  // read when the operation runs: checked against the bound registration
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(dev), hipFileInternalError)) << "held by the operation";
  while (hipFileUseCount() > 0) ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(dev, 4096, 0)));  // reopens; a smaller extent
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(dev))) << "the new registration is not held";
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(dev, 4096, 0)));
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(DeviceBytes(dev, kSize), testing::PatternBytes(kSize));
  // A new submission is checked against the new registration.
  hipFileHandle_t again = Register(fd);
  size = 8192;
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(again, dev, &size, &fo, &bo, &bytes, stream_), hipFileInvalidValue));
  size = 4096;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(again, dev, &size, &fo, &bo, &bytes, stream_)));
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, 4096);
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(dev)));
}

TEST_F(AsyncApiTest, ClosingTheDriverWithWorkInFlightNeitherHangsNorLosesIt) {
  // The operation holds the engine the close releases; freeing its pinned staging memory waits
  // for every stream (CUDA's implicit synchronization, mirrored by the CPU runtime), including
  // this one, which waits for the operation: that must not be done before the stream is released.
  const int fd = OpenFile("in", kSize, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kSize);
  Gate gate;
  ASSERT_EQ(hipLaunchHostFunc(stream_, Gate::Wait, &gate), hipSuccess);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream_)));
  while (hipFileUseCount() > 0) ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  gate.Open();
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kSize));
  EXPECT_EQ(DeviceBytes(dev, kSize), testing::PatternBytes(kSize));
}

TEST_F(AsyncApiTest, ManyStreamsManySlices) {
  constexpr int kStreams = 8;
  constexpr size_t kSlice = 256 << 10;
  const int in_fd = OpenFile("in", kStreams * kSlice, O_RDONLY);
  const int out_fd = OpenFile("out", 0, O_RDWR);
  hipFileHandle_t in = Register(in_fd);
  hipFileHandle_t out = Register(out_fd);
  struct Slice {
    hipStream_t stream = nullptr;
    void* dev = nullptr;
    size_t size = kSlice;
    hoff_t fo = 0, bo = 0;
    ssize_t read = -1, written = -1;
  };
  std::vector<Slice> slices(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    Slice& s = slices[i];
    ASSERT_EQ(hipStreamCreateWithFlags(&s.stream, hipStreamNonBlocking), hipSuccess);
    s.dev = DeviceAlloc(kSlice);
    s.fo = static_cast<hoff_t>(i * kSlice);
    ASSERT_TRUE(IsSuccess(hipFileReadAsync(in, s.dev, &s.size, &s.fo, &s.bo, &s.read, s.stream)));
    ASSERT_TRUE(
        IsSuccess(hipFileWriteAsync(out, s.dev, &s.size, &s.fo, &s.bo, &s.written, s.stream)));
  }
  for (Slice& s : slices) {
    ASSERT_EQ(hipStreamSynchronize(s.stream), hipSuccess);
    EXPECT_EQ(s.read, static_cast<ssize_t>(kSlice));
    EXPECT_EQ(s.written, static_cast<ssize_t>(kSlice));
    EXPECT_EQ(hipStreamDestroy(s.stream), hipSuccess);
  }
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), testing::PatternBytes(kStreams * kSlice));
}

// Regression: each stream kept its channel for the life of the process, so a program that makes
// a stream per request got hipFileInternalError from stream 4097 on. Idle channels are recycled.
TEST_F(AsyncApiTest, MoreStreamsThanTheChannelSlabOneAfterAnother) {
  constexpr size_t kChunk = 4096;
  constexpr int kStreams = static_cast<int>(core::AsyncExecutor::kMaxChannels) + 64;
  constexpr int kChunks = 256;  // file offsets cycle through a 1 MiB file
  const int fd = OpenFile("in", kChunks * kChunk, O_RDONLY);
  hipFileHandle_t fh = Register(fd);
  void* dev = DeviceAlloc(kChunk);
  const std::vector<unsigned char> want = testing::PatternBytes(kChunks * kChunk);
  for (int i = 0; i < kStreams; ++i) {
    hipStream_t stream = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
    size_t size = kChunk;
    hoff_t fo = static_cast<hoff_t>((i % kChunks) * kChunk), bo = 0;
    ssize_t bytes = -1;
    ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream)))
        << "stream " << i;
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
    ASSERT_EQ(bytes, static_cast<ssize_t>(kChunk)) << "stream " << i;
    const std::vector<unsigned char> got = DeviceBytes(dev, kChunk);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin() + fo)) << "stream " << i;
    ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);
  }
}

}  // namespace
}  // namespace hipfile::api

namespace hipfile::api {
namespace {

// Submits two stream-ordered reads - one behind a host function held until exit, one free to
// run - and exits at once. The host function is released by an exit handler: on CUDA, exit
// waits for a host function that never returns (bench/probes/exit-probe.cpp, on the H200), and
// releasing it then lets the held read run while the process tears down - the case to survive.
[[noreturn]] void ExitWithWorkOutstanding(const std::string& path) {
  // The death test's child ran the test from its start and made a TempDir of its own, which
  // exit() does not destroy: the file and its folder go at exit (an open descriptor keeps reading).
  static const std::string file = path;
  std::atexit([] {
    (void)::unlink(file.c_str());
    (void)::rmdir(file.substr(0, file.rfind('/')).c_str());
  });
  const int fd = ::open(path.c_str(), O_RDONLY);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) std::exit(3);
  void* dev = nullptr;  // one half per read: the two may run at once
  if (hipMalloc(&dev, 2 << 20) != hipSuccess) std::exit(4);
  hipStream_t blocked = nullptr, busy = nullptr;
  (void)hipStreamCreateWithFlags(&blocked, hipStreamNonBlocking);
  (void)hipStreamCreateWithFlags(&busy, hipStreamNonBlocking);
  static Gate* held = new Gate;  // opened at exit; leaked: the stream may still use it
  std::atexit([] { held->Open(); });
  (void)hipLaunchHostFunc(blocked, Gate::Wait, held);
  static size_t size = 1 << 20;
  static hoff_t fo = 0, bo_a = 0, bo_b = 1 << 20;
  static ssize_t a = 0, b = 0;
  if (hipFileReadAsync(fh, dev, &size, &fo, &bo_a, &a, blocked).err != hipFileSuccess) {
    std::exit(5);
  }
  if (hipFileReadAsync(fh, dev, &size, &fo, &bo_b, &b, busy).err != hipFileSuccess) {
    std::exit(6);
  }
  std::exit(0);
}

// A process that exits while a stream-ordered read waits behind a blocked host function, and
// while another one is queued on a second stream, exits cleanly: nothing the executor's threads
// use is destroyed under them (a known crash-at-exit of other implementations).
TEST(AsyncExitTest, ExitWithOperationsOutstandingIsClean) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  testing::TempDir dir;
  const std::string path = dir.File("in");
  testing::WriteFileOrDie(path, testing::PatternBytes(1 << 20));
  EXPECT_EXIT(ExitWithWorkOutstanding(path), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hipfile::api
