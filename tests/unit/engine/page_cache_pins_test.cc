// SPDX-License-Identifier: MIT
// PageCachePins on its own: mapping reuse, the pinning rule, and when pins may be released.
#include "engine/page_cache_pins.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
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

}  // namespace
}  // namespace hipfile::engine
