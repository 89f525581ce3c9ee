// SPDX-License-Identifier: MIT
// SyncEngine splitting requests over its worker threads: results assembled as POSIX counts
// whatever the order chunks finish in.
#include <errno.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "engine/sync_io.h"
#include "engine_test_util.h"
#include "util/mutex.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::WriteFileOrDie;

constexpr size_t kChunks = 8;
constexpr size_t kSize = kChunks * kTestChunk;

// A FaultSys that fails or delays the transfers touching one file offset, and records which
// threads made transfers.
class OffsetFaultSys : public testing::FaultSys {
 public:
  void FailAt(off_t offset, int error) { fail_offset_ = offset, fail_errno_ = error; }
  void DelayAt(off_t offset) { delay_offset_ = offset; }
  size_t Threads() {
    MutexLock lock(mu_);
    return threads_.size();
  }

  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    if (Hook(offset)) return Status::Errno(fail_errno_);
    return FaultSys::Pread(fd, buf, size, offset);
  }
  Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) override {
    if (Hook(offset)) return Status::Errno(fail_errno_);
    return FaultSys::Pwrite(fd, buf, size, offset);
  }

 private:
  bool Hook(off_t offset) {
    {
      MutexLock lock(mu_);
      threads_.insert(std::this_thread::get_id());
    }
    if (offset == delay_offset_) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return offset == fail_offset_;
  }

  off_t fail_offset_ = -1;
  int fail_errno_ = 0;
  off_t delay_offset_ = -1;
  Mutex mu_;
  std::set<std::thread::id> threads_ GUARDED_BY(mu_);
};

class ParallelIoTest : public EngineTestBase, public ::testing::WithParamInterface<hipMemoryType> {
 protected:
  void SetUp() override {
    WriteFileOrDie(in_path_, content_);
    WriteFileOrDie(out_path_, {});
  }
  std::vector<unsigned char> Head(const std::vector<unsigned char>& v, size_t n) const {
    return std::vector<unsigned char>(v.begin(), v.begin() + static_cast<ptrdiff_t>(n));
  }
  std::vector<unsigned char> MemoryHead(size_t n) const {
    if (GetParam() == hipMemoryTypeHost) {
      return std::vector<unsigned char>(mem_.data(), mem_.data() + n);
    }
    return Head(mem_.Download(), n);
  }

  OffsetFaultSys osys_;
  const std::vector<unsigned char> content_ = PatternBytes(kSize, 21);
  const std::string in_path_ = dir_.File("in");
  const std::string out_path_ = dir_.File("out");
  GpuBuffer mem_{gpu_, kSize, GetParam()};
  SyncEngine engine_{osys_, gpu_, SmallOptions(16, 4)};
};

TEST_P(ParallelIoTest, LargeReadUsesSeveralThreadsAndIsByteExact) {
  ScopedFd fd(in_path_, O_RDONLY);
  osys_.DelayAt(0);  // keeps the caller busy so that workers take chunks
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(MemoryHead(kSize), content_);
  EXPECT_GT(osys_.Threads(), 1u);
  EXPECT_EQ(engine_.io_threads(), 4u);
}

TEST_P(ParallelIoTest, FailedMiddleChunkCountsOnlyTheChunksBeforeIt) {
  ScopedFd fd(in_path_, O_RDONLY);
  osys_.FailAt(5 * kTestChunk, EIO);
  osys_.DelayAt(0);  // chunk 0 finishes last
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 5 * kTestChunk);
  EXPECT_EQ(MemoryHead(5 * kTestChunk), Head(content_, 5 * kTestChunk));
}

TEST_P(ParallelIoTest, FailedFirstChunkIsTheErrorEvenWhenLaterChunksMoved) {
  ScopedFd fd(in_path_, O_RDONLY);
  osys_.FailAt(0, EIO);
  Result<size_t> n = engine_.Read(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsErrno(EIO)) << n.status().ToString();
}

TEST_P(ParallelIoTest, ReadAcrossEndOfFileCountsToEndOfFile) {
  ScopedFd fd(in_path_, O_RDONLY);
  GpuBuffer big(gpu_, 2 * kSize, GetParam());
  Result<size_t> n = engine_.Read(fd.file(), big.At(0), 2 * kSize, kTestChunk / 2);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kSize - kTestChunk / 2);
}

TEST_P(ParallelIoTest, FailedMiddleWriteCountsOnlyTheChunksBeforeIt) {
  ScopedFd fd(out_path_, O_WRONLY);
  mem_.Upload(0, content_);
  osys_.FailAt(3 * kTestChunk, ENOSPC);
  osys_.DelayAt(0);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 3 * kTestChunk);
  const std::vector<unsigned char> written = ReadFileOrDie(out_path_);
  ASSERT_GE(written.size(), 3 * kTestChunk);
  EXPECT_EQ(Head(written, 3 * kTestChunk), Head(content_, 3 * kTestChunk));
}

TEST_P(ParallelIoTest, LargeWriteIsByteExact) {
  ScopedFd fd(out_path_, O_WRONLY);
  mem_.Upload(0, content_);
  Result<size_t> n = engine_.Write(fd.file(), mem_.At(0), kSize - 3, 3);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kSize - 3);
  std::vector<unsigned char> expected(3, 0);
  expected.insert(expected.end(), content_.begin(), content_.end() - 3);
  EXPECT_EQ(ReadFileOrDie(out_path_), expected);
}

TEST_P(ParallelIoTest, StagingStaysWithinItsCapUnderConcurrentCallers) {
  ScopedFd fd(in_path_, O_RDONLY);
  SyncEngine engine(osys_, gpu_, SmallOptions(3, 4));
  const uint64_t host_mallocs = gpu_.Calls(GpuOp::kHostMalloc);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      GpuBuffer mem(gpu_, kSize, GetParam());
      for (int round = 0; round < 3; ++round) {
        Result<size_t> n = engine.Read(fd.file(), mem.At(0), kSize, 0);
        if (!n.ok() || *n != kSize || mem.Download() != content_) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  // Three staging buffers at most, plus each thread's pinned buffer when testing pinned memory.
  EXPECT_LE(gpu_.Calls(GpuOp::kHostMalloc) - host_mallocs,
            3u + (GetParam() == hipMemoryTypeHost ? 4u : 0u));
}

INSTANTIATE_TEST_SUITE_P(Memory, ParallelIoTest,
                         ::testing::Values(hipMemoryTypeDevice, hipMemoryTypeHost),
                         [](const ::testing::TestParamInfo<hipMemoryType>& param) {
                           return param.param == hipMemoryTypeHost ? "PinnedHost" : "Device";
                         });

}  // namespace
}  // namespace hipfile::engine
