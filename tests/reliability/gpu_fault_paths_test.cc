// SPDX-License-Identifier: MIT
// GPU-runtime faults on every API path (sync, stream-ordered, batch) through a core::Driver built
// on FaultRuntime over the CPU runtime. FaultRuntime says device memory is not host memory, so
// the engine takes the staged path a GPU takes: pinned staging buffers, copies on its own copy
// lanes (a stream and an event each) and waits for them, and pinned page-cache windows for warm
// data read again. Each test fails one of these: a copy (the first, or the one of a later chunk
// or piece), the wait for a copy (stream query, or the event once the wait sleeps), staging
// allocation when the driver opens, copy-lane creation, and the pinning of a page-cache window.
// The caller must get the GPU error, or a short count of exactly the bytes that moved; then a
// clean operation succeeds, byte for byte. No test may hang (a watchdog aborts one that does),
// and at driver close every pinned allocation, registration, stream and event has been given
// back. The faults count towards "faults injected: N".
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/status_map.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

constexpr size_t kChunk = 64 * 1024;  // a staging buffer, and the largest buffered chunk
constexpr size_t kChunks = 4;         // chunks of a multi-chunk transfer
constexpr size_t kMulti = kChunks * kChunk;
constexpr size_t kWarm = 2u << 20;  // a warm file: read on the page-cache path (>= 1 MiB)
constexpr hipError_t kCopyError = hipErrorIllegalAddress;
constexpr hipError_t kWaitError = hipErrorLaunchFailure;
constexpr hipError_t kAllocError = hipErrorOutOfMemory;

class GpuFaultPathsTest : public IoPathTest {
 protected:
  GpuFaultPathsTest() : IoPathTest(kWarm) {
    ReopenDriver();
    // The test's own stream and batch manager exist before any fault, so that every fault hits
    // a call of the engine.
    if (GetParam() == Path::kAsync) (void)Stream();
    if (GetParam() == Path::kBatch) (void)Manager();
  }

  // Everything the library pinned, registered or created must be given back once the driver is
  // gone (pinned memory is not freed by anything else while the process runs).
  void TearDown() override {
    gpu_.Reset();
    sys_.Reset();
    manager_.reset();
    if (stream_ != nullptr) {
      EXPECT_EQ(gpu_.StreamDestroy(stream_), hipSuccess);
    }
    stream_ = nullptr;
    driver_.reset();
    ExpectBalanced(GpuOp::kHostMalloc, GpuOp::kHostFree);
    ExpectBalanced(GpuOp::kHostRegister, GpuOp::kHostUnregister);
    ExpectBalanced(GpuOp::kHostRegisterAside, GpuOp::kHostUnregisterAside);
    ExpectBalanced(GpuOp::kStreamCreate, GpuOp::kStreamDestroy);
    ExpectBalanced(GpuOp::kEventCreate, GpuOp::kEventDestroy);
  }

  void ExpectBalanced(GpuOp make, GpuOp give_back) {
    EXPECT_EQ(gpu_.Succeeded(make), gpu_.Succeeded(give_back))
        << "GpuOp " << static_cast<size_t>(make) << " not given back at driver close";
  }

  // Closes the driver (its registrations go) and opens it again with kChunk staging buffers, 16
  // of them; `before_open` runs while it is closed, after the faults were dropped, so faults it
  // sets hit the engine's construction.
  void ReopenDriver(const std::function<void()>& before_open = {}) {
    ASSERT_TRUE(driver_->Close().ok());
    gpu_.Reset();
    ASSERT_TRUE(
        driver_->SetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, kChunk / 1024).ok());
    ASSERT_TRUE(
        driver_
            ->SetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 16 * kChunk / 1024)
            .ok());
    if (before_open) before_open();
    ASSERT_TRUE(driver_->Open().ok());
  }

  char* Dev() const { return static_cast<char*>(dev_); }

  // The fault on the n-th call of `op` was reached; it counts.
  void ExpectFired(GpuOp op, uint64_t n = 1) {
    EXPECT_GE(gpu_.Calls(op), n) << "the fault on GpuOp " << static_cast<size_t>(op)
                                 << " was not reached";
    ++g_faults;
  }

  // The GPU error `e` as each path reports it. Sync: Status::Gpu(e), which hipFileRead/Write
  // return as -e. Stream-ordered: *bytes_p == -hipFileHipDriverError. Batch: ret ==
  // -hipFileHipDriverError. (The fixture turns both negative codes into Status::Errno.)
  void ExpectGpuError(const Outcome& out, hipError_t e) {
    ASSERT_FALSE(out.ok) << "bytes " << out.bytes;
    if (GetParam() == Path::kSync) {
      EXPECT_TRUE(out.error.IsGpu(e)) << out.error.ToString();
      EXPECT_EQ(api::ToSsize(Result<size_t>(out.error)), -static_cast<ssize_t>(e));
    } else {
      EXPECT_TRUE(out.error.IsErrno(hipFileHipDriverError)) << out.error.ToString();
    }
  }

  // A short read of `bytes` whose bytes are the file's (a pattern of `file_size` bytes).
  void ExpectShortRead(const Outcome& out, size_t bytes, size_t file_size) {
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, bytes);
    const std::vector<unsigned char> got = DeviceBytes(bytes);
    const std::vector<unsigned char> want = testing::PatternBytes(file_size);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()))
        << "the bytes reported as read are not the file's";
  }

  // A clean read of the whole file, after dropping every fault.
  void ExpectCleanReadAfterFault(void* fh, size_t file_size) {
    gpu_.Reset();
    FillDevice(std::vector<unsigned char>(file_size, 0xee));
    ExpectCleanRead(fh, file_size);
  }

  // A clean write of `size` new bytes at 0, after dropping every fault; the file then holds them.
  void ExpectCleanWriteAfterFault(void* fh, size_t size) {
    gpu_.Reset();
    sys_.Reset();
    const std::vector<unsigned char> data = testing::PatternBytes(size, 11);
    FillDevice(data);
    const Outcome out = Run(IoDirection::kWrite, fh, size, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, size);
    const std::vector<unsigned char> file = testing::ReadFileOrDie(path_);
    ASSERT_GE(file.size(), size);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), file.begin()));
  }

  // Makes path_ (registered as `fh`) a pattern file of `size` bytes, runs one read and one write
  // of `size` bytes at 0 with the fault `inject` sets, and checks each reports the GPU error `e`
  // and leaves the file as it was; then a clean read and write.
  void ExpectBothDirectionsFail(void* fh, size_t size, const std::function<void()>& inject,
                                GpuOp op, hipError_t e) {
    testing::WriteFileOrDie(path_, testing::PatternBytes(size));
    for (const IoDirection direction : {IoDirection::kRead, IoDirection::kWrite}) {
      SCOPED_TRACE(direction == IoDirection::kRead ? "read" : "write");
      if (direction == IoDirection::kWrite) FillDevice(testing::PatternBytes(size, 5));
      gpu_.Reset();
      inject();
      const Outcome out = Run(direction, fh, size, 0);
      ExpectFired(op);
      ExpectGpuError(out, e);
      EXPECT_EQ(testing::ReadFileOrDie(path_), testing::PatternBytes(size))
          << "a failed transfer changed the file";
    }
    ExpectCleanReadAfterFault(fh, size);
    ExpectCleanWriteAfterFault(fh, size);
  }

  Watchdog watchdog_{std::chrono::seconds(60)};
};

TEST_P(GpuFaultPathsTest, FirstCopyFailing) {
  void* fh = OpenFile("f", kChunk);
  ExpectBothDirectionsFail(
      fh, kChunk, [&] { gpu_.FailNth(GpuOp::kMemcpyAsync, 1, kCopyError); }, GpuOp::kMemcpyAsync,
      kCopyError);
}

// The copy of chunk k of four fails, whichever engine thread makes it: the bytes of the chunks
// before it come back, and they are the file's; k == 0 gives the error.
TEST_P(GpuFaultPathsTest, ReadCopyOfALaterChunkFailing) {
  void* fh = OpenFile("f", kMulti);
  for (const size_t k : {size_t{2}, kChunks - 1, size_t{0}}) {
    SCOPED_TRACE("chunk " + std::to_string(k));
    FillDevice(std::vector<unsigned char>(kMulti, 0xee));
    gpu_.Reset();
    gpu_.FailMemcpyAsyncTouching(Dev() + k * kChunk, kCopyError);
    const Outcome out = Run(IoDirection::kRead, fh, kMulti, 0);
    ExpectFired(GpuOp::kMemcpyAsync, k + 1);
    if (k == 0) {
      ExpectGpuError(out, kCopyError);
    } else {
      ExpectShortRead(out, k * kChunk, kMulti);
    }
  }
  ExpectCleanReadAfterFault(fh, kMulti);
}

// The copy of chunk k of four (from the device into staging) fails: the chunks before it are
// written and counted, the failed chunk is not written. Chunks after it run on other engine
// threads and may already be written when the failure is recorded (engine/transfer.h: a failure
// stops chunks not yet started), so the file past the failed chunk is either its old bytes or the
// new ones - except when the last chunk fails, where the file is unchanged past the count.
TEST_P(GpuFaultPathsTest, WriteCopyOfALaterChunkFailing) {
  const std::vector<unsigned char> old_bytes = testing::PatternBytes(kMulti);
  const std::vector<unsigned char> data = testing::PatternBytes(kMulti, 3);
  for (const size_t k : {kChunks - 1, size_t{1}, size_t{0}}) {
    SCOPED_TRACE("chunk " + std::to_string(k));
    void* fh = OpenFile("w" + std::to_string(k), kMulti);
    FillDevice(data);
    gpu_.Reset();
    gpu_.FailMemcpyAsyncTouching(Dev() + k * kChunk, kCopyError);
    const Outcome out = Run(IoDirection::kWrite, fh, kMulti, 0);
    ExpectFired(GpuOp::kMemcpyAsync, k + 1);
    const std::vector<unsigned char> file = testing::ReadFileOrDie(path_);
    ASSERT_EQ(file.size(), kMulti);
    if (k == 0) {
      ExpectGpuError(out, kCopyError);
    } else {
      ASSERT_TRUE(out.ok) << out.error.ToString();
      EXPECT_EQ(out.bytes, k * kChunk);
    }
    const size_t counted = k * kChunk;
    EXPECT_TRUE(std::equal(file.begin(), file.begin() + counted, data.begin()))
        << "the bytes reported as written are not in the file";
    EXPECT_TRUE(std::equal(file.begin() + counted, file.begin() + counted + kChunk,
                           old_bytes.begin() + counted))
        << "the chunk whose copy failed was written";
    for (size_t later = k + 1; later < kChunks; ++later) {
      const size_t at = later * kChunk;
      const bool as_was =
          std::equal(file.begin() + at, file.begin() + at + kChunk, old_bytes.begin() + at);
      const bool new_bytes =
          std::equal(file.begin() + at, file.begin() + at + kChunk, data.begin() + at);
      EXPECT_TRUE(as_was || new_bytes) << "chunk " << later << " holds neither old nor new bytes";
    }
    ExpectCleanWriteAfterFault(fh, kMulti);
  }
}

// A warm file read for the first time goes through staging on one thread, one kChunk piece at a
// time, its copies overlapping the next pread: the third copy failing gives the two pieces
// before it.
TEST_P(GpuFaultPathsTest, WarmReadCopyOfALaterPieceFailing) {
  void* fh = OpenFile("warm", kWarm);
  FillDevice(std::vector<unsigned char>(kWarm, 0xee));
  gpu_.FailNth(GpuOp::kMemcpyAsync, 3, kCopyError);
  const Outcome out = Run(IoDirection::kRead, fh, kWarm, 0);
  ExpectFired(GpuOp::kMemcpyAsync, 3);
  ExpectShortRead(out, 2 * kChunk, kWarm);
  ExpectCleanReadAfterFault(fh, kWarm);
}

// The wait for a copy fails: at once (the stream query reports the failure), or once it sleeps
// on the lane's event (the stream never ready, the event synchronization failing).
TEST_P(GpuFaultPathsTest, CopyWaitFailing) {
  void* fh = OpenFile("f", kChunk);
  {
    SCOPED_TRACE("stream query");
    ExpectBothDirectionsFail(
        fh, kChunk, [&] { gpu_.FailNth(GpuOp::kStreamQuery, 1, kWaitError); }, GpuOp::kStreamQuery,
        kWaitError);
  }
  {
    SCOPED_TRACE("event synchronize");
    ExpectBothDirectionsFail(
        fh, kChunk,
        [&] {
          gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorNotReady);
          gpu_.FailNth(GpuOp::kEventSynchronize, 1, kWaitError);
        },
        GpuOp::kEventSynchronize, kWaitError);
  }
}

// The third wait of a warm read through staging fails: it waited for the third piece's copy, so
// the two pieces before it come back.
TEST_P(GpuFaultPathsTest, WarmReadWaitForALaterPieceFailing) {
  void* fh = OpenFile("warm", kWarm);
  FillDevice(std::vector<unsigned char>(kWarm, 0xee));
  gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorNotReady);
  gpu_.FailNth(GpuOp::kEventSynchronize, 3, kWaitError);
  const Outcome out = Run(IoDirection::kRead, fh, kWarm, 0);
  ExpectFired(GpuOp::kEventSynchronize, 3);
  ExpectShortRead(out, 2 * kChunk, kWarm);
  ExpectCleanReadAfterFault(fh, kWarm);
}

// Pinning staging buffers fails when the driver opens. With the first allocation failing, the
// engine pins on demand and I/O works. With every allocation failing, I/O reports the error; once
// allocation works again, so does I/O.
TEST_P(GpuFaultPathsTest, StagingAllocationFailingAtOpen) {
  // A clean read first: the stream-ordered executor pins its own words on its first operation,
  // and they are not what this test fails.
  void* fh = OpenFile("f", kMulti);
  ExpectCleanRead(fh, kMulti);

  ReopenDriver([&] { gpu_.FailNth(GpuOp::kHostMalloc, 1, kAllocError); });
  ExpectFired(GpuOp::kHostMalloc);
  fh = Register(fds_.back());
  const uint64_t pinned = gpu_.Succeeded(GpuOp::kHostMalloc);
  ExpectCleanRead(fh, kMulti);
  EXPECT_GT(gpu_.Succeeded(GpuOp::kHostMalloc), pinned) << "no staging buffer pinned on demand";
  ExpectCleanWriteAfterFault(fh, kMulti);

  ReopenDriver([&] { gpu_.FailAlways(GpuOp::kHostMalloc, kAllocError); });
  fh = Register(fds_.back());
  const uint64_t at_open = gpu_.Calls(GpuOp::kHostMalloc);
  ExpectBothDirectionsFail(
      fh, kMulti, [&] { gpu_.FailAlways(GpuOp::kHostMalloc, kAllocError); }, GpuOp::kHostMalloc,
      kAllocError);
  g_faults += at_open;
}

// Creating a copy lane's stream or event fails, once (the first transfer gets the error, the next
// makes the lane) or always (every transfer gets it). Multi-chunk transfers also take lanes on
// other engine threads; whichever fails, the result is the error or a short count of whole
// chunks that are the file's.
TEST_P(GpuFaultPathsTest, CopyLaneCreationFailing) {
  for (const GpuOp op : {GpuOp::kStreamCreate, GpuOp::kEventCreate}) {
    SCOPED_TRACE(op == GpuOp::kStreamCreate ? "stream" : "event");
    ReopenDriver();  // an engine without lanes
    void* fh = OpenFile(op == GpuOp::kStreamCreate ? "s" : "e", kChunk);
    ExpectBothDirectionsFail(
        fh, kChunk, [&] { gpu_.FailNth(op, 1, kAllocError); }, op, kAllocError);

    ReopenDriver();
    fh = Register(fds_.back());
    ExpectBothDirectionsFail(
        fh, kChunk, [&] { gpu_.FailAlways(op, kAllocError); }, op, kAllocError);

    ReopenDriver();
    fh = OpenFile(op == GpuOp::kStreamCreate ? "sm" : "em", kMulti);
    FillDevice(std::vector<unsigned char>(kMulti, 0xee));
    gpu_.Reset();
    gpu_.FailNth(op, 1, kAllocError);
    const Outcome out = Run(IoDirection::kRead, fh, kMulti, 0);
    ExpectFired(op);
    if (out.ok) {
      EXPECT_EQ(out.bytes % kChunk, 0u);
      EXPECT_LT(out.bytes, kMulti);
      ExpectShortRead(out, out.bytes, kMulti);
    } else {
      ExpectGpuError(out, kAllocError);
    }
    ExpectCleanReadAfterFault(fh, kMulti);
  }
}

// Pinning a page-cache window fails on the read that would pin it (its second): that read and
// the next go through staging, and every byte is right.
TEST_P(GpuFaultPathsTest, PageCachePinningFailing) {
  void* fh = OpenFile("warm", kWarm);
  gpu_.FailAlways(GpuOp::kHostRegister, kAllocError);
  for (int read = 1; read <= 3; ++read) {
    SCOPED_TRACE("read " + std::to_string(read));
    FillDevice(std::vector<unsigned char>(kWarm, 0xee));
    sys_.Reset();
    const Outcome out = Run(IoDirection::kRead, fh, kWarm, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, kWarm);
    EXPECT_EQ(DeviceBytes(kWarm), testing::PatternBytes(kWarm));
    if (read == 1) {
      EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u) << "pinned on the first read";
    }
  }
  ExpectFired(GpuOp::kHostRegister);
  g_faults += gpu_.Calls(GpuOp::kHostRegister) - 1;
  EXPECT_EQ(gpu_.Succeeded(GpuOp::kHostRegister), 0u);
  ExpectCleanReadAfterFault(fh, kWarm);
}

// Copies from a pinned page-cache window fail, or their wait does: the error comes back, the
// window stays usable, and it is unpinned at driver close.
TEST_P(GpuFaultPathsTest, CopyFromAPinnedWindowFailing) {
  void* fh = OpenFile("warm", kWarm);
  ExpectCleanReadAfterFault(fh, kWarm);  // the window's first use: through staging
  ExpectCleanReadAfterFault(fh, kWarm);  // its second: pinned, copied from
  ASSERT_EQ(gpu_.Succeeded(GpuOp::kHostRegister), 1u) << "the window was not pinned";
  for (const GpuOp op : {GpuOp::kMemcpyAsync, GpuOp::kStreamQuery}) {
    SCOPED_TRACE(op == GpuOp::kMemcpyAsync ? "copy" : "wait");
    gpu_.Reset();
    gpu_.FailNth(op, 1, kCopyError);
    const Outcome out = Run(IoDirection::kRead, fh, kWarm, 0);
    ExpectFired(op);
    ExpectGpuError(out, kCopyError);
    ExpectCleanReadAfterFault(fh, kWarm);
  }
  EXPECT_EQ(gpu_.Succeeded(GpuOp::kHostRegister), 1u) << "the window was pinned again";
}

// Stream-ordered operations on device memory copy on their own stream, not on the engine's lanes
// (core/async/async_executor.h): their GPU faults are async_staged_test.cc's. The Async
// instance is kept for the submission tests below.
INSTANTIATE_TEST_SUITE_P(AllPaths, GpuFaultPathsTest, ::testing::Values(Path::kSync, Path::kBatch),
                         PathName);

// Stream-ordered submission only: the stream operations that queue an operation on the caller's
// stream fail. The submission returns the GPU error, the stream is not left waiting (it
// synchronizes), and the next operations on it work.
class GpuFaultSubmitTest : public GpuFaultPathsTest {
 protected:
  void ExpectSubmitFails(void* fh, GpuOp op) {
    for (int round = 0; round < 2; ++round) {
      gpu_.Reset();
      gpu_.FailNth(op, 1, kWaitError);
      size_t size = kChunk;
      off_t file_offset = 0;
      off_t buffer_offset = 0;
      ssize_t bytes = 12345;
      const Status submitted = driver_->SubmitAsync(IoDirection::kRead, fh, dev_, &size,
                                                    &file_offset, &buffer_offset, &bytes, Stream());
      ExpectFired(op);
      EXPECT_TRUE(submitted.IsGpu(kWaitError)) << submitted.ToString();
      const hipFileError_t error = api::ToError(submitted);  // what hipFileReadAsync returns
      EXPECT_EQ(error.err, hipFileHipDriverError);
      EXPECT_EQ(error.hip_drv_err, kWaitError);
      EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
      ExpectCleanReadAfterFault(fh, kChunk);
      ExpectCleanReadAfterFault(fh, kChunk);
    }
  }
};

// The stream waits on a word of pinned memory (stream memory operations): writing the "reached"
// word or queueing the wait for the "done" word fails.
TEST_P(GpuFaultSubmitTest, StreamMemoryOperationFailing) {
  gpu_.SetStreamMemOps(1);  // read when the executor is made, by the first submission
  void* fh = OpenFile("f", kChunk);
  ExpectCleanRead(fh, kChunk);
  ExpectSubmitFails(fh, GpuOp::kStreamWriteValue32);
  ExpectSubmitFails(fh, GpuOp::kStreamWaitValue32);
}

// Without stream memory operations the stream waits in a host function; launching it fails.
TEST_P(GpuFaultSubmitTest, HostFunctionLaunchFailing) {
  gpu_.SetStreamMemOps(0);
  void* fh = OpenFile("f", kChunk);
  ExpectCleanRead(fh, kChunk);
  ExpectSubmitFails(fh, GpuOp::kLaunchHostFunc);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, GpuFaultSubmitTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
