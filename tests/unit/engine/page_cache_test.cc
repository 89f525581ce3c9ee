// SPDX-License-Identifier: MIT
// The page-cache path through the engine (resident data read again is copied from pinned
// windows of a file mapping kept between requests), on the CPU runtime behind FaultRuntime,
// which makes the engine treat device memory as a GPU's.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/sync_io.h"
#include "engine_test_util.h"
#include "util/align.h"
#include "util/log.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kFileSize = 9 * kTestChunk + 4321;
constexpr size_t kWindow = 2 * kTestChunk;  // SmallOptions' page_cache_window_bytes
constexpr size_t kWindows = (kFileSize + kWindow - 1) / kWindow;

class PageCacheTest : public EngineTestBase {
 protected:
  void SetUp() override { WriteFileOrDie(path_, content_); }
  EngineOptions CacheOptions(unsigned pin_after_uses = 1, size_t threads = 2) const {
    EngineOptions options = SmallOptions(8, threads);
    options.page_cache = PageCacheMode::kOn;
    options.page_cache_pin_after_uses = pin_after_uses;
    return options;
  }
  // The file as registration describes it, identity included.
  static IoFile Described(const ScopedFd& fd) {
    IoFile file = fd.file();
    struct stat st = {};
    EXPECT_EQ(::fstat(fd.get(), &st), 0);
    file.dev = st.st_dev;
    file.ino = st.st_ino;
    return file;
  }
  void ReadAllAndCheck(SyncEngine& engine, const ScopedFd& fd, GpuBuffer& mem,
                       const std::vector<unsigned char>& expected) {
    mem.Fill(0);
    Result<size_t> n = engine.Read(fd.file(), mem.At(0), expected.size(), 0);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_EQ(*n, expected.size());
    ASSERT_EQ(mem.Download(), expected);
  }

  const std::string path_ = dir_.File("data");
  const std::vector<unsigned char> content_ = PatternBytes(kFileSize, 31);
};

TEST_F(PageCacheTest, AutoIsOnForGpuMemoryAndOffWhereDeviceMemoryIsHostMemory) {
  EXPECT_TRUE(SyncEngine(sys_, gpu_, SmallOptions()).page_cache_enabled());

  gpu_.SetDeviceMemoryIsHostMemory(true);
  SyncEngine engine(sys_, gpu_, SmallOptions());
  EXPECT_FALSE(engine.page_cache_enabled());
  ScopedFd fd(path_, O_RDONLY);
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  // Read straight into the device memory: no staging copy, no pin.
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMemcpyAsync), 0u);
}

TEST_F(PageCacheTest, WarmReadsAreCopiedFromPinnedWindowsByteExact) {
  ScopedFd fd(path_, O_RDONLY);
  GpuBuffer mem(gpu_, kFileSize + 64, hipMemoryTypeDevice);
  {
    SyncEngine engine(sys_, gpu_, CacheOptions());
    ASSERT_TRUE(engine.page_cache_enabled());
    std::mt19937_64 rng(5);
    for (int i = 0; i < 60; ++i) {
      const size_t offset = rng() % kFileSize;
      const size_t size = kTestChunk + rng() % (kFileSize - kTestChunk);
      const size_t shift = rng() % 64;
      mem.Fill(0xA5);
      Result<size_t> n = engine.Read(fd.file(), mem.At(shift), size, static_cast<off_t>(offset));
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      const size_t expected = std::min(size, kFileSize - offset);
      ASSERT_EQ(*n, expected);
      const std::vector<unsigned char> got = mem.Download();
      ASSERT_EQ(0, std::memcmp(got.data() + shift, content_.data() + offset, expected))
          << "offset " << offset << " size " << size;
      ASSERT_EQ(got[shift + expected], 0xA5) << "wrote past the transfer";
      if (shift > 0) {
        ASSERT_EQ(got[shift - 1], 0xA5) << "wrote before the transfer";
      }
    }
    // Each window pinned once, the file mapped once, nothing unpinned while the engine lives.
    EXPECT_GT(gpu_.Calls(GpuOp::kHostRegister), 0u);
    EXPECT_LE(gpu_.Calls(GpuOp::kHostRegister), kWindows);
    EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u);
    EXPECT_EQ(sys_.Calls(SysOp::kMmap), 1u);
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), gpu_.Calls(GpuOp::kHostRegister));
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), sys_.Calls(SysOp::kMmap));
}

TEST_F(PageCacheTest, WindowsArePinnedOnTheReadThatMakesThemDue) {
  ScopedFd fd(path_, O_RDONLY);
  SyncEngine engine(sys_, gpu_, CacheOptions(/*pin_after_uses=*/2));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u) << "read once: through staging";
  ReadAllAndCheck(engine, fd, mem, content_);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), kWindows);
  EXPECT_EQ(engine.pinned_page_cache_bytes(), AlignUp(kFileSize, 4096));
  const uint64_t staged_copies = gpu_.Calls(GpuOp::kMemcpyAsync);
  ReadAllAndCheck(engine, fd, mem, content_);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), kWindows) << "pinned windows are reused";
  EXPECT_EQ(gpu_.Calls(GpuOp::kMemcpyAsync), staged_copies + kWindows) << "one copy per window";
}

// Pin-ahead: one pass reads data read once through pinned windows, byte exact, every window
// pinned once (by the reader or a pinner thread), in several passes of chunks read in order.
TEST_F(PageCacheTest, OnePassWithPinAheadCopiesFromPinnedWindows) {
  ScopedFd fd(path_, O_RDONLY);
  EngineOptions options = CacheOptions(/*pin_after_uses=*/2, /*threads=*/1);
  options.page_cache_pin_ahead_windows = 2;
  SyncEngine engine(sys_, gpu_, options);
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  EXPECT_GE(gpu_.Calls(GpuOp::kHostRegister), 1u) << "read once, yet pinned";
  EXPECT_LE(gpu_.Calls(GpuOp::kHostRegister), kWindows);
  // Chunk by chunk, as a loader reads tensors in file order: each read finds its window pinned
  // or pins it.
  GpuBuffer piece(gpu_, kTestChunk, hipMemoryTypeDevice);
  for (size_t off = 0; off < kFileSize; off += kTestChunk) {
    const size_t n = std::min(kTestChunk, kFileSize - off);
    Result<size_t> got = engine.Read(fd.file(), piece.At(0), n, static_cast<off_t>(off));
    ASSERT_TRUE(got.ok() && *got == n);
    std::vector<unsigned char> bytes = piece.Download();
    ASSERT_TRUE(std::equal(bytes.begin(), bytes.begin() + static_cast<long>(n),
                           content_.begin() + static_cast<long>(off)));
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), kWindows) << "every window pinned once";
}

TEST_F(PageCacheTest, AChangedFileIsMappedAgainAndItsOldWindowsRetire) {
  ScopedFd fd(path_, O_RDWR);
  SyncEngine engine(sys_, gpu_, CacheOptions());
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  ASSERT_EQ(gpu_.Calls(GpuOp::kHostRegister), kWindows);

  // Truncated and written again at the same size: the old pages left the page cache.
  const std::vector<unsigned char> changed = PatternBytes(kFileSize, 32);
  ASSERT_EQ(::ftruncate(fd.get(), 0), 0);
  ASSERT_EQ(::pwrite(fd.get(), changed.data(), changed.size(), 0),
            static_cast<ssize_t>(changed.size()));
  ReadAllAndCheck(engine, fd, mem, changed);
  EXPECT_EQ(sys_.Calls(SysOp::kMmap), 2u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 2 * kWindows);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u) << "never unpinned on the I/O path";

  EXPECT_EQ(engine.UnpinRetired(), kWindows);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), kWindows);
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), 1u) << "the old mapping goes with its last window";
  ReadAllAndCheck(engine, fd, mem, changed);
}

TEST_F(PageCacheTest, ForgettingAFileUnpinsItsWindowsAndUnmapsIt) {
  ScopedFd fd(path_, O_RDONLY);
  SyncEngine engine(sys_, gpu_, CacheOptions());
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  engine.ForgetFile(Described(fd));
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u) << "forgetting makes no GPU call";
  EXPECT_EQ(engine.UnpinRetired(), kWindows);
  EXPECT_EQ(engine.UnpinRetired(), 0u);
  EXPECT_EQ(engine.pinned_page_cache_bytes(), 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), 1u);
  ReadAllAndCheck(engine, fd, mem, content_);  // mapped and pinned again
  EXPECT_EQ(sys_.Calls(SysOp::kMmap), 2u);
}

TEST_F(PageCacheTest, PinnedBytesStayUnderTheCap) {
  ScopedFd fd(path_, O_RDONLY);
  EngineOptions options = CacheOptions();
  options.page_cache_max_pinned_bytes = 2 * kWindow;
  SyncEngine engine(sys_, gpu_, options);
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kWarn);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) ReadAllAndCheck(engine, fd, mem, content_);
  const std::string log = ::testing::internal::GetCapturedStderr();
  SetLogLevel(level);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 2u);
  EXPECT_EQ(engine.pinned_page_cache_bytes(), 2 * kWindow);
  // A fallback that costs speed: said at warn, once.
  const size_t at = log.find("hipfile[warn]: page-cache pin limit reached");
  EXPECT_NE(at, std::string::npos) << log;
  EXPECT_EQ(log.find("pin limit reached", log.find('\n', at)), std::string::npos) << log;
}

TEST_F(PageCacheTest, ReadPastAShrunkenFileStopsAtItsNewEnd) {
  ScopedFd fd(path_, O_RDWR);
  SyncEngine engine(sys_, gpu_, CacheOptions());
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ReadAllAndCheck(engine, fd, mem, content_);
  ASSERT_EQ(::ftruncate(fd.get(), 3 * kTestChunk + 5), 0);
  Result<size_t> n = engine.Read(fd.file(), mem.At(0), kFileSize, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3 * kTestChunk + 5);
  EXPECT_EQ(0, std::memcmp(mem.Download().data(), content_.data(), *n));
  Result<size_t> past = engine.Read(fd.file(), mem.At(0), kFileSize, 4 * kTestChunk);
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(*past, 0u);
}

TEST_F(PageCacheTest, RefusedPinningFallsBackToStagingAndIsNotRetried) {
  ScopedFd fd(path_, O_RDONLY);
  SyncEngine engine(sys_, gpu_, CacheOptions(1, 1));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  gpu_.FailAlways(GpuOp::kHostRegister, hipErrorNotSupported);
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kWarn);
  ::testing::internal::CaptureStderr();
  ReadAllAndCheck(engine, fd, mem, content_);
  ReadAllAndCheck(engine, fd, mem, content_);
  const std::string log = ::testing::internal::GetCapturedStderr();
  SetLogLevel(level);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 1u);
  EXPECT_EQ(engine.pinned_page_cache_bytes(), 0u);
  const size_t at =
      log.find("hipfile[warn]: pinning a page-cache window failed (hipErrorNotSupported");
  EXPECT_NE(at, std::string::npos) << log;
  EXPECT_EQ(log.find("window failed", log.find('\n', at)), std::string::npos) << log;
}

TEST_F(PageCacheTest, FailedResidencyLookupFallsBackToBufferedReads) {
  ScopedFd fd(path_, O_RDONLY);
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  for (SysOp op : {SysOp::kMincore, SysOp::kMmap, SysOp::kFstat}) {
    SCOPED_TRACE(static_cast<int>(op));
    sys_.Reset();
    gpu_.Reset();
    SyncEngine engine(sys_, gpu_, CacheOptions());
    sys_.FailAlways(op, ENOMEM);
    ReadAllAndCheck(engine, fd, mem, content_);
    EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u);
  }
}

TEST_F(PageCacheTest, CopyFailureReportsTheBytesBeforeItAndKeepsTheWindow) {
  ScopedFd fd(path_, O_RDONLY);
  SyncEngine engine(sys_, gpu_, CacheOptions(1, 1));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  gpu_.FailNth(GpuOp::kMemcpyAsync, 2, hipErrorIllegalAddress);
  Result<size_t> n = engine.Read(fd.file(), mem.At(0), kFileSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kWindow);  // the first window
  EXPECT_EQ(0, std::memcmp(mem.Download().data(), content_.data(), kWindow));
  ReadAllAndCheck(engine, fd, mem, content_);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), kWindows);
}

}  // namespace
}  // namespace hipfile::engine
