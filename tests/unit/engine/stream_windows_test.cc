// SPDX-License-Identifier: MIT
// The page-cache side of a staged stream-ordered read (engine/stream_windows.h): the engine's
// decision for the same read (SyncEngine::PlanStreamWindows), pinned windows taken as they are,
// and windows that become due pinned by the pinner threads - never by the asking thread, which
// serves a stream and must make no runtime call (PageCachePins::FindOrQueue).
#include "engine/stream_windows.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/sync_io.h"
#include "engine_test_util.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kWindow = 2 * kTestChunk;  // SmallOptions' page_cache_window_bytes
constexpr size_t kFileSize = 4 * kWindow + 100;

class StreamWindowsTest : public EngineTestBase {
 protected:
  void SetUp() override { WriteFileOrDie(path_, content_); }
  static EngineOptions CacheOptions(unsigned pin_after_uses = 2) {
    EngineOptions options = SmallOptions(8, 2);
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

  const std::string path_ = dir_.File("data");
  const std::vector<unsigned char> content_ = PatternBytes(kFileSize, 17);
};

TEST_F(StreamWindowsTest, TheReadsOwnDecisionSaysWhetherThereAreWindows) {
  ScopedFd fd(path_, O_RDONLY);
  GpuBuffer device(gpu_, kFileSize, hipMemoryTypeDevice);
  GpuBuffer host(gpu_, kFileSize, hipMemoryTypeHost);
  SyncEngine engine(sys_, gpu_, CacheOptions());
  EXPECT_NE(engine.PlanStreamWindows(fd.file(), device.At(0), kFileSize, 0, true), nullptr);
  EXPECT_EQ(engine.PlanStreamWindows(fd.file(), host.At(0), kFileSize, 0, true), nullptr)
      << "host memory is read into directly";
  EXPECT_EQ(engine.PlanStreamWindows(fd.file(), device.At(0), kFileSize, 0, false), nullptr)
      << "a direct-only read looks no residency up";
  EXPECT_EQ(engine.PlanStreamWindows(fd.file(), device.At(0), kTestChunk - 1, 0, true), nullptr)
      << "below residency_min_bytes";
  EXPECT_EQ(engine.PlanStreamWindows(fd.file(), device.At(0), kFileSize, kFileSize, true), nullptr)
      << "at end of file";
  EngineOptions off = CacheOptions();
  off.page_cache = PageCacheMode::kOff;
  SyncEngine no_cache(sys_, gpu_, off);
  EXPECT_EQ(no_cache.PlanStreamWindows(fd.file(), device.At(0), kFileSize, 0, true), nullptr);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u) << "planning pins nothing";
}

TEST_F(StreamWindowsTest, DueWindowsArePinnedByThePinnersAndTakenOnceThey) {
  ScopedFd fd(path_, O_RDONLY);
  GpuBuffer device(gpu_, kFileSize, hipMemoryTypeDevice);
  SyncEngine engine(sys_, gpu_, CacheOptions());
  std::atomic<int> pins_here{0};
  std::atomic<int> pins{0};
  const std::thread::id me = std::this_thread::get_id();
  gpu_.BeforeCall(GpuOp::kHostRegister, [&] {
    ++pins;
    char name[16] = {};
    prctl(PR_GET_NAME, name);
    if (std::this_thread::get_id() == me || std::strncmp(name, "hf-pin", 6) != 0) ++pins_here;
  });
  // The first read of window 0 stages it, to the window's end (a page-cache chunk is a window);
  // asked again within that read, it is not read again. The second read makes it due: queued
  // for a pinner, staged meanwhile.
  for (int read = 0; read < 2; ++read) {
    std::unique_ptr<StreamWindows> w =
        engine.PlanStreamWindows(fd.file(), device.At(0), kFileSize, 0, true);
    ASSERT_NE(w, nullptr);
    ResidentPiece p = w->At(0, kFileSize);
    EXPECT_EQ(p.src, nullptr);
    EXPECT_EQ(p.bytes, kWindow);
    p = w->At(kTestChunk, kFileSize - kTestChunk);
    EXPECT_EQ(p.src, nullptr);
    EXPECT_EQ(p.bytes, kWindow - kTestChunk);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  ResidentPiece piece;
  while (piece.src == nullptr && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::unique_ptr<StreamWindows> w =
        engine.PlanStreamWindows(fd.file(), device.At(0), kFileSize, 5, true);
    ASSERT_NE(w, nullptr);
    piece = w->At(5, 3 * kWindow);
  }
  ASSERT_NE(piece.src, nullptr) << "no pinner pinned the due window";
  EXPECT_EQ(pins_here.load(), 0) << "a window was pinned outside the pinner threads";
  // To the window's end: the next window is another chunk, not pinned.
  EXPECT_EQ(piece.bytes, kWindow - 5);
  EXPECT_EQ(std::memcmp(piece.src, content_.data() + 5, piece.bytes), 0);
  EXPECT_NE(piece.lease, nullptr);
  // Held by the lease: a forgotten file's window is not unpinned while leased.
  engine.ForgetFile(Described(fd));
  EXPECT_EQ(engine.UnpinRetired(), 0u);
  piece = {};
  EXPECT_EQ(engine.UnpinRetired(), 1u);
  EXPECT_EQ(pins.load(), 1);
}

}  // namespace
}  // namespace hipfile::engine
