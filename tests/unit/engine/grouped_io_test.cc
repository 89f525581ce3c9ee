// SPDX-License-Identifier: MIT
// SyncEngine::RunMany: small staged transfers moved as a group (engine/grouped_io.h) - every
// entry byte-exact with its own POSIX result, one copy wait per group, faults confined to the
// entries they hit.
#include <errno.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine/sync_io.h"
#include "engine_test_util.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kFileSize = 8 * kTestChunk;

class GroupedIoTest : public EngineTestBase {
 protected:
  void SetUp() override {
    WriteFileOrDie(in_path_, content_);
    WriteFileOrDie(out_path_, std::vector<unsigned char>(kFileSize, 0));
  }

  IoRequest ReadAt(const IoFile& file, size_t mem_offset, size_t size, off_t offset) {
    IoRequest io;
    io.file = &file;
    io.memory = mem_.At(mem_offset);
    io.size = size;
    io.offset = offset;
    return io;
  }
  IoRequest WriteAt(const IoFile& file, size_t mem_offset, size_t size, off_t offset) {
    IoRequest io = ReadAt(file, mem_offset, size, offset);
    io.write = true;
    return io;
  }
  std::vector<Result<size_t>> Run(const std::vector<IoRequest>& ios) { return Run(engine_, ios); }
  static std::vector<Result<size_t>> Run(SyncEngine& engine, const std::vector<IoRequest>& ios) {
    std::vector<Result<size_t>> results(ios.size(), size_t{0});
    engine.RunMany(ios.data(), ios.size(), results.data());
    return results;
  }
  std::vector<unsigned char> Device(size_t offset, size_t size) {
    const std::vector<unsigned char> all = mem_.Download();
    return {all.begin() + static_cast<ptrdiff_t>(offset),
            all.begin() + static_cast<ptrdiff_t>(offset + size)};
  }
  std::vector<unsigned char> Content(size_t offset, size_t size) const {
    return {content_.begin() + static_cast<ptrdiff_t>(offset),
            content_.begin() + static_cast<ptrdiff_t>(offset + size)};
  }

  const std::vector<unsigned char> content_ = PatternBytes(kFileSize, 23);
  const std::string in_path_ = dir_.File("in");
  const std::string out_path_ = dir_.File("out");
  GpuBuffer mem_{gpu_, kFileSize, hipMemoryTypeDevice};
  SyncEngine engine_{sys_, gpu_, Options(/*io_uring=*/true)};

  // No polling: every wait for copies queries the stream exactly once. io_uring as asked (the
  // tests that fail the n-th pread or pwrite run without it: ring completions are counted apart).
  static EngineOptions Options(bool io_uring) {
    EngineOptions options = SmallOptions();
    options.copy_spin_us = 0;
    options.io_uring = io_uring;
    return options;
  }
};

TEST_F(GroupedIoTest, RandomSmallReadsAreByteExactWithOneCopyWait) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  std::mt19937 rng(7);
  std::vector<IoRequest> ios;
  std::vector<size_t> at;  // where each entry lands in device memory
  size_t mem = 0;
  for (int i = 0; i < 12; ++i) {
    const size_t size = 1 + rng() % 4096;
    const off_t offset = static_cast<off_t>(rng() % (kFileSize - size));
    ios.push_back(ReadAt(file, mem, size, offset));
    at.push_back(mem);
    mem += size + 3;  // odd device addresses too
  }
  mem_.Fill(0);
  gpu_.Reset();
  const std::vector<Result<size_t>> results = Run(ios);
  for (size_t i = 0; i < ios.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status().ToString();
    EXPECT_EQ(*results[i], ios[i].size);
    EXPECT_EQ(Device(at[i], ios[i].size), Content(static_cast<size_t>(ios[i].offset), ios[i].size))
        << "entry " << i;
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kMemcpyAsync), ios.size());
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 1u);  // one wait for the whole group
}

// The copy wait polls a copy that is not done yet: back to back by default, with a nap (a short
// sleep through Sys) between polls when asked - and either way the entries arrive.
TEST_F(GroupedIoTest, AWaitNapsBetweenPollsOnlyWhenAsked) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  const std::vector<IoRequest> ios = {ReadAt(file, 0, 4096, 8192), ReadAt(file, 4096, 100, 3)};
  for (const unsigned nap_us : {0u, 5u}) {
    EngineOptions options = Options(/*io_uring=*/true);
    options.copy_spin_us = 10000000;  // the test's polls end the wait, not the deadline
    options.copy_nap_us = nap_us;
    SyncEngine engine(sys_, gpu_, options);
    mem_.Fill(0);
    gpu_.Reset();
    gpu_.FailTimes(GpuOp::kStreamQuery, 3, hipErrorNotReady);  // "not done" three times
    const uint64_t naps_before = sys_.naps();
    const std::vector<Result<size_t>> results = Run(engine, ios);
    for (size_t i = 0; i < ios.size(); ++i) {
      ASSERT_TRUE(results[i].ok()) << "nap " << nap_us << ", entry " << i;
      EXPECT_EQ(Device(i * 4096, ios[i].size),
                Content(static_cast<size_t>(ios[i].offset), ios[i].size));
    }
    // The three refusals, then the runtime's own answers until the copy is done (the CPU
    // runtime copies on a thread of its own); a nap after every poll but the last.
    const uint64_t polls = gpu_.Calls(GpuOp::kStreamQuery);
    EXPECT_GE(polls, 4u);
    EXPECT_EQ(sys_.naps() - naps_before, nap_us == 0 ? 0u : polls - 1) << "nap " << nap_us;
  }
}

TEST_F(GroupedIoTest, WritesReachTheirFilesAfterOneCopyWait) {
  ScopedFd fd(out_path_, O_WRONLY);
  const IoFile file = fd.file();
  mem_.Upload(0, content_);
  std::vector<IoRequest> ios;
  for (size_t i = 0; i < 8; ++i) {
    ios.push_back(WriteAt(file, i * 8192, 4096 + i, static_cast<off_t>(i * 8192 + 100)));
  }
  gpu_.Reset();
  const std::vector<Result<size_t>> results = Run(ios);
  const std::vector<unsigned char> written = ReadFileOrDie(out_path_);
  for (size_t i = 0; i < ios.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status().ToString();
    EXPECT_EQ(*results[i], ios[i].size);
    const size_t off = static_cast<size_t>(ios[i].offset);
    EXPECT_EQ(std::vector<unsigned char>(written.begin() + static_cast<ptrdiff_t>(off),
                                         written.begin() + static_cast<ptrdiff_t>(off) +
                                             static_cast<ptrdiff_t>(ios[i].size)),
              Content(i * 8192, ios[i].size));
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 1u);
}

TEST_F(GroupedIoTest, MixedReadsAndWritesEndOfFileAndLargeEntries) {
  ScopedFd in(in_path_, O_RDONLY);
  ScopedFd out(out_path_, O_WRONLY);
  const IoFile in_file = in.file();
  const IoFile out_file = out.file();
  mem_.Upload(0, content_);
  std::vector<IoRequest> ios;
  ios.push_back(WriteAt(out_file, 0, 4096, 0));
  ios.push_back(ReadAt(in_file, 4 * kTestChunk, 4096, static_cast<off_t>(kFileSize - 1000)));
  ios.push_back(ReadAt(in_file, 5 * kTestChunk, 4096, static_cast<off_t>(kFileSize + 10)));
  // Larger than a staging buffer: runs alone through Read.
  ios.push_back(ReadAt(in_file, 6 * kTestChunk, 2 * kTestChunk, 0));
  ios.push_back(WriteAt(out_file, 4096, 4096, 4096));
  const std::vector<Result<size_t>> results = Run(ios);
  for (const Result<size_t>& r : results) ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*results[0], 4096u);
  EXPECT_EQ(*results[1], 1000u);  // short: end of file
  EXPECT_EQ(Device(4 * kTestChunk, 1000), Content(kFileSize - 1000, 1000));
  EXPECT_EQ(*results[2], 0u);  // past end of file
  EXPECT_EQ(*results[3], 2 * kTestChunk);
  EXPECT_EQ(Device(6 * kTestChunk, 2 * kTestChunk), Content(0, 2 * kTestChunk));
  EXPECT_EQ(*results[4], 4096u);
  const std::vector<unsigned char> written = ReadFileOrDie(out_path_);
  EXPECT_EQ(std::vector<unsigned char>(written.begin(), written.begin() + 8192), Content(0, 8192));
}

TEST_F(GroupedIoTest, MoreThanABufferRunsInRounds) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  std::vector<IoRequest> ios;
  for (size_t i = 0; i < 40; ++i) {  // 40 x 4 KiB slices in 64 KiB buffers: 3 rounds
    ios.push_back(ReadAt(file, i * 4096, 4096, static_cast<off_t>(kFileSize - (i + 1) * 4096)));
  }
  mem_.Fill(0);
  gpu_.Reset();
  const std::vector<Result<size_t>> results = Run(ios);
  for (size_t i = 0; i < ios.size(); ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(Device(i * 4096, 4096), Content(kFileSize - (i + 1) * 4096, 4096));
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamQuery), 3u);
}

TEST_F(GroupedIoTest, ASystemCallFailureStaysInItsEntry) {
  SyncEngine serial(sys_, gpu_, Options(/*io_uring=*/false));
  ScopedFd in(in_path_, O_RDONLY);
  ScopedFd out(out_path_, O_WRONLY);
  IoFile bad = in.file();
  bad.buffered_fd = 1 << 20;  // never open
  const IoFile in_file = in.file();
  const IoFile out_file = out.file();
  mem_.Fill(0);
  std::vector<IoRequest> ios;
  ios.push_back(ReadAt(in_file, 0, 4096, 0));
  ios.push_back(ReadAt(bad, 4096, 4096, 0));
  ios.push_back(ReadAt(in_file, 8192, 4096, 4096));
  sys_.FailNth(SysOp::kPread, 3, EIO);  // the third entry's pread
  ios.push_back(ReadAt(in_file, 12288, 4096, 8192));
  std::vector<Result<size_t>> results = Run(serial, ios);
  ASSERT_TRUE(results[0].ok());
  EXPECT_EQ(Device(0, 4096), Content(0, 4096));
  EXPECT_TRUE(results[1].status().IsErrno(EBADF)) << results[1].status().ToString();
  EXPECT_TRUE(results[2].status().IsErrno(EIO)) << results[2].status().ToString();
  EXPECT_EQ(Device(8192, 4096), std::vector<unsigned char>(4096, 0));  // nothing copied
  ASSERT_TRUE(results[3].ok());
  EXPECT_EQ(Device(12288, 4096), Content(8192, 4096));

  // ENOSPC on one write: that entry reports it, the others are written.
  sys_.Reset();
  mem_.Upload(0, content_);
  ios = {WriteAt(out_file, 0, 4096, 0), WriteAt(out_file, 4096, 4096, 4096),
         WriteAt(out_file, 8192, 4096, 8192)};
  sys_.FailNth(SysOp::kPwrite, 2, ENOSPC);
  results = Run(serial, ios);
  ASSERT_TRUE(results[0].ok());
  EXPECT_TRUE(results[1].status().IsErrno(ENOSPC));
  ASSERT_TRUE(results[2].ok());
  const std::vector<unsigned char> written = ReadFileOrDie(out_path_);
  EXPECT_EQ(std::vector<unsigned char>(written.begin() + 8192, written.begin() + 12288),
            Content(8192, 4096));
  EXPECT_EQ(std::vector<unsigned char>(written.begin() + 4096, written.begin() + 8192),
            std::vector<unsigned char>(4096, 0));
}

TEST_F(GroupedIoTest, TheRingAndSerialSystemCallsGiveTheSameResults) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  IoFile bad = file;
  bad.buffered_fd = 1 << 20;  // never open
  std::vector<IoRequest> ios;
  for (size_t i = 0; i < 24; ++i) {
    const off_t offset = static_cast<off_t>(i == 23 ? kFileSize - 100 : (i * 7919) % kFileSize);
    ios.push_back(ReadAt(i == 5 ? bad : file, i * 4096, 4096, offset));
  }
  SyncEngine serial(sys_, gpu_, Options(/*io_uring=*/false));
  mem_.Fill(0);
  const std::vector<Result<size_t>> ring_results = Run(ios);
  const std::vector<unsigned char> ring_bytes = mem_.Download();
  mem_.Fill(0);
  const std::vector<Result<size_t>> serial_results = Run(serial, ios);
  EXPECT_EQ(mem_.Download(), ring_bytes);
  for (size_t i = 0; i < ios.size(); ++i) {
    ASSERT_EQ(ring_results[i].ok(), serial_results[i].ok()) << i;
    if (ring_results[i].ok()) {
      EXPECT_EQ(*ring_results[i], *serial_results[i]) << i;
    } else {
      EXPECT_EQ(ring_results[i].status().ToString(), serial_results[i].status().ToString());
    }
  }
  EXPECT_TRUE(ring_results[5].status().IsErrno(EBADF)) << ring_results[5].status().ToString();
  EXPECT_EQ(*ring_results[23], 100u);
  EXPECT_EQ(Device(0, 4096), Content(0, 4096));
}

TEST_F(GroupedIoTest, ACopyFailureFailsItsEntryAWaitFailureFailsTheGroup) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  const std::vector<IoRequest> ios = {ReadAt(file, 0, 4096, 0), ReadAt(file, 4096, 4096, 4096),
                                      ReadAt(file, 8192, 4096, 8192)};
  gpu_.FailNth(GpuOp::kMemcpyAsync, 2, hipErrorLaunchFailure);
  std::vector<Result<size_t>> results = Run(ios);
  ASSERT_TRUE(results[0].ok());
  EXPECT_TRUE(results[1].status().IsGpu(hipErrorLaunchFailure)) << results[1].status().ToString();
  ASSERT_TRUE(results[2].ok());
  EXPECT_EQ(Device(8192, 4096), Content(8192, 4096));

  // The wait cannot say which copy failed: every entry with a copy queued fails.
  gpu_.Reset();
  gpu_.FailAlways(GpuOp::kStreamQuery, hipErrorIllegalAddress);
  results = Run(ios);
  for (const Result<size_t>& r : results) {
    EXPECT_TRUE(r.status().IsGpu(hipErrorIllegalAddress)) << r.status().ToString();
  }
}

TEST_F(GroupedIoTest, NoStagingMemoryFailsEveryEntryWithoutTouchingTheFile) {
  ScopedFd fd(in_path_, O_RDONLY);
  const IoFile file = fd.file();
  const std::vector<IoRequest> ios = {ReadAt(file, 0, 4096, 0), ReadAt(file, 4096, 4096, 4096)};
  gpu_.FailAlways(GpuOp::kHostMalloc, hipErrorOutOfMemory);
  const std::vector<Result<size_t>> results = Run(ios);
  for (const Result<size_t>& r : results) {
    EXPECT_TRUE(r.status().IsGpu(hipErrorOutOfMemory)) << r.status().ToString();
  }
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);
}

}  // namespace
}  // namespace hipfile::engine
