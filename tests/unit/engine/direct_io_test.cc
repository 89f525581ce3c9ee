// SPDX-License-Identifier: MIT
// The O_DIRECT path (the aligned body of cold data), on the CPU runtime.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/sync_io.h"
#include "engine_test_util.h"
#include "util/log.h"

namespace hipfile::engine {
namespace {

using testing::GpuOp;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kFileSize = 9 * kTestChunk + 4321;

// Reports every page as not resident (unless `cold` is cleared), so that the engine takes cold
// data paths.
class ColdSys : public testing::FaultSys {
 public:
  bool cold = true;
  Status Mincore(void* addr, size_t length, unsigned char* vec) override {
    HF_RETURN_IF_ERROR(FaultSys::Mincore(addr, length, vec));
    if (!cold) return Status::Ok();
    const size_t page = static_cast<size_t>(PageSize());
    std::memset(vec, 0, (length + page - 1) / page);
    return Status::Ok();
  }
  // Pread calls on `fd`, and EINVAL for them when refuse_ is set.
  int watched_fd = -1;
  bool refuse = false;
  std::atomic<int> watched_calls{0};
  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    if (fd == watched_fd) {
      ++watched_calls;
      if (refuse) return Status::Errno(EINVAL);
    }
    return FaultSys::Pread(fd, buf, size, offset);
  }
  std::atomic<int> watched_writes{0};
  // Called (once set) by each pwrite on `fd` before it runs: a test can hold the write there.
  std::function<void()> on_watched_write;
  Result<size_t> Pwrite(int fd, const void* buf, size_t size, off_t offset) override {
    if (fd == watched_fd) {
      ++watched_writes;
      if (on_watched_write) on_watched_write();
    }
    return FaultSys::Pwrite(fd, buf, size, offset);
  }
};

class DirectIoTest : public EngineTestBase {
 protected:
  void SetUp() override {
    WriteFileOrDie(path_, content_);
    direct_fd_ = ::open(path_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (direct_fd_ < 0) GTEST_SKIP() << "the test directory's file system refuses O_DIRECT";
    buffered_fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(buffered_fd_, 0);
    csys_.watched_fd = direct_fd_;
  }
  void TearDown() override {
    if (direct_fd_ >= 0) ::close(direct_fd_);
    if (buffered_fd_ >= 0) ::close(buffered_fd_);
  }
  // Direct writes, and the page-cache path pinning a window on its first read.
  static EngineOptions PinOnFirstReadOptions() {
    EngineOptions options = SmallOptions(8, 1);
    options.direct_writes = true;
    options.page_cache = PageCacheMode::kOn;
    options.page_cache_pin_after_uses = 1;
    return options;
  }
  // As PinOnFirstReadOptions, with windows of eight chunks.
  static EngineOptions FillOptions() {
    EngineOptions options = PinOnFirstReadOptions();
    options.page_cache_window_bytes = 8 * kTestChunk;
    return options;
  }
  // The file's identity, which the page-cache pins are kept by.
  void AddIdentity(IoFile* file) const {
    struct stat st = {};
    ASSERT_EQ(::fstat(buffered_fd_, &st), 0);
    file->dev = st.st_dev;
    file->ino = st.st_ino;
  }
  IoFile File() const {
    IoFile f;
    f.buffered_fd = buffered_fd_;
    f.direct_fd = direct_fd_;
    f.dio_mem_align = 4096;
    f.dio_offset_align = 4096;
    return f;
  }

  ColdSys csys_;
  const std::string path_ = dir_.File("data");
  const std::vector<unsigned char> content_ = PatternBytes(kFileSize, 41);
  int direct_fd_ = -1;
  int buffered_fd_ = -1;
};

TEST_F(DirectIoTest, ColdReadsUseODirectForTheBodyAndAreByteExact) {
  for (hipMemoryType type : {hipMemoryTypeDevice, hipMemoryTypeHost}) {
    SyncEngine engine(csys_, gpu_, SmallOptions(8, 2));
    GpuBuffer mem(gpu_, kFileSize + 4096, type);
    std::mt19937_64 rng(9);
    for (int i = 0; i < 40; ++i) {
      const size_t offset = i == 0 ? 0 : rng() % kFileSize;
      const size_t size = i == 0 ? kFileSize : kTestChunk + rng() % (kFileSize - kTestChunk);
      // Pinned memory takes O_DIRECT only when it is aligned where the aligned body lands.
      const size_t shift = i % 2 ? rng() % 4096 : (4096 - offset % 4096) % 4096;
      const size_t expected = std::min(size, kFileSize - offset);
      Result<size_t> n = engine.Read(File(), mem.At(shift), size, static_cast<off_t>(offset));
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      ASSERT_EQ(*n, expected);
      const std::vector<unsigned char> got = mem.Download();
      ASSERT_EQ(0, std::memcmp(got.data() + shift, content_.data() + offset, expected))
          << "offset " << offset << " size " << size << " shift " << shift;
    }
    EXPECT_GT(csys_.watched_calls.load(), 0) << "O_DIRECT was never used, memory type " << type;
    csys_.watched_calls = 0;
  }
}

TEST_F(DirectIoTest, EinvalFromODirectFallsBackToBufferedForTheRequest) {
  SyncEngine engine(csys_, gpu_, SmallOptions(8, 1));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  csys_.refuse = true;
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kWarn);
  ::testing::internal::CaptureStderr();
  Result<size_t> n = engine.Read(File(), mem.At(0), kFileSize, 0);
  const std::string log = ::testing::internal::GetCapturedStderr();
  SetLogLevel(level);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kFileSize);
  EXPECT_EQ(mem.Download(), content_);
  EXPECT_EQ(csys_.watched_calls.load(), 1);
  // A fallback that costs speed is said at warn level (once per process).
  EXPECT_NE(log.find("hipfile[warn]: O_DIRECT read refused (EINVAL) at offset 0"),
            std::string::npos)
      << log;
}

TEST_F(DirectIoTest, ODirectReadCutShortByATruncationCountsToTheNewEnd) {
  // The file shrinks between the size check and the reads: fstat reports the old size.
  class StaleSizeSys : public ColdSys {
   public:
    off_t size = 0;
    Status Fstat(int fd, struct stat* st) override {
      HF_RETURN_IF_ERROR(ColdSys::Fstat(fd, st));
      st->st_size = size;
      return Status::Ok();
    }
  } sys;
  sys.size = static_cast<off_t>(kFileSize);
  sys.watched_fd = direct_fd_;
  ASSERT_EQ(::ftruncate(buffered_fd_, 4 * kTestChunk + 100), 0);
  SyncEngine engine(sys, gpu_, SmallOptions(8, 1));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  Result<size_t> n = engine.Read(File(), mem.At(0), kFileSize, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 4 * kTestChunk + 100);
  EXPECT_GT(sys.watched_calls.load(), 0);
  const std::vector<unsigned char> got = mem.Download();
  EXPECT_EQ(0, std::memcmp(got.data(), content_.data(), 4 * kTestChunk + 100));
}

TEST_F(DirectIoTest, DirectWritesAreByteExact) {
  EngineOptions options = SmallOptions(8, 2);
  options.direct_writes = true;
  SyncEngine engine(csys_, gpu_, options);
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  std::vector<unsigned char> model = content_;
  std::mt19937_64 rng(10);
  for (int i = 0; i < 10; ++i) {
    const size_t offset = i == 0 ? 0 : rng() % kFileSize;
    const size_t size = std::min(kFileSize - offset, kTestChunk + rng() % (3 * kTestChunk));
    const std::vector<unsigned char> data = PatternBytes(size, 50 + i);
    mem.Upload(0, data);
    Result<size_t> n = engine.Write(File(), mem.At(0), size, static_cast<off_t>(offset));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_EQ(*n, size);
    std::copy(data.begin(), data.end(), model.begin() + static_cast<ptrdiff_t>(offset));
    ASSERT_EQ(ReadFileOrDie(path_), model) << "write " << i;
  }
}

TEST_F(DirectIoTest, DirectWritesStayBufferedWhileTheFileHasPinnedPages) {
  // The kernel cannot drop a pinned page from the page cache: an O_DIRECT write under one would
  // leave the cache holding the bytes from before it, for every later buffered reader.
  csys_.cold = false;
  SyncEngine engine(csys_, gpu_, PinOnFirstReadOptions());
  IoFile file = File();
  ASSERT_NO_FATAL_FAILURE(AddIdentity(&file));
  GpuBuffer mem(gpu_, kFileSize, hipMemoryTypeDevice);
  ASSERT_TRUE(engine.Read(file, mem.At(0), kFileSize, 0).ok());  // warm: pins windows
  ASSERT_GT(engine.pinned_page_cache_bytes(), 0u);

  std::vector<unsigned char> data = PatternBytes(2 * kTestChunk, 77);
  mem.Upload(0, data);
  ASSERT_TRUE(engine.Write(file, mem.At(0), data.size(), 0).ok());
  EXPECT_EQ(csys_.watched_writes.load(), 0);
  std::vector<unsigned char> model = content_;
  std::copy(data.begin(), data.end(), model.begin());
  EXPECT_EQ(ReadFileOrDie(path_), model);

  // Retired but still pinned windows count too; once unpinned, writes go direct again.
  engine.ForgetFile(file);
  ASSERT_TRUE(engine.Write(file, mem.At(0), data.size(), 0).ok());
  EXPECT_EQ(csys_.watched_writes.load(), 0);
  EXPECT_GT(engine.UnpinRetired(), 0u);
  data = PatternBytes(2 * kTestChunk, 78);
  mem.Upload(0, data);
  ASSERT_TRUE(engine.Write(file, mem.At(0), data.size(), 0).ok());
  EXPECT_GT(csys_.watched_writes.load(), 0);
  std::copy(data.begin(), data.end(), model.begin());
  EXPECT_EQ(ReadFileOrDie(path_), model);
}

// A range of the file missing from the page cache, as the kernel keeps it: a buffered read of it
// or MADV_WILLNEED over it brings it back; an O_DIRECT read of it does not.
class HoleSys : public ColdSys {
 public:
  int buffered_fd = -1;
  uint64_t hole_begin = 0;  // file offsets, pages
  uint64_t hole_end = 0;
  std::atomic<bool> hole_open{true};

  Result<void*> Mmap(void* addr, size_t length, int prot, int flags, int fd,
                     off_t offset) override {
    Result<void*> m = ColdSys::Mmap(addr, length, prot, flags, fd, offset);
    if (m.ok() && fd == buffered_fd && offset == 0) base_ = static_cast<char*>(*m);
    return m;
  }
  Status Mincore(void* addr, size_t length, unsigned char* vec) override {
    HF_RETURN_IF_ERROR(ColdSys::Mincore(addr, length, vec));
    const char* at = static_cast<const char*>(addr);
    if (!hole_open || base_ == nullptr || at < base_) return Status::Ok();
    const uint64_t begin = static_cast<uint64_t>(at - base_);
    const uint64_t page = static_cast<uint64_t>(PageSize());
    for (uint64_t b = std::max(begin, hole_begin); b < std::min(begin + length, hole_end);
         b += page) {
      vec[(b - begin) / page] = 0;
    }
    return Status::Ok();
  }
  Status Madvise(void* addr, size_t length, int advice) override {
    HF_RETURN_IF_ERROR(ColdSys::Madvise(addr, length, advice));
    const char* at = static_cast<const char*>(addr);
    if (advice == MADV_WILLNEED && base_ != nullptr && at >= base_) {
      Fill(static_cast<uint64_t>(at - base_), length);
    }
    return Status::Ok();
  }
  Result<size_t> Pread(int fd, void* buf, size_t size, off_t offset) override {
    if (fd == buffered_fd) Fill(static_cast<uint64_t>(offset), size);
    return ColdSys::Pread(fd, buf, size, offset);
  }

 private:
  void Fill(uint64_t offset, size_t size) {
    if (offset <= hole_begin && offset + size >= hole_end) hole_open = false;
  }
  char* base_ = nullptr;
};

class WindowFillTest : public DirectIoTest {
 protected:
  void SetUp() override {
    DirectIoTest::SetUp();
    if (IsSkipped()) return;
    hole_.cold = false;
    hole_.watched_fd = direct_fd_;
    hole_.buffered_fd = buffered_fd_;
    file_ = File();
    ASSERT_NO_FATAL_FAILURE(AddIdentity(&file_));
  }
  // Reads the whole file, checks its bytes and returns them by path.
  PathBytes ReadAll(SyncEngine& engine) {
    PathBytes paths;
    mem_.Fill(0);
    Result<size_t> n = engine.Read(file_, mem_.At(0), kFileSize, 0, true, &paths);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(n.ok() ? *n : 0, kFileSize);
    EXPECT_EQ(mem_.Download(), content_);
    return paths;
  }
  static uint64_t PageCacheBytes(const PathBytes& p) {
    return p.bytes[static_cast<size_t>(IoPath::kPageCache)];
  }

  HoleSys hole_;
  IoFile file_;
  GpuBuffer mem_{gpu_, kFileSize, hipMemoryTypeDevice};
};

// Windows of eight chunks; the first lacks one chunk (an eighth), long enough for O_DIRECT.
TEST_F(WindowFillTest, AWindowAnEighthShortHasItsPagesAskedForThenIsPinned) {
  hole_.hole_begin = 2 * kTestChunk;
  hole_.hole_end = 3 * kTestChunk;
  SyncEngine engine(hole_, gpu_, FillOptions());
  const PathBytes first = ReadAll(engine);
  EXPECT_FALSE(hole_.hole_open) << "the missing pages were never asked for";
  EXPECT_EQ(hole_.Calls(SysOp::kMadvise), 1u);
  EXPECT_EQ(first.fallback[static_cast<size_t>(Fallback::kNotPinned)], 2 * kTestChunk)
      << "the window's bytes before the hole: it was not whole when they were read";
  EXPECT_LT(PageCacheBytes(first), kFileSize);
  const PathBytes second = ReadAll(engine);
  EXPECT_EQ(PageCacheBytes(second), kFileSize) << "every window pinned, the filled one too";
  EXPECT_EQ(hole_.Calls(SysOp::kMadvise), 1u);
}

TEST_F(WindowFillTest, AWindowColderThanThatIsLeftToTheColdPath) {
  hole_.hole_begin = 2 * kTestChunk;
  hole_.hole_end = 4 * kTestChunk;  // a quarter of the window
  SyncEngine engine(hole_, gpu_, FillOptions());
  ReadAll(engine);
  const PathBytes second = ReadAll(engine);
  EXPECT_TRUE(hole_.hole_open);
  EXPECT_EQ(hole_.Calls(SysOp::kMadvise), 0u);
  EXPECT_GT(hole_.watched_calls.load(), 0) << "its cold bytes are read with O_DIRECT";
  EXPECT_EQ(PageCacheBytes(second), kFileSize - 8 * kTestChunk) << "only the second window";
}

TEST_F(WindowFillTest, RefusedAdviceLeavesTheWindowToStaging) {
  hole_.hole_begin = 2 * kTestChunk;
  hole_.hole_end = 3 * kTestChunk;
  hole_.FailAlways(SysOp::kMadvise, EINVAL);
  SyncEngine engine(hole_, gpu_, FillOptions());
  ReadAll(engine);
  const PathBytes second = ReadAll(engine);
  EXPECT_TRUE(hole_.hole_open);
  EXPECT_GT(hole_.Calls(SysOp::kMadvise), 0u);
  EXPECT_EQ(PageCacheBytes(second), kFileSize - 8 * kTestChunk);
}

// The reverse race: a read that would pin a window of the file while an O_DIRECT write of it is
// in flight does not pin it (the kernel could not drop the pinned page after writing around it);
// a read after the write pins as usual.
TEST_F(DirectIoTest, NoPageIsPinnedWhileADirectWriteIsInFlight) {
  csys_.cold = false;
  SyncEngine engine(csys_, gpu_, PinOnFirstReadOptions());
  IoFile file = File();
  ASSERT_NO_FATAL_FAILURE(AddIdentity(&file));
  GpuBuffer out(gpu_, kFileSize, hipMemoryTypeDevice);
  GpuBuffer in(gpu_, kFileSize, hipMemoryTypeDevice);
  const std::vector<unsigned char> data = PatternBytes(2 * kTestChunk, 90);
  in.Upload(0, data);

  std::promise<void> entered, release;
  std::shared_future<void> go = release.get_future().share();
  bool first = true;
  csys_.on_watched_write = [&] {
    if (!first) return;
    first = false;
    entered.set_value();
    go.wait();
  };
  std::thread writer([&] {
    const Result<size_t> n = engine.Write(file, in.At(0), data.size(), 0);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
  });
  entered.get_future().wait();  // the direct write is in flight
  for (int read = 0; read < 2; ++read) {
    ASSERT_TRUE(engine.Read(file, out.At(0), kFileSize, 0).ok());
  }
  EXPECT_EQ(engine.pinned_page_cache_bytes(), 0u) << "a window was pinned under the write";
  release.set_value();
  writer.join();
  csys_.on_watched_write = nullptr;
  EXPECT_GT(csys_.watched_writes.load(), 0) << "the write did not go direct";

  ASSERT_TRUE(engine.Read(file, out.At(0), kFileSize, 0).ok());
  EXPECT_GT(engine.pinned_page_cache_bytes(), 0u) << "no window pinned after the write";
  std::vector<unsigned char> model = content_;
  std::copy(data.begin(), data.end(), model.begin());
  EXPECT_EQ(out.Download(), model);
}

// allow_compat false (HIPFILE_ALLOW_COMPAT_MODE off): staged bytes move by O_DIRECT or not at
// all. These run on a runtime with device memory of its own (cpu-staged), where the engine
// stages; the fixture's runtime is the plain CPU one, whose device memory is host memory.
class DirectOnlyTest : public DirectIoTest {
 protected:
  static std::unique_ptr<runtime::GpuRuntime> StagedRuntime() {
    runtime::CpuRuntimeOptions o;
    o.device_memory_is_host_memory = false;
    return runtime::CreateCpuRuntime(o);
  }
  std::unique_ptr<runtime::GpuRuntime> staged_ = StagedRuntime();
};

TEST_F(DirectOnlyTest, EinvalFromODirectFailsTheRequestInsteadOfGoingBuffered) {
  SyncEngine engine(csys_, *staged_, SmallOptions(8, 1));
  GpuBuffer mem(*staged_, kFileSize, hipMemoryTypeDevice);
  csys_.refuse = true;
  ::testing::internal::CaptureStderr();
  const Result<size_t> n = engine.Read(File(), mem.At(0), kFileSize, 0, false);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(n.status(), Status::Op(hipFileInternalError));
  EXPECT_NE(log.find("no buffered fallback"), std::string::npos) << log;
  // Allowed, the same read falls back (EinvalFromODirectFallsBackToBufferedForTheRequest).
  const Result<size_t> allowed = engine.Read(File(), mem.At(0), kFileSize, 0, true);
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  EXPECT_EQ(*allowed, kFileSize);
}

TEST_F(DirectOnlyTest, WarmDataIsReadWithODirectAndPinsNothingSoWritesStayDirect) {
  csys_.cold = false;
  SyncEngine engine(csys_, *staged_, PinOnFirstReadOptions());
  IoFile file = File();
  ASSERT_NO_FATAL_FAILURE(AddIdentity(&file));
  GpuBuffer mem(*staged_, kFileSize + 4096, hipMemoryTypeDevice);
  // The whole file, whose size is not a multiple of the alignment: O_DIRECT reads the last
  // block short.
  const Result<size_t> n = engine.Read(file, mem.At(0), kFileSize + 4096, 0, false);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ASSERT_EQ(*n, kFileSize);
  std::vector<unsigned char> got = mem.Download();
  got.resize(kFileSize);
  EXPECT_EQ(got, content_);
  EXPECT_GT(csys_.watched_calls.load(), 0);
  EXPECT_EQ(engine.pinned_page_cache_bytes(), 0u);
  const std::vector<unsigned char> data = PatternBytes(2 * kTestChunk, 79);
  mem.Upload(0, data);
  const Result<size_t> wrote = engine.Write(file, mem.At(0), data.size(), 0, false);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  EXPECT_GT(csys_.watched_writes.load(), 0);
  std::vector<unsigned char> model = content_;
  std::copy(data.begin(), data.end(), model.begin());
  EXPECT_EQ(ReadFileOrDie(path_), model);
}

TEST_F(DirectOnlyTest, RefusalsNameTheReasonAndWriteNothing) {
  EngineOptions options = SmallOptions(8, 1);
  options.direct_writes = false;
  SyncEngine engine(csys_, *staged_, options);
  GpuBuffer mem(*staged_, 2 * kTestChunk, hipMemoryTypeDevice);
  mem.Upload(0, PatternBytes(2 * kTestChunk, 80));
  struct Case {
    const char* name;
    bool write;
    IoFile file;
    size_t size;
    off_t offset;
    const char* reason;
  };
  IoFile no_direct = File();
  no_direct.direct_fd = -1;
  no_direct.dio_mem_align = no_direct.dio_offset_align = 0;
  const Case cases[] = {
      {"direct writes off", true, File(), kTestChunk, 0, "HIPFILE_DIRECT_WRITES is off"},
      {"no O_DIRECT, write", true, no_direct, kTestChunk, 0, "the file system has no O_DIRECT"},
      {"no O_DIRECT, read", false, no_direct, kTestChunk, 0, "the file system has no O_DIRECT"},
      {"unaligned read", false, File(), kTestChunk, 100, "not aligned for O_DIRECT"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ::testing::internal::CaptureStderr();
    const Result<size_t> n = c.write ? engine.Write(c.file, mem.At(0), c.size, c.offset, false)
                                     : engine.Read(c.file, mem.At(0), c.size, c.offset, false);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(n.status(), Status::Op(hipFileInternalError));
    // The line names the reason (the log limiter may hold back repeats of its call site).
    if (!log.empty()) {
      EXPECT_NE(log.find(c.reason), std::string::npos) << log;
    }
    EXPECT_EQ(ReadFileOrDie(path_), content_);
    // Allowed, each moves its bytes (buffered); put the file back.
    const Result<size_t> allowed = c.write ? engine.Write(c.file, mem.At(0), c.size, c.offset)
                                           : engine.Read(c.file, mem.At(0), c.size, c.offset);
    ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
    EXPECT_EQ(*allowed, c.size);
    WriteFileOrDie(path_, content_);
  }
}

TEST_F(DirectOnlyTest, HostMemoryIsNeverRefusedButAStagingSlotIs) {
  SyncEngine engine(csys_, *staged_, SmallOptions(8, 1));
  IoFile no_direct = File();
  no_direct.direct_fd = -1;
  GpuBuffer host(*staged_, kTestChunk, hipMemoryTypeHost);
  const Result<size_t> n = engine.Read(no_direct, host.At(0), kTestChunk, 100, false);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, kTestChunk);
  IoMemory slot = host.At(0);
  slot.staging = true;  // a stream's staging slot: buffered bytes into it are the compat path
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(engine.Read(no_direct, slot, kTestChunk, 0, false).status(),
            Status::Op(hipFileInternalError));
  EXPECT_EQ(engine.Read(File(), slot, kTestChunk, 100, false).status(),
            Status::Op(hipFileInternalError));
  ::testing::internal::GetCapturedStderr();
  const Result<size_t> direct = engine.Read(File(), slot, kTestChunk, 0, false);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(*direct, kTestChunk);
  EXPECT_GT(csys_.watched_calls.load(), 0);
}

TEST_F(DirectOnlyTest, SmallBatchTransfersAreNotGroupedThroughBufferedStaging) {
  SyncEngine engine(csys_, *staged_, SmallOptions(8, 1));
  GpuBuffer mem(*staged_, 4 * 4096, hipMemoryTypeDevice);
  const IoFile file = File();
  IoRequest ios[4];
  for (size_t i = 0; i < 4; ++i) {
    ios[i].file = &file;
    ios[i].memory = mem.At(i * 4096);
    ios[i].size = 4096;
    ios[i].offset = static_cast<off_t>(i * 4096);
    ios[i].allow_compat = false;
  }
  Result<size_t> results[4] = {size_t{0}, size_t{0}, size_t{0}, size_t{0}};
  engine.RunMany(ios, 4, results);
  for (const Result<size_t>& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, 4096u);
  }
  EXPECT_EQ(csys_.watched_calls.load(), 4) << "each entry read alone with O_DIRECT";
  std::vector<unsigned char> got = mem.Download();
  EXPECT_TRUE(std::equal(got.begin(), got.end(), content_.begin()));
}

}  // namespace
}  // namespace hipfile::engine
