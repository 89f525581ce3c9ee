// SPDX-License-Identifier: MIT
// SyncEngine under injected system call and GPU failures.
#include <errno.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/retry.h"
#include "engine/sync_io.h"
#include "engine_test_util.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kSize = 5 * kTestChunk;

class SyncIoFaultTest : public EngineTestBase {
 protected:
  void SetUp() override {
    WriteFileOrDie(in_path_, content_);
    WriteFileOrDie(out_path_, {});
    mem_.Upload(0, content_);
  }

  // The first `n` bytes the device buffer holds.
  std::vector<unsigned char> DeviceHead(size_t n) {
    std::vector<unsigned char> all = mem_.Download();
    return std::vector<unsigned char>(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
  }
  std::vector<unsigned char> ContentHead(size_t n) const {
    return std::vector<unsigned char>(content_.begin(),
                                      content_.begin() + static_cast<ptrdiff_t>(n));
  }

  const std::vector<unsigned char> content_ = PatternBytes(kSize, 11);
  const std::string in_path_ = dir_.File("in");
  const std::string out_path_ = dir_.File("out");
  GpuBuffer mem_{gpu_, kSize, hipMemoryTypeDevice};
  SyncEngine engine_{sys_, gpu_, SmallOptions()};
};

TEST_F(SyncIoFaultTest, ReadRetriesEintrAndEagain) {
  ScopedFd fd(in_path_, O_RDONLY);
  mem_.Fill(0);
  sys_.FailTimes(SysOp::kPread, 3, EINTR);
  sys_.FailNth(SysOp::kPread, 6, EAGAIN);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(mem_.Download(), content_);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), kSize / kTestChunk + 4);
}

TEST_F(SyncIoFaultTest, WriteRetriesEintrAndEagain) {
  ScopedFd fd(out_path_, O_WRONLY);
  sys_.FailTimes(SysOp::kPwrite, 2, EAGAIN);
  sys_.FailNth(SysOp::kPwrite, 4, EINTR);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(ReadFileOrDie(out_path_), content_);
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), kSize / kTestChunk + 3);
}

TEST_F(SyncIoFaultTest, EndlessEintrIsReportedNotSpunOn) {
  ScopedFd fd(in_path_, O_RDONLY);
  sys_.FailAlways(SysOp::kPread, EINTR);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(EINTR));
  EXPECT_EQ(sys_.Calls(SysOp::kPread), static_cast<uint64_t>(kMaxConsecutiveRetries) + 1);
}

TEST_F(SyncIoFaultTest, ShortReadsAreContinued) {
  ScopedFd fd(in_path_, O_RDONLY);
  mem_.Fill(0);
  sys_.ShortTransfers(SysOp::kPread, 1000);  // not a divisor of the chunk
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(mem_.Download(), content_);
  EXPECT_GE(sys_.Calls(SysOp::kPread), kSize / 1000);
}

TEST_F(SyncIoFaultTest, ShortWritesAreContinued) {
  ScopedFd fd(out_path_, O_WRONLY);
  sys_.ShortTransfers(SysOp::kPwrite, 777);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(ReadFileOrDie(out_path_), content_);
}

TEST_F(SyncIoFaultTest, EioOnFirstReadIsTheError) {
  ScopedFd fd(in_path_, O_RDONLY);
  sys_.FailNth(SysOp::kPread, 1, EIO);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(EIO)) << n.status().ToString();
}

TEST_F(SyncIoFaultTest, EioOnThirdChunkCountsTheFirstTwo) {
  ScopedFd fd(in_path_, O_RDONLY);
  mem_.Fill(0);
  sys_.FailNth(SysOp::kPread, 3, EIO);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2 * kTestChunk);
  EXPECT_EQ(DeviceHead(2 * kTestChunk), ContentHead(2 * kTestChunk));
}

TEST_F(SyncIoFaultTest, EioOnFirstPinnedHostReadIsTheError) {
  ScopedFd fd(in_path_, O_RDONLY);
  GpuBuffer pinned(gpu_, kSize, hipMemoryTypeHost);
  sys_.FailNth(SysOp::kPread, 1, EIO);
  Result<size_t> n = engine_.Read(fd.file(), pinned.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(EIO));
}

TEST_F(SyncIoFaultTest, PinnedHostReadStoppedPartWayCountsWhatArrived) {
  ScopedFd fd(in_path_, O_RDONLY);
  GpuBuffer pinned(gpu_, kSize, hipMemoryTypeHost);
  sys_.ShortTransfers(SysOp::kPread, 1000);
  sys_.FailNth(SysOp::kPread, 3, EIO);
  Result<size_t> n = engine_.Read(fd.file(), pinned.At(0), kSize, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2000u);
  EXPECT_EQ(0, std::memcmp(pinned.data(), content_.data(), 2000));
}

TEST_F(SyncIoFaultTest, EnospcAfterOneChunkCountsOneChunk) {
  ScopedFd fd(out_path_, O_WRONLY);
  sys_.FailNth(SysOp::kPwrite, 2, ENOSPC);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kTestChunk);
  EXPECT_EQ(ReadFileOrDie(out_path_), ContentHead(kTestChunk));
}

TEST_F(SyncIoFaultTest, EnospcOnFirstWriteIsTheError) {
  ScopedFd fd(out_path_, O_WRONLY);
  sys_.FailAlways(SysOp::kPwrite, ENOSPC);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(ENOSPC));
  EXPECT_TRUE(ReadFileOrDie(out_path_).empty());
}

TEST_F(SyncIoFaultTest, WriteThatMakesNoProgressIsEio) {
  ScopedFd fd(out_path_, O_WRONLY);
  sys_.ShortTransfers(SysOp::kPwrite, 0);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(EIO));
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 2u);  // tried once more, then reported
}

TEST_F(SyncIoFaultTest, CopyFailureIsAGpuError) {
  ScopedFd in(in_path_, O_RDONLY);
  ScopedFd out(out_path_, O_WRONLY);
  gpu_.FailAlways(GpuOp::kMemcpy, hipErrorIllegalAddress);
  gpu_.FailAlways(GpuOp::kMemcpyAsync, hipErrorIllegalAddress);
  Result<size_t> r = engine_.Read(in.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsGpu(hipErrorIllegalAddress)) << r.status().ToString();
  Result<size_t> w = engine_.Write(out.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsGpu(hipErrorIllegalAddress)) << w.status().ToString();
  EXPECT_TRUE(ReadFileOrDie(out_path_).empty());
}

TEST_F(SyncIoFaultTest, FailedCopyCompletionIsAGpuError) {
  ScopedFd in(in_path_, O_RDONLY);
  ScopedFd out(out_path_, O_WRONLY);
  // A failure seen while polling the stream, and one seen while sleeping on the lane's event
  // (the stream still busy when the poll gives up).
  for (GpuOp op : {GpuOp::kStreamQuery, GpuOp::kEventSynchronize}) {
    SCOPED_TRACE(static_cast<int>(op));
    gpu_.Reset();
    if (op == GpuOp::kEventSynchronize) gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorNotReady);
    gpu_.FailAlways(op, hipErrorLaunchFailure);
    Result<size_t> r = engine_.Read(in.file(), mem_.At(0), kSize, 0);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsGpu(hipErrorLaunchFailure));
    Result<size_t> w = engine_.Write(out.file(), mem_.At(0), kSize, 0);
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(w.status().IsGpu(hipErrorLaunchFailure));
  }
}

// Regression: a failed event record returned while the copy still ran into staging.
TEST_F(SyncIoFaultTest, AFailedEventRecordWaitsForTheStreamInstead) {
  ScopedFd in(in_path_, O_RDONLY);
  mem_.Fill(0);
  gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorNotReady);
  gpu_.FailAlways(GpuOp::kEventRecord, hipErrorLaunchFailure);
  Result<size_t> r = engine_.Read(in.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kSize);
  EXPECT_EQ(mem_.Download(), ContentHead(kSize));
  EXPECT_GT(gpu_.Calls(GpuOp::kStreamSynchronize), 0u);
}

TEST_F(SyncIoFaultTest, ACopyStillRunningAfterThePollIsWaitedForOnTheLanesEvent) {
  ScopedFd in(in_path_, O_RDONLY);
  mem_.Fill(0);
  gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorNotReady);  // every poll says "still running"
  Result<size_t> r = engine_.Read(in.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kSize);
  EXPECT_EQ(mem_.Download(), ContentHead(kSize));
  EXPECT_GT(gpu_.Calls(GpuOp::kEventSynchronize), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kEventRecord), gpu_.Calls(GpuOp::kEventSynchronize));
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamSynchronize), 0u) << "never a spinning stream wait";
}

TEST_F(SyncIoFaultTest, CopyFailureAfterOneChunkCountsOneChunk) {
  ScopedFd in(in_path_, O_RDONLY);
  ScopedFd out(out_path_, O_WRONLY);
  gpu_.FailNth(GpuOp::kMemcpyAsync, 2, hipErrorIllegalAddress);
  gpu_.FailNth(GpuOp::kMemcpy, 2, hipErrorIllegalAddress);
  Result<size_t> w = engine_.Write(out.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(*w, kTestChunk);
  EXPECT_EQ(ReadFileOrDie(out_path_), ContentHead(kTestChunk));

  gpu_.Reset();
  mem_.Fill(0);
  gpu_.FailNth(GpuOp::kMemcpyAsync, 2, hipErrorIllegalAddress);
  gpu_.FailNth(GpuOp::kMemcpy, 2, hipErrorIllegalAddress);
  Result<size_t> r = engine_.Read(in.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kTestChunk);
  EXPECT_EQ(DeviceHead(kTestChunk), ContentHead(kTestChunk));
}

TEST_F(SyncIoFaultTest, StagingAllocationFailureIsAGpuErrorBeforeAnyIo) {
  ScopedFd fd(in_path_, O_RDONLY);
  gpu_.FailAlways(GpuOp::kHostMalloc, hipErrorOutOfMemory);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsGpu(hipErrorOutOfMemory));
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);

  // The pool recovers once memory is available again.
  gpu_.Reset();
  Result<size_t> again = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, kSize);
}

TEST_F(SyncIoFaultTest, StreamCreationFailureIsAGpuError) {
  ScopedFd fd(out_path_, O_WRONLY);
  gpu_.FailAlways(GpuOp::kStreamCreate, hipErrorOutOfMemory);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsGpu(hipErrorOutOfMemory));
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 0u);
}

}  // namespace
}  // namespace hipfile::engine
