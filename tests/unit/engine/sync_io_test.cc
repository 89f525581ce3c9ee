// SPDX-License-Identifier: MIT
#include "engine/sync_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine_test_util.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kFileSize = 5 * kTestChunk + 1234;
constexpr size_t kMaxIo = 4 * kTestChunk + 77;
constexpr size_t kSlack = 64;  // room for misaligning the memory side
constexpr unsigned char kSentinel = 0xA5;

// Memory type, threads per request, page-cache path.
using SyncIoParam = std::tuple<hipMemoryType, size_t, PageCacheMode>;

class SyncIoTest : public EngineTestBase, public ::testing::WithParamInterface<SyncIoParam> {
 protected:
  hipMemoryType type() const { return std::get<0>(GetParam()); }
  EngineOptions Options(size_t buffers = 4) const {
    EngineOptions options = SmallOptions(buffers, std::get<1>(GetParam()));
    options.page_cache = std::get<2>(GetParam());
    return options;
  }
};

TEST_P(SyncIoTest, RandomReadsAreByteExact) {
  const std::string path = dir_.File("data");
  const std::vector<unsigned char> content = PatternBytes(kFileSize, 7);
  WriteFileOrDie(path, content);
  ScopedFd fd(path, O_RDONLY);
  SyncEngine engine(sys_, gpu_, Options());
  GpuBuffer mem(gpu_, kMaxIo + kSlack, type());
  std::mt19937_64 rng(42);

  for (int i = 0; i < 150; ++i) {
    // Mostly inside the file, some across and past its end.
    const size_t offset = rng() % (kFileSize + kTestChunk);
    const size_t size = i % 5 == 0 ? rng() % 100 : rng() % kMaxIo;
    const size_t shift = rng() % kSlack;
    mem.Fill(kSentinel);
    Result<size_t> n = engine.Read(fd.file(), mem.At(shift), size, static_cast<off_t>(offset));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    const size_t expected = offset >= kFileSize ? 0 : std::min(size, kFileSize - offset);
    ASSERT_EQ(*n, expected) << "offset " << offset << " size " << size;
    const std::vector<unsigned char> got = mem.Download();
    ASSERT_EQ(
        0, std::memcmp(got.data() + shift, content.data() + std::min(offset, kFileSize), expected))
        << "offset " << offset << " size " << size << " shift " << shift;
    for (size_t b = 0; b < got.size(); ++b) {
      if (b < shift || b >= shift + expected) {
        ASSERT_EQ(got[b], kSentinel) << "byte " << b << " written outside the transfer";
      }
    }
  }
}

TEST_P(SyncIoTest, RandomWritesAreByteExact) {
  const std::string path = dir_.File("data");
  std::vector<unsigned char> model = PatternBytes(2 * kTestChunk + 5, 1);
  WriteFileOrDie(path, model);
  ScopedFd fd(path, O_RDWR);
  SyncEngine engine(sys_, gpu_, Options());
  GpuBuffer mem(gpu_, kMaxIo + kSlack, type());
  std::mt19937_64 rng(43);

  for (int i = 0; i < 60; ++i) {
    const size_t offset = rng() % (model.size() + kTestChunk);
    const size_t size = i % 5 == 0 ? rng() % 100 : rng() % kMaxIo;
    const size_t shift = rng() % kSlack;
    const std::vector<unsigned char> data = PatternBytes(size, 100 + i);
    mem.Upload(shift, data);
    Result<size_t> n = engine.Write(fd.file(), mem.At(shift), size, static_cast<off_t>(offset));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_EQ(*n, size);
    if (size > 0) {
      if (model.size() < offset + size) model.resize(offset + size, 0);
      std::copy(data.begin(), data.end(), model.begin() + static_cast<ptrdiff_t>(offset));
    }
    ASSERT_EQ(ReadFileOrDie(path), model) << "after write " << i << " at " << offset;
  }
}

TEST_P(SyncIoTest, ReadAtOrBeyondEndOfFileReturnsZero) {
  const std::string path = dir_.File("data");
  WriteFileOrDie(path, PatternBytes(1000));
  ScopedFd fd(path, O_RDONLY);
  SyncEngine engine(sys_, gpu_, Options());
  GpuBuffer mem(gpu_, kTestChunk, type());

  for (off_t offset : {off_t{1000}, off_t{1001}, off_t{1} << 40}) {
    Result<size_t> n = engine.Read(fd.file(), mem.At(0), kTestChunk, offset);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 0u) << offset;
  }
}

TEST_P(SyncIoTest, SizeZeroMakesNoCall) {
  const std::string path = dir_.File("data");
  WriteFileOrDie(path, PatternBytes(1000));
  ScopedFd fd(path, O_RDWR);
  SyncEngine engine(sys_, gpu_, Options());
  GpuBuffer mem(gpu_, 16, type());
  const uint64_t host_mallocs = gpu_.Calls(GpuOp::kHostMalloc);

  Result<size_t> r = engine.Read(fd.file(), mem.At(0), 0, 10);
  Result<size_t> w = engine.Write(fd.file(), mem.At(0), 0, 10);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*r, 0u);
  EXPECT_EQ(*w, 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), host_mallocs);
}

TEST_P(SyncIoTest, ConcurrentDisjointReadsAndWrites) {
  constexpr int kThreads = 8;
  constexpr size_t kSlice = 3 * kTestChunk + 999;  // not a multiple of the chunk
  const std::string in_path = dir_.File("in");
  const std::string out_path = dir_.File("out");
  const std::vector<unsigned char> content = PatternBytes(kThreads * kSlice, 9);
  WriteFileOrDie(in_path, content);
  WriteFileOrDie(out_path, {});
  ScopedFd in(in_path, O_RDONLY);
  ScopedFd out(out_path, O_WRONLY);
  // Fewer staging buffers than threads: callers must wait for one another.
  SyncEngine engine(sys_, gpu_, Options(3));

  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      GpuBuffer mem(gpu_, kSlice, type());
      const off_t offset = static_cast<off_t>(t * kSlice);
      for (int round = 0; round < 5; ++round) {
        Result<size_t> r = engine.Read(in.file(), mem.At(0), kSlice, offset);
        Result<size_t> w = engine.Write(out.file(), mem.At(0), kSlice, offset);
        if (!r.ok() || *r != kSlice || !w.ok() || *w != kSlice) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
  EXPECT_EQ(ReadFileOrDie(out_path), content);
  EXPECT_LE(gpu_.Calls(GpuOp::kHostMalloc), 3u + (type() == hipMemoryTypeHost ? kThreads : 0));
}

INSTANTIATE_TEST_SUITE_P(
    Memory, SyncIoTest,
    ::testing::Combine(::testing::Values(hipMemoryTypeDevice, hipMemoryTypeHost),
                       ::testing::Values(size_t{1}, size_t{4}),
                       ::testing::Values(PageCacheMode::kOff, PageCacheMode::kOn)),
    [](const ::testing::TestParamInfo<SyncIoParam>& param) {
      std::string name = std::get<0>(param.param) == hipMemoryTypeHost ? "PinnedHost" : "Device";
      name += "_Threads" + std::to_string(std::get<1>(param.param));
      name += std::get<2>(param.param) == PageCacheMode::kOn ? "_PageCache" : "_NoPageCache";
      return name;
    });

class SyncIoStagingTest : public EngineTestBase {};

// Regression (found by the API fuzzer): a huge but valid pinned-memory parameter made the
// engine pin all of it when built.
TEST_F(SyncIoStagingTest, PinnedStagingIsCappedAtAQuarterOfMemory) {
  class SmallMachine : public testing::FaultSys {
   public:
    uint64_t PhysicalMemoryBytes() override { return 64u << 20; }
  } sys;
  EngineOptions options = SmallOptions();
  options.max_staging_bytes = size_t{1} << 40;
  options.preallocate_staging = true;
  SyncEngine engine(sys, gpu_, options);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), (16u << 20) / kTestChunk);
}

TEST_F(SyncIoStagingTest, PinnedHostMemoryIsNotStaged) {
  const std::string path = dir_.File("data");
  const std::vector<unsigned char> content = PatternBytes(3 * kTestChunk, 3);
  WriteFileOrDie(path, content);
  ScopedFd fd(path, O_RDWR);
  SyncEngine engine(sys_, gpu_, SmallOptions());
  GpuBuffer mem(gpu_, content.size(), hipMemoryTypeHost);
  const uint64_t host_mallocs = gpu_.Calls(GpuOp::kHostMalloc);

  Result<size_t> n = engine.Read(fd.file(), mem.At(0), content.size(), 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, content.size());
  EXPECT_EQ(0, std::memcmp(mem.data(), content.data(), content.size()));
  Result<size_t> w = engine.Write(fd.file(), mem.At(0), content.size(), 100);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, content.size());
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), host_mallocs);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMemcpy) + gpu_.Calls(GpuOp::kMemcpyAsync), 0u);
}

TEST_F(SyncIoStagingTest, StagingBuffersAreReusedAcrossCalls) {
  const std::string path = dir_.File("data");
  const std::vector<unsigned char> content = PatternBytes(4 * kTestChunk + 10, 4);
  WriteFileOrDie(path, content);
  ScopedFd fd(path, O_RDWR);
  const EngineOptions options = SmallOptions(3);
  SyncEngine engine(sys_, gpu_, options);
  GpuBuffer mem(gpu_, content.size(), hipMemoryTypeDevice);
  const uint64_t host_mallocs = gpu_.Calls(GpuOp::kHostMalloc);

  for (int i = 0; i < 100; ++i) {
    Result<size_t> n = i % 2 ? engine.Read(fd.file(), mem.At(0), content.size(), 0)
                             : engine.Write(fd.file(), mem.At(0), content.size(), 0);
    ASSERT_TRUE(n.ok());
    ASSERT_EQ(*n, content.size());
  }
  const uint64_t made = gpu_.Calls(GpuOp::kHostMalloc) - host_mallocs;
  EXPECT_GE(made, 1u);
  EXPECT_LE(made, options.max_staging_bytes / options.chunk_bytes);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostFree), 0u);
  EXPECT_LE(gpu_.Calls(GpuOp::kStreamCreate), made);
}

TEST_F(SyncIoStagingTest, PreallocatedStagingIsPinnedAtConstructionAndNeverDuringIo) {
  // Pinning memory during I/O can deadlock with a stream waiting on stream-ordered I/O (CUDA's
  // implicit synchronization), so the engine pins everything up front.
  const std::string path = dir_.File("data");
  const std::vector<unsigned char> content = PatternBytes(4 * kTestChunk + 10, 6);
  WriteFileOrDie(path, content);
  ScopedFd fd(path, O_RDWR);
  EngineOptions options = SmallOptions(3, 2);
  options.preallocate_staging = true;
  const uint64_t before = gpu_.Calls(GpuOp::kHostMalloc);
  SyncEngine engine(sys_, gpu_, options);
  const uint64_t after_construction = gpu_.Calls(GpuOp::kHostMalloc);
  EXPECT_EQ(after_construction - before, 3u);
  GpuBuffer mem(gpu_, content.size(), hipMemoryTypeDevice);
  const uint64_t before_io = gpu_.Calls(GpuOp::kHostMalloc);
  for (int i = 0; i < 10; ++i) {
    Result<size_t> n = i % 2 ? engine.Read(fd.file(), mem.At(0), content.size(), 0)
                             : engine.Write(fd.file(), mem.At(0), content.size(), 0);
    ASSERT_TRUE(n.ok());
    ASSERT_EQ(*n, content.size());
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), before_io);
}

TEST_F(SyncIoStagingTest, DestructorFreesStagingBuffers) {
  const std::string path = dir_.File("data");
  WriteFileOrDie(path, PatternBytes(3 * kTestChunk, 5));
  ScopedFd fd(path, O_RDONLY);
  uint64_t made = 0;
  {
    SyncEngine engine(sys_, gpu_, SmallOptions());
    GpuBuffer mem(gpu_, 3 * kTestChunk, hipMemoryTypeDevice);
    ASSERT_TRUE(engine.Read(fd.file(), mem.At(0), 3 * kTestChunk, 0).ok());
    made = gpu_.Calls(GpuOp::kHostMalloc);
    ASSERT_GE(made, 1u);
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostFree), made);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamDestroy), gpu_.Calls(GpuOp::kStreamCreate));
}

TEST_F(SyncIoStagingTest, OneStagingBufferStillWorks) {
  const std::string path = dir_.File("data");
  const std::vector<unsigned char> content = PatternBytes(3 * kTestChunk + 3, 6);
  WriteFileOrDie(path, content);
  ScopedFd fd(path, O_RDWR);
  EngineOptions options = SmallOptions(1);
  SyncEngine engine(sys_, gpu_, options);
  GpuBuffer mem(gpu_, content.size(), hipMemoryTypeDevice);

  Result<size_t> n = engine.Read(fd.file(), mem.At(0), content.size(), 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, content.size());
  EXPECT_EQ(mem.Download(), content);
  Result<size_t> w = engine.Write(fd.file(), mem.At(0), content.size(), 7);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, content.size());
  std::vector<unsigned char> expected(content.begin(), content.begin() + 7);
  expected.insert(expected.end(), content.begin(), content.end());
  EXPECT_EQ(ReadFileOrDie(path), expected);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostMalloc), 1u);  // the one staging buffer allowed
}

}  // namespace
}  // namespace hipfile::engine
