// SPDX-License-Identifier: MIT
// PageCachePins on its own: mapping reuse, the pinning rule, and when pins may be released.
#include "engine/page_cache_pins.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "util/align.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kWindow = 64 << 10;
constexpr size_t kFileSize = 3 * kWindow + 100;

class PageCachePinsTest : public EngineTestBase {
 protected:
  void SetUp() override {
    WriteFileOrDie(path_, PatternBytes(kFileSize, 7));
    fd_ = std::make_unique<ScopedFd>(path_, O_RDONLY);
    ASSERT_EQ(::fstat(fd_->get(), &st_), 0);
  }
  PageCachePins::Options Options(unsigned pin_after_uses = 1) const {
    PageCachePins::Options o;
    o.window_bytes = kWindow;
    o.max_pinned_bytes = 1 << 30;
    o.pin_after_uses = pin_after_uses;
    o.page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return o;
  }

  const std::string path_ = dir_.File("data");
  std::unique_ptr<ScopedFd> fd_;
  struct stat st_ = {};
};

TEST_F(PageCachePinsTest, AnUnchangedFileKeepsItsMapping) {
  PageCachePins pins(sys_, gpu_, Options());
  auto a = pins.Map(fd_->get(), st_);
  auto b = pins.Map(fd_->get(), st_);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(sys_.Calls(SysOp::kMmap), 1u);
  struct stat later = st_;
  later.st_ctim.tv_nsec ^= 1;  // a status change (a write, a truncation...)
  auto c = pins.Map(fd_->get(), later);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->get(), a->get());
}

TEST_F(PageCachePinsTest, AnEmptyFileIsNotMapped) {
  PageCachePins pins(sys_, gpu_, Options());
  struct stat empty = st_;
  empty.st_size = 0;
  EXPECT_FALSE(pins.Map(fd_->get(), empty).ok());
}

TEST_F(PageCachePinsTest, WindowsAreFixedSlicesOfTheFile) {
  PageCachePins pins(sys_, gpu_, Options());
  auto file = *pins.Map(fd_->get(), st_);
  auto w = pins.Pin(file, kWindow + 5);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->offset(), kWindow);
  EXPECT_EQ(w->length(), kWindow);
  EXPECT_EQ(pins.Pin(file, 2 * kWindow - 1), w) << "same window, no second pin";
  auto last = pins.Pin(file, 3 * kWindow);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->length(), AlignUp(100, Options().page_size)) << "the last window ends at EOF";
  EXPECT_EQ(
      0, std::memcmp(last->At(3 * kWindow), PatternBytes(kFileSize, 7).data() + 3 * kWindow, 100));
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 2u);
  EXPECT_EQ(pins.counters().hits, 1u);
}

TEST_F(PageCachePinsTest, AWindowIsPinnedOnItsNthUse) {
  PageCachePins pins(sys_, gpu_, Options(3));
  auto file = *pins.Map(fd_->get(), st_);
  EXPECT_EQ(pins.Pin(file, 0), nullptr);
  EXPECT_EQ(pins.Pin(file, 10), nullptr);
  EXPECT_NE(pins.Pin(file, 20), nullptr);
  EXPECT_EQ(pins.Pin(file, kWindow), nullptr) << "counted per window";
}

// FindPinned is a look, not a read (a stream-ordered submission asking whether windows hold its
// bytes): it counts no use toward pinning and no hit, and finds a window once it is pinned.
TEST_F(PageCachePinsTest, FindPinnedLooksWithoutCountingAUse) {
  PageCachePins pins(sys_, gpu_, Options(2));
  auto file = *pins.Map(fd_->get(), st_);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pins.FindPinned(file, 10), nullptr);
  EXPECT_EQ(pins.Pin(file, 0), nullptr) << "the looks counted as uses";
  auto w = pins.Pin(file, 0);
  ASSERT_NE(w, nullptr) << "the second use pins";
  const uint64_t hits = pins.counters().hits;
  EXPECT_EQ(pins.FindPinned(file, kWindow - 1), w);
  EXPECT_EQ(pins.FindPinned(file, kWindow), nullptr) << "another window";
  EXPECT_EQ(pins.counters().hits, hits);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 1u);
}

TEST_F(PageCachePinsTest, AWindowNotWhollyResidentIsNotPinned) {
  class ColdTail : public testing::FaultSys {
   public:
    Status Mincore(void* addr, size_t length, unsigned char* vec) override {
      HF_RETURN_IF_ERROR(FaultSys::Mincore(addr, length, vec));
      vec[0] = 0;
      return Status::Ok();
    }
  } sys;
  PageCachePins pins(sys, gpu_, Options());
  auto file = *pins.Map(fd_->get(), st_);
  EXPECT_EQ(pins.Pin(file, 0), nullptr);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u);
}

TEST_F(PageCachePinsTest, AWindowInUseIsNotUnpinnedUntilReleased) {
  PageCachePins pins(sys_, gpu_, Options());
  auto file = *pins.Map(fd_->get(), st_);
  auto in_use = pins.Pin(file, 0);
  ASSERT_NE(in_use, nullptr);
  ASSERT_NE(pins.Pin(file, kWindow), nullptr);
  file = nullptr;
  pins.Forget(st_.st_dev, st_.st_ino);
  EXPECT_EQ(pins.UnpinRetired(), 1u) << "only the window no request holds";
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), 0u) << "the mapping lives while a window does";
  in_use = nullptr;
  EXPECT_EQ(pins.UnpinRetired(), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 2u);
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), 1u);
  EXPECT_EQ(pins.counters().pinned_bytes, 0u);
}

TEST_F(PageCachePinsTest, AStaleMappingPinsNothingMore) {
  PageCachePins pins(sys_, gpu_, Options());
  auto old_file = *pins.Map(fd_->get(), st_);
  struct stat later = st_;
  later.st_mtim.tv_sec += 1;
  ASSERT_TRUE(pins.Map(fd_->get(), later).ok());  // the old mapping's slots are off now
  EXPECT_EQ(pins.Pin(old_file, 0), nullptr) << "no new pin in a stale mapping";
}

TEST_F(PageCachePinsTest, WithoutPinningOnlyMappingsAreMade) {
  PageCachePins::Options o = Options();
  o.pinning = false;
  PageCachePins pins(sys_, gpu_, o);
  auto file = *pins.Map(fd_->get(), st_);
  std::vector<ByteRange> resident;
  ASSERT_TRUE(file->Residency(0, kFileSize, &resident).ok());
  EXPECT_EQ(pins.Pin(file, 0), nullptr);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u);
}

// Pin-ahead: windows after a sequential reader are pinned by pinner threads.
class PinAheadTest : public EngineTestBase {
 protected:
  static constexpr size_t kWindows = 8;
  void SetUp() override {
    WriteFileOrDie(path_, PatternBytes(kWindows * kWindow, 9));
    fd_ = std::make_unique<ScopedFd>(path_, O_RDONLY);
    ASSERT_EQ(::fstat(fd_->get(), &st_), 0);
  }
  PageCachePins::Options Options(unsigned ahead, uint64_t max_windows = 100) const {
    PageCachePins::Options o;
    o.window_bytes = kWindow;
    o.max_pinned_bytes = max_windows * kWindow;
    o.pin_after_uses = 2;
    o.page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    o.pin_ahead_windows = ahead;
    o.pin_ahead_threads = 2;
    return o;
  }
  // Waits (up to 10 s) until the pinner threads have pinned `n` windows.
  static bool PinnedAhead(const PageCachePins& pins, uint64_t n) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (pins.counters().windows_pinned_ahead < n) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  const std::string path_ = dir_.File("data");
  std::unique_ptr<ScopedFd> fd_;
  struct stat st_ = {};
};

TEST_F(PinAheadTest, ASequentialReaderFindsTheNextWindowsPinned) {
  PageCachePins pins(sys_, gpu_, Options(3));
  auto file = *pins.Map(fd_->get(), st_);
  auto first = pins.Pin(file, 0);
  ASSERT_NE(first, nullptr) << "the first window of a file is pinned at its first read";
  ASSERT_TRUE(PinnedAhead(pins, 3));
  auto second = pins.Pin(file, kWindow + 10);
  ASSERT_NE(second, nullptr) << "pinned ahead of the reader";
  EXPECT_EQ(pins.counters().hits, 1u);
  ASSERT_TRUE(PinnedAhead(pins, 4)) << "reading window 1 queues window 4";
  EXPECT_EQ(0, std::memcmp(second->At(kWindow + 10),
                           PatternBytes(kWindows * kWindow, 9).data() + kWindow + 10, 100));
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 5u);
  EXPECT_EQ(pins.counters().pinned_bytes, 5 * kWindow);
}

TEST_F(PinAheadTest, ReadsThatDoNotFollowOnPinNothingAhead) {
  PageCachePins pins(sys_, gpu_, Options(3));
  auto file = *pins.Map(fd_->get(), st_);
  EXPECT_EQ(pins.Pin(file, 5 * kWindow), nullptr) << "window 4 was never read: not sequential";
  EXPECT_EQ(pins.Pin(file, 2 * kWindow), nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u);
  EXPECT_EQ(pins.counters().pinned_bytes, 0u);
  EXPECT_NE(pins.Pin(file, 3 * kWindow), nullptr) << "window 2 was read: this one follows on";
}

TEST_F(PinAheadTest, OffByDefault) {
  PageCachePins pins(sys_, gpu_, Options(0));
  auto file = *pins.Map(fd_->get(), st_);
  EXPECT_EQ(pins.Pin(file, 0), nullptr) << "pinned at its second read, as before";
  EXPECT_EQ(sys_.Calls(testing::SysOp::kStartThread), 0u);
}

TEST_F(PinAheadTest, QueuedWindowsCountAgainstTheCap) {
  PageCachePins pins(sys_, gpu_, Options(6, /*max_windows=*/3));
  auto file = *pins.Map(fd_->get(), st_);
  ASSERT_NE(pins.Pin(file, 0), nullptr);
  ASSERT_TRUE(PinnedAhead(pins, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(pins.counters().windows_pinned, 3u);
  EXPECT_EQ(pins.counters().pinned_bytes, 3 * kWindow);
}

TEST_F(PinAheadTest, NoPinnerThreadMeansReadersPinForThemselves) {
  sys_.FailAlways(testing::SysOp::kStartThread, EAGAIN);
  PageCachePins pins(sys_, gpu_, Options(3));
  auto file = *pins.Map(fd_->get(), st_);
  ASSERT_NE(pins.Pin(file, 0), nullptr);
  EXPECT_EQ(pins.counters().pinned_bytes, kWindow) << "what was queued left the cap";
  EXPECT_NE(pins.Pin(file, kWindow), nullptr) << "a sequential reader still pins its window";
  EXPECT_EQ(sys_.Calls(testing::SysOp::kStartThread), 1u) << "tried once, then off";
  EXPECT_EQ(pins.counters().windows_pinned_ahead, 0u);
}

TEST_F(PinAheadTest, ForgettingAFileWithWindowsQueuedLeavesNothingPinned) {
  {
    PageCachePins pins(sys_, gpu_, Options(7));
    auto file = *pins.Map(fd_->get(), st_);
    ASSERT_NE(pins.Pin(file, 0), nullptr);
    file = nullptr;
    pins.Forget(st_.st_dev, st_.st_ino);
    pins.UnpinRetired();
  }  // the destructor stops the pinners and unpins what they pinned meanwhile
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), gpu_.Calls(GpuOp::kHostRegister));
  EXPECT_EQ(sys_.Calls(SysOp::kMunmap), 1u);
}

// Pinned aside (GpuRuntime::HostRegisterAside): readers never pin and never wait for a pin; the
// pinner works ahead of them.
TEST_F(PinAheadTest, PinnedAsideTheReadersLeaveThePinsToThePinner) {
  PageCachePins::Options o = Options(3);
  o.pin_aside = true;
  {
    PageCachePins pins(sys_, gpu_, o);
    auto file = *pins.Map(fd_->get(), st_);
    EXPECT_EQ(pins.Pin(file, 0), nullptr) << "the reader stages its own window";
    ASSERT_TRUE(PinnedAhead(pins, 3));
    auto second = pins.Pin(file, kWindow + 10);
    ASSERT_NE(second, nullptr) << "pinned ahead of the reader";
    EXPECT_EQ(0, std::memcmp(second->At(kWindow + 10),
                             PatternBytes(kWindows * kWindow, 9).data() + kWindow + 10, 100));
    ASSERT_TRUE(PinnedAhead(pins, 4)) << "reading window 1 queues window 4";
    EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegisterAside), 4u);
    EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegister), 0u) << "no pin in the primary context";
    EXPECT_EQ(sys_.Calls(SysOp::kStartThread), 1u) << "one pinner: the runtime pins one at a time";
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregisterAside), 4u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u);
}

TEST_F(PinAheadTest, PinnedAsideAReaderAheadOfThePinnerTakesItsWindowOffTheQueue) {
  PageCachePins::Options o = Options(3);
  o.pin_aside = true;
  std::promise<void> entered, release;
  auto released = release.get_future().share();
  std::atomic<int> pins_begun{0};
  gpu_.BeforeCall(GpuOp::kHostRegisterAside, [&] {
    if (pins_begun++ == 0) {  // holds the first pin (window 1) until the reader has passed
      entered.set_value();
      released.wait();
    }
  });
  PageCachePins pins(sys_, gpu_, o);
  auto file = *pins.Map(fd_->get(), st_);
  EXPECT_EQ(pins.Pin(file, 0), nullptr);
  entered.get_future().wait();
  EXPECT_EQ(pins.Pin(file, 2 * kWindow), nullptr) << "window 2, queued: read through staging";
  EXPECT_EQ(pins.counters().pinned_bytes, 4 * kWindow)
      << "windows 1 (pinning), 3, 4 and 5 reserved; 2 left the cap";
  release.set_value();
  ASSERT_TRUE(PinnedAhead(pins, 4)) << "windows 1, 3, 4 and 5 (queued by the read of 2)";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostRegisterAside), 4u) << "window 2 was skipped";
  EXPECT_EQ(pins.counters().pinned_bytes, 4 * kWindow);
  EXPECT_NE(pins.Pin(file, 3 * kWindow), nullptr);
  EXPECT_EQ(pins.Pin(file, 2 * kWindow + 1), nullptr) << "window 2 stays unpinned";
  gpu_.Reset();
}

TEST_F(PinAheadTest, DestroyedWhilePinnersRun) {
  for (int round = 0; round < 20; ++round) {
    PageCachePins pins(sys_, gpu_, Options(7));
    auto file = *pins.Map(fd_->get(), st_);
    ASSERT_NE(pins.Pin(file, 0), nullptr);
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), gpu_.Calls(GpuOp::kHostRegister));
}

}  // namespace
}  // namespace hipfile::engine
