// SPDX-License-Identifier: MIT
// Staged stream-ordered reads of data in the page cache copy it from pinned page-cache windows
// (docs/async.md, "Staged reads of resident data"), through a core::Driver on FaultRuntime over
// the CPU runtime: the bytes count as page_cache and every one arrives, a window stays pinned
// until its stream has copied from it, resident and cold ranges mix, reads end at end of file,
// and pins that cannot be made leave the bytes to staging. Windows are 64 MiB (the Driver's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile_ext.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "fakes/gate.h"
#include "fakes/wait_until.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kWindow = 64 * kMiB;       // the engine's page_cache_window_bytes
constexpr size_t kFile = 8 * kMiB + 12345;  // in one window, its last page partial
constexpr size_t kBuffer = 9 * kMiB;

class AsyncPageCacheTest : public IoPathTest {
 protected:
  AsyncPageCacheTest() : IoPathTest(kBuffer) {}

  // Synchronous reads of [0, size), twice, in pieces the buffer holds: the windows they cover
  // are pinned (pin-after 2) on this thread.
  void PinBySyncReads(void* fh, size_t size) {
    for (int i = 0; i < 2; ++i) {
      for (size_t at = 0; at < size; at += kBuffer) {
        const size_t piece = std::min(kBuffer, size - at);
        const Result<size_t> n = driver_->Read(fh, dev_, piece, static_cast<off_t>(at), 0);
        ASSERT_TRUE(n.ok()) << n.status().ToString();
        ASSERT_EQ(*n, piece);
      }
    }
    ASSERT_GT(gpu_.Calls(GpuOp::kHostRegister), 0u) << "the second read pins its window";
  }

  // Reads `size` bytes at 4096, every one in a pinned window, with the stream's copies held
  // back: the read is over (its result in place, its window leased) before the stream copies.
  void ExpectDoneBeforeTheStreamCopies(size_t size);

  hipFileExtPathStats_t Paths() {
    hipFileExtPathStats_t p = {};
    driver_->stats().FillPaths(&p);
    return p;
  }
  static uint64_t Read(const hipFileExtPathStats_t& p, hipFileExtPath_t path) {
    return p.read_bytes[path];
  }

  // One stream-ordered read of `size` bytes at `file_offset` into the buffer at `buffer_offset`,
  // waited for: *bytes_p.
  ssize_t ReadAsync(void* fh, size_t size, off_t file_offset, off_t buffer_offset = 0) {
    size_t s = size;
    off_t fo = file_offset, bo = buffer_offset;
    ssize_t bytes = 12345;
    const Status submitted =
        driver_->SubmitAsync(IoDirection::kRead, fh, dev_, &s, &fo, &bo, &bytes, Stream());
    EXPECT_TRUE(submitted.ok()) << submitted.ToString();
    EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    return bytes;
  }

  // The first byte of the device buffer at `at` that differs from `want`, or want.size().
  size_t FirstDifference(const std::vector<unsigned char>& want, size_t at) {
    const std::vector<unsigned char> got = DeviceBytes(at + want.size());
    return static_cast<size_t>(std::mismatch(want.begin(), want.end(), got.begin() + at).first -
                               want.begin());
  }

  Watchdog watchdog_{std::chrono::seconds(60)};
};

std::vector<unsigned char> Pattern(size_t n) { return testing::PatternBytes(n); }

// The stream's copies held back (FaultRuntime::HoldCopyTables) until Open; an unpin meanwhile
// would wait for the stream on CUDA: it is recorded (unpinned_early) and lets the copies go.
struct HeldCopies {
  explicit HeldCopies(testing::FaultRuntime& gpu) {
    gpu.BeforeCall(GpuOp::kHostUnregister, [this] {
      if (opened.load()) return;
      unpinned_early = true;
      Open();
    });
    gpu.HoldCopyTables(&testing::StreamGate::Wait, &gate);
  }
  void Open() {
    if (!opened.exchange(true)) gate.Open();
  }
  testing::StreamGate gate;
  std::atomic<bool> opened{false};
  std::atomic<bool> unpinned_early{false};
};

TEST_P(AsyncPageCacheTest, ResidentBytesAreCopiedFromPinnedWindows) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh, kFile);
  const std::vector<unsigned char> file = Pattern(kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const hipFileExtPathStats_t before = Paths();
  const uint64_t preads = sys_.Calls(SysOp::kPread);
  ASSERT_EQ(ReadAsync(fh, kFile, 0), static_cast<ssize_t>(kFile));
  EXPECT_EQ(FirstDifference(file, 0), kFile) << "the first byte that is not the file's";
  EXPECT_EQ(DeviceBytes(kFile + 1)[kFile], 0xee) << "a byte past the transfer was written";
  const hipFileExtPathStats_t after = Paths();
  EXPECT_EQ(Read(after, hipFileExtPathPageCache) - Read(before, hipFileExtPathPageCache), kFile);
  EXPECT_EQ(Read(after, hipFileExtPathBuffered), Read(before, hipFileExtPathBuffered));
  EXPECT_EQ(Read(after, hipFileExtPathDirect), Read(before, hipFileExtPathDirect));
  EXPECT_EQ(sys_.Calls(SysOp::kPread), preads) << "a resident byte was staged";

  // Odd offsets in the file and the buffer, over several chunks.
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const size_t size = 5 * kMiB + 7;
  ASSERT_EQ(ReadAsync(fh, size, 12345, 3), static_cast<ssize_t>(size));
  const std::vector<unsigned char> part(file.begin() + 12345, file.begin() + 12345 + size);
  EXPECT_EQ(FirstDifference(part, 3), size);
  const std::vector<unsigned char> got = DeviceBytes(size + 4);
  EXPECT_EQ(got[2], 0xee);
  EXPECT_EQ(got[size + 3], 0xee);
  EXPECT_EQ(Read(Paths(), hipFileExtPathPageCache) - Read(after, hipFileExtPathPageCache), size);
}

// Until its stream has copied from a window, the read holding it is in flight: a deregistration
// meanwhile does not unpin it (on CUDA the unpin would wait for that stream, and the copy read
// unpinned memory if it did not). Two chunks: the read's worker is done with them before the
// stream copies the first.
TEST_P(AsyncPageCacheTest, AWindowStaysPinnedUntilTheStreamCopiedFromIt) {
  void* fh = OpenFile("f", kFile);
  // A second handle of the same file, free to go while the read holds the first: its
  // deregistration retires the file's windows (they are the file's, not the handle's).
  void* twin = Register(path_);
  PinBySyncReads(fh, kFile);
  ASSERT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u);
  HeldCopies held(gpu_);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const size_t size = 3 * kMiB;
  size_t s = size;
  off_t fo = 0, bo = 0;
  ssize_t bytes = 12345;
  ASSERT_TRUE(
      driver_->SubmitAsync(IoDirection::kRead, fh, dev_, &s, &fo, &bo, &bytes, Stream()).ok());
  // Give the worker time to take the window and release both chunks.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  driver_->DeregisterHandle(twin);  // retires the file's windows; unpins the idle ones
  EXPECT_FALSE(held.unpinned_early.load())
      << "a window was unpinned before the stream copied from it";
  held.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(size));
  EXPECT_EQ(FirstDifference(Pattern(size), 0), size);
  // Once the read is over, the next deregistration unpins the retired window.
  gpu_.Reset();
  (*driver_->async_executor())->WaitIdle();
  void* other = OpenFile("g", 4096);
  driver_->DeregisterHandle(other);
  EXPECT_GT(gpu_.Calls(GpuOp::kHostUnregister), 0u) << "the window was kept after its copy";
}

// A read whose every byte is in a window releases its stream without waiting for the stream's
// copy from it (its copies are ahead of its `wait done` on the stream): its result is in place
// while the copy is held back, and the window it leases stays pinned, counted as outstanding,
// until the stream has made the copy.
TEST_P(AsyncPageCacheTest, AReadIsDoneBeforeItsStreamCopiesFromItsWindow) {
  ExpectDoneBeforeTheStreamCopies(kMiB);
}

// The same for a read of four chunks: its first chunk's table copies the whole read, and the
// chunks after it, which copy nothing, go without waiting for the stream to be done with their
// tables (chunk 2's holds chunk 0's copy; its launch is for another token and copies nothing).
// Until 2026-12-05 chunk 2 waited for the stream's first copy.
TEST_P(AsyncPageCacheTest, AReadOfManyChunksIsDoneBeforeItsStreamCopiesFromItsWindow) {
  ExpectDoneBeforeTheStreamCopies(8 * kMiB);
}

void AsyncPageCacheTest::ExpectDoneBeforeTheStreamCopies(size_t size) {
  void* fh = OpenFile("f", kFile);
  void* twin = Register(path_);
  PinBySyncReads(fh, kFile);
  HeldCopies held(gpu_);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  size_t s = size;
  off_t fo = 4096, bo = 0;
  ssize_t bytes = 12345;
  ASSERT_TRUE(
      driver_->SubmitAsync(IoDirection::kRead, fh, dev_, &s, &fo, &bo, &bytes, Stream()).ok());
  // The operation ends (Outstanding drops from 2, the read and its leases, to 1) with the copy
  // still held; the executor's lock orders its *bytes_p before this thread's look at it.
  AsyncExecutor& executor = **driver_->async_executor();
  const bool ended = testing::WaitUntil(
      [&] { return executor.DeferredLeases() == 1 && executor.Outstanding() == 1; },
      std::chrono::seconds(20));
  EXPECT_TRUE(ended) << "the read waited for its stream's copy, or its lease did not count";
  if (ended) {
    EXPECT_EQ(bytes, static_cast<ssize_t>(size));
  }
  driver_->DeregisterHandle(twin);  // retires the file's windows; unpins the idle ones
  EXPECT_FALSE(held.unpinned_early.load())
      << "a window was unpinned before the stream copied from it";
  held.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  const std::vector<unsigned char> file = Pattern(kFile);
  EXPECT_EQ(FirstDifference({file.begin() + 4096, file.begin() + 4096 + size}, 0), size);
  gpu_.Reset();  // the hold and the hook refer to this test's gate
  executor.WaitIdle();
  EXPECT_EQ(executor.Outstanding(), 0u);
}

// A read over a pinned window and data that is not in the page cache: the first part is copied
// from the window, the rest staged (O_DIRECT here), every byte in place.
TEST_P(AsyncPageCacheTest, ResidentAndColdRangesMix) {
  const size_t file_size = kWindow + 8 * kMiB;
  void* fh = OpenFile("f", file_size);
  PinBySyncReads(fh, kWindow);
  // Drop the pages after the first window from the page cache.
  const int fd = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fdatasync(fd), 0);
  ASSERT_EQ(::posix_fadvise(fd, kWindow, 0, POSIX_FADV_DONTNEED), 0);
  void* map = ::mmap(nullptr, file_size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  std::vector<unsigned char> pages(8 * kMiB / 4096);
  ASSERT_EQ(::mincore(static_cast<char*>(map) + kWindow, 8 * kMiB, pages.data()), 0);
  size_t resident = 0;
  for (unsigned char p : pages) resident += p & 1;
  ::munmap(map, file_size);
  ::close(fd);
  if (resident == pages.size()) GTEST_SKIP() << "the kernel kept the pages in the page cache";

  const std::vector<unsigned char> file = Pattern(file_size);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const hipFileExtPathStats_t before = Paths();
  const size_t size = 8 * kMiB;
  const off_t at = kWindow - 3 * kMiB;
  ASSERT_EQ(ReadAsync(fh, size, at), static_cast<ssize_t>(size));
  const std::vector<unsigned char> part(file.begin() + at, file.begin() + at + size);
  EXPECT_EQ(FirstDifference(part, 0), size);
  EXPECT_EQ(DeviceBytes(size + 1)[size], 0xee);
  const hipFileExtPathStats_t after = Paths();
  EXPECT_EQ(Read(after, hipFileExtPathPageCache) - Read(before, hipFileExtPathPageCache), 3 * kMiB)
      << "the window's part";
  EXPECT_EQ(Read(after, hipFileExtPathDirect) + Read(after, hipFileExtPathBuffered) -
                Read(before, hipFileExtPathDirect) - Read(before, hipFileExtPathBuffered),
            5 * kMiB)
      << "the cold part, staged";
}

// A read running past end of file is short; its bytes come from the window up to the end.
TEST_P(AsyncPageCacheTest, AReadPastEndOfFileIsShort) {
  void* fh = OpenFile("f", kFile);
  PinBySyncReads(fh, kFile);
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const hipFileExtPathStats_t before = Paths();
  const size_t left = kFile - 5 * kMiB;
  ASSERT_EQ(ReadAsync(fh, 4 * kMiB, 5 * kMiB, 1), static_cast<ssize_t>(left));
  const std::vector<unsigned char> file = Pattern(kFile);
  const std::vector<unsigned char> tail(file.begin() + 5 * kMiB, file.end());
  EXPECT_EQ(FirstDifference(tail, 1), left);
  const std::vector<unsigned char> got = DeviceBytes(left + 2);
  EXPECT_EQ(got[0], 0xee);
  EXPECT_EQ(got[left + 1], 0xee) << "a byte past end of file was written";
  EXPECT_EQ(Read(Paths(), hipFileExtPathPageCache) - Read(before, hipFileExtPathPageCache), left);
  // At end of file: nothing.
  EXPECT_EQ(ReadAsync(fh, 2 * kMiB, kFile), 0);
}

// Reads of their own (no synchronous read) get windows pinned - by the engine's pinner threads,
// never by the workers that move the stream's operations (a pin there could wait for a free,
// which waits for the very stream the worker serves).
TEST_P(AsyncPageCacheTest, WindowsAreDueByTheSameRuleAndPinnedOffTheWorkers) {
  void* fh = OpenFile("f", kFile);
  std::atomic<int> pins_off_pinners{0};
  gpu_.BeforeCall(GpuOp::kHostRegister, [&] {
    char name[16] = {};
    prctl(PR_GET_NAME, name);
    if (std::strncmp(name, "hf-pin", 6) != 0) ++pins_off_pinners;
  });
  const std::vector<unsigned char> file = Pattern(kFile);
  // The first read does not make the window due (pin-after 2), the second does.
  for (int i = 0; i < 2; ++i) ASSERT_EQ(ReadAsync(fh, kFile, 0), static_cast<ssize_t>(kFile));
  ASSERT_TRUE(testing::WaitUntil([&] { return gpu_.Succeeded(GpuOp::kHostRegister) > 0; }))
      << "no pinner pinned the window";
  const hipFileExtPathStats_t before = Paths();
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  ASSERT_EQ(ReadAsync(fh, kFile, 0), static_cast<ssize_t>(kFile));
  EXPECT_EQ(FirstDifference(file, 0), kFile);
  EXPECT_EQ(Read(Paths(), hipFileExtPathPageCache) - Read(before, hipFileExtPathPageCache), kFile);
  EXPECT_EQ(pins_off_pinners.load(), 0) << "a window was pinned outside the pinner threads";
}

// The runtime refuses to pin: the window stays unpinned, every byte is staged, nothing is lost.
TEST_P(AsyncPageCacheTest, RefusedPinsLeaveTheBytesToStaging) {
  void* fh = OpenFile("f", kFile);
  gpu_.FailAlways(GpuOp::kHostRegister, hipErrorOutOfMemory);
  const std::vector<unsigned char> file = Pattern(kFile);
  const hipFileExtPathStats_t before = Paths();
  for (int i = 0; i < 2; ++i) ASSERT_EQ(ReadAsync(fh, kFile, 0), static_cast<ssize_t>(kFile));
  // The second read made the window due: a pinner tries, and is refused.
  EXPECT_TRUE(testing::WaitUntil([&] { return gpu_.Calls(GpuOp::kHostRegister) > 0; }));
  ++g_faults;
  for (int i = 0; i < 2; ++i) {
    FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
    ASSERT_EQ(ReadAsync(fh, kFile, 0), static_cast<ssize_t>(kFile));
    EXPECT_EQ(FirstDifference(file, 0), kFile);
  }
  const hipFileExtPathStats_t after = Paths();
  EXPECT_EQ(Read(after, hipFileExtPathPageCache), Read(before, hipFileExtPathPageCache));
  EXPECT_EQ(Read(after, hipFileExtPathDirect) + Read(after, hipFileExtPathBuffered) -
                Read(before, hipFileExtPathDirect) - Read(before, hipFileExtPathBuffered),
            4 * kFile);
}

// A system call failing in the staged part of a read that starts in a window: the window's bytes
// are the result (a short count), as for any read stopped by an error after some bytes.
TEST_P(AsyncPageCacheTest, AFailureAfterTheWindowGivesItsBytes) {
  const size_t file_size = kWindow + 8 * kMiB;
  void* fh = OpenFile("f", file_size);
  PinBySyncReads(fh, kWindow);
  // The second window is resident but not pinned: its bytes are staged, and the first pread fails.
  sys_.FailNth(SysOp::kPread, 1, EIO);
  ++g_faults;
  FillDevice(std::vector<unsigned char>(kBuffer, 0xee));
  const size_t size = 6 * kMiB;
  // An offset off 16 bytes, into memory off them alike: copied from the window all the same (an
  // aligned destination would be staged whole: StreamStagingTest).
  const off_t at = kWindow - 2 * kMiB - 5;
  ASSERT_EQ(ReadAsync(fh, size, at, 11), static_cast<ssize_t>(2 * kMiB + 5));
  const std::vector<unsigned char> file = Pattern(file_size);
  const std::vector<unsigned char> part(file.begin() + at, file.begin() + kWindow);
  EXPECT_EQ(FirstDifference(part, 11), part.size());
  EXPECT_EQ(DeviceBytes(11 + part.size() + 1)[11 + part.size()], 0xee)
      << "the failed part was copied";
  sys_.Reset();
  // Nothing is left broken: the same read again moves every byte.
  ASSERT_EQ(ReadAsync(fh, size, at, 11), static_cast<ssize_t>(size));
  const std::vector<unsigned char> whole(file.begin() + at, file.begin() + at + size);
  EXPECT_EQ(FirstDifference(whole, 11), size);
}

INSTANTIATE_TEST_SUITE_P(StreamOrdered, AsyncPageCacheTest, ::testing::Values(Path::kAsync),
                         PathName);

}  // namespace
}  // namespace hipfile::core
