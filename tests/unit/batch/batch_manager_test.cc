// SPDX-License-Identifier: MIT
// BatchManager over a Driver on the CPU runtime: the rules of hipFileBatchIO* (spec §1.9),
// transfers checked byte for byte, per-entry errors, waiting, cancel and destroy while entries
// are held inside a system call, and many batches from many threads.
#include "core/batch/batch_manager.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "batch_test_util.h"

namespace hipfile::core {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

void* Cookie(uintptr_t n) { return reinterpret_cast<void*>(n); }
ssize_t Signed(size_t ret) { return static_cast<ssize_t>(ret); }

// Stores an int into a C enum field without forming an out-of-range enum value in C++.
template <class E>
void StoreRaw(E* field, int value) {
  static_assert(sizeof(E) == sizeof(int));
  std::memcpy(field, &value, sizeof value);
}

TEST_F(BatchTest, SetUpAcceptsOneToOneHundredTwentyEight) {
  EXPECT_TRUE(manager().SetUp(0).status().IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().SetUp(129).status().IsOp(hipFileInvalidValue));
  const Result<hipFileBatchHandle_t> one = manager().SetUp(1);
  const Result<hipFileBatchHandle_t> max = manager().SetUp(128);
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(max.ok());
  EXPECT_NE(*one, *max);
  EXPECT_EQ(manager().BatchCount(), 2u);
  EXPECT_EQ(driver().UseCount(), 0);  // set-up does not open the driver
  manager().Destroy(*one);
  manager().Destroy(*max);
  EXPECT_EQ(manager().BatchCount(), 0u);
}

TEST_F(BatchTest, SetUpHonoursTheIoBatchsizeParameter) {
  ASSERT_TRUE(driver().SetParameterSizeT(hipFileParamPropertiesIOBatchsize, 8).ok());
  EXPECT_TRUE(manager().SetUp(9).status().IsOp(hipFileInvalidValue));
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  manager().Destroy(*batch);
}

TEST_F(BatchTest, SubmitRefusesBadArgumentsUnknownBatchesAndAClosedDriver) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileIOParams_t entry = Entry(hipFileBatchRead, nullptr, nullptr, 1, 0, 0);
  EXPECT_TRUE(manager().Submit(*batch, 1, &entry).IsOp(hipFileDriverNotInitialized));

  hipFileHandle_t fh = OpenFile("f", 4096, O_RDWR);  // opens the driver
  void* buf = DeviceAlloc(4096);
  entry = Entry(hipFileBatchRead, fh, buf, 4096, 0, 0);
  EXPECT_TRUE(manager().Submit(*batch, 0, &entry).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().Submit(*batch, 1, nullptr).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().Submit(nullptr, 1, &entry).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().Submit(Cookie(0x12345), 1, &entry).IsOp(hipFileInvalidValue));
  const Result<hipFileBatchHandle_t> gone = manager().SetUp(4);
  ASSERT_TRUE(gone.ok());
  manager().Destroy(*gone);
  EXPECT_TRUE(manager().Submit(*gone, 1, &entry).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().Submit(*batch, 1, &entry).ok());
  EXPECT_EQ(Drain(*batch, 1).size(), 1u);
}

TEST_F(BatchTest, SubmitValidatesEveryFieldOfAnEntry) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(8192);
  ASSERT_TRUE(driver().RegisterBuffer(buf, 8192, 0).ok());
  std::vector<unsigned char> pageable(8192);

  struct Case {
    const char* what;
    hipFileIOParams_t entry;
    Status expected;
  };
  const hipFileIOParams_t good = Entry(hipFileBatchRead, fh, buf, 4096, 0, 0);
  std::vector<Case> cases;
  auto add = [&](const char* what, Status expected, auto change) {
    Case c{what, good, expected};
    change(c.entry);
    cases.push_back(c);
  };
  const Status invalid = Status::Op(hipFileInvalidValue);
  // Values outside the enums, stored as a C caller would.
  add("mode 0", invalid, [](hipFileIOParams_t& e) { StoreRaw(&e.mode, 0); });
  add("mode 7", invalid, [](hipFileIOParams_t& e) { StoreRaw(&e.mode, 7); });
  add("opcode 2", invalid, [](hipFileIOParams_t& e) { StoreRaw(&e.opcode, 2); });
  add("opcode -1", invalid, [](hipFileIOParams_t& e) { StoreRaw(&e.opcode, -1); });
  add("handle", Status::Op(hipFileHandleNotRegistered),
      [](hipFileIOParams_t& e) { e.fh = Cookie(0x999); });
  add("pageable memory", Status::Op(hipFileHipMemoryTypeInvalid),
      [&](hipFileIOParams_t& e) { e.u.batch.devPtr_base = pageable.data(); });
  add("file_offset < 0", invalid, [](hipFileIOParams_t& e) { e.u.batch.file_offset = -1; });
  add("devPtr_offset < 0", invalid, [](hipFileIOParams_t& e) { e.u.batch.devPtr_offset = -1; });
  add("devPtr_offset == length", invalid, [](hipFileIOParams_t& e) {
    e.u.batch.devPtr_offset = 8192;
    e.u.batch.size = 0;
  });
  add("size past the buffer", invalid, [](hipFileIOParams_t& e) {
    e.u.batch.devPtr_offset = 4096;
    e.u.batch.size = 4097;
  });
  for (const Case& c : cases) {
    // The bad entry last: nothing of the submission may be accepted.
    hipFileIOParams_t entries[2] = {good, c.entry};
    EXPECT_EQ(manager().Submit(*batch, 2, entries), c.expected) << c.what;
  }
  unsigned nr = 8;
  hipFileIOEvents_t events[8];
  timespec poll = {0, 0};
  ASSERT_TRUE(manager().GetStatus(*batch, 0, &nr, events, &poll).ok());
  EXPECT_EQ(nr, 0u);
  // The whole capacity is still free, and the edges of the rules are accepted. (Entries that
  // run at once use disjoint memory.)
  void* other = DeviceAlloc(8 * 4096);
  std::vector<hipFileIOParams_t> edges(8);
  edges[0] = good;
  edges[1] = Entry(hipFileBatchRead, fh, buf, 4096, 0, 4096);        // ends at the buffer's end
  edges[2] = Entry(hipFileBatchRead, fh, buf, 0, 0, 8191);           // size 0 at the last byte
  edges[3] = Entry(hipFileBatchWrite, fh, other, 4096, 1 << 20, 0);  // past the end of the file
  for (int i = 4; i < 8; ++i) edges[i] = Entry(hipFileBatchRead, fh, other, 4096, 0, i * 4096);
  EXPECT_TRUE(manager().Submit(*batch, 8, edges.data()).ok());
  EXPECT_EQ(Drain(*batch, 8).size(), 8u);
}

TEST_F(BatchTest, AFailedSubmissionWritesNothing) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 8192, O_RDWR);
  void* buf = DeviceAlloc(4096);
  FillDevice(buf, std::vector<unsigned char>(4096, 0xAB));
  hipFileIOParams_t entries[2] = {Entry(hipFileBatchWrite, fh, buf, 4096, 0, 0),
                                  Entry(hipFileBatchWrite, fh, buf, 4096, -5, 0)};
  EXPECT_TRUE(manager().Submit(*batch, 2, entries).IsOp(hipFileInvalidValue));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("f")), testing::PatternBytes(8192));
}

TEST_F(BatchTest, BatchFullCountsEntriesUntilTheirEventsAreReturned) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 5; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096));
  }
  EXPECT_TRUE(manager().Submit(*batch, 5, entries.data()).IsOp(hipFileBatchFull));
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*batch, 3, entries.data()).ok());
  EXPECT_TRUE(manager().Submit(*batch, 2, entries.data()).IsOp(hipFileBatchFull));
  ASSERT_TRUE(manager().Submit(*batch, 1, entries.data() + 3).ok());
  sys_.OpenGate();
  ASSERT_TRUE(manager().Cancel(*batch).ok());  // waits until none is running
  // Four terminal events not yet returned still fill the batch.
  EXPECT_TRUE(manager().Submit(*batch, 1, entries.data()).IsOp(hipFileBatchFull));
  hipFileIOEvents_t events[4];
  unsigned nr = 2;
  ASSERT_TRUE(manager().GetStatus(*batch, 2, &nr, events, nullptr).ok());
  ASSERT_EQ(nr, 2u);
  EXPECT_TRUE(manager().Submit(*batch, 3, entries.data()).IsOp(hipFileBatchFull));
  EXPECT_TRUE(manager().Submit(*batch, 2, entries.data()).ok());
  EXPECT_EQ(Drain(*batch, 4).size(), 4u);
  EXPECT_TRUE(manager().Submit(*batch, 4, entries.data()).ok());
  EXPECT_EQ(Drain(*batch, 4).size(), 4u);
}

TEST_F(BatchTest, MixedReadsAndWritesAreByteExact) {
  constexpr size_t kFile = 1 << 20;
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(128);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t in = OpenFile("in", kFile, O_RDWR);
  hipFileHandle_t out = OpenFile("out", 0, O_RDWR);
  void* dst = DeviceAlloc(kFile);
  void* src = DeviceAlloc(kFile);
  const std::vector<unsigned char> fresh = testing::PatternBytes(kFile, 7);
  FillDevice(src, fresh);
  ASSERT_TRUE(driver().RegisterBuffer(src, kFile, 0).ok());

  // 64 reads and 64 writes interleaved, aligned and unaligned, covering both files exactly.
  std::vector<hipFileIOParams_t> entries;
  constexpr size_t kPiece = kFile / 64;
  for (size_t i = 0; i < 64; ++i) {
    const size_t skew = (i % 3 == 0) ? 0 : 511 * (i % 7);  // some pieces start unaligned
    const size_t begin = i * kPiece + (i == 0 ? 0 : skew);
    const size_t end = (i + 1) * kPiece + (i == 63 ? 0 : 511 * ((i + 1) % 7) * ((i + 1) % 3 != 0));
    const auto off = static_cast<int64_t>(begin);
    entries.push_back(Entry(hipFileBatchRead, in, dst, end - begin, off, off, Cookie(1000 + i)));
    entries.push_back(Entry(hipFileBatchWrite, out, src, end - begin, off, off, Cookie(2000 + i)));
  }
  ASSERT_TRUE(manager().Submit(*batch, static_cast<unsigned>(entries.size()), entries.data()).ok());
  const std::vector<hipFileIOEvents_t> events = Drain(*batch, 128);
  ASSERT_EQ(events.size(), 128u);
  std::vector<bool> seen(entries.size());
  for (const hipFileIOEvents_t& e : events) {
    const auto c = reinterpret_cast<uintptr_t>(e.cookie);
    const size_t index = c >= 2000 ? 2 * (c - 2000) + 1 : 2 * (c - 1000);
    ASSERT_LT(index, entries.size());
    EXPECT_FALSE(seen[index]);
    seen[index] = true;
    EXPECT_EQ(e.status, hipFileComplete);
    EXPECT_EQ(e.ret, entries[index].u.batch.size);
  }
  EXPECT_EQ(DeviceBytes(dst, kFile), testing::PatternBytes(kFile));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), fresh);
}

TEST_F(BatchTest, ErrorsOfOneEntryAreReportedInItsEvent) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("short", 10000, O_RDWR);
  hipFileHandle_t write_only = OpenFile("wo", 8192, O_WRONLY);
  void* buf = DeviceAlloc(1 << 16);
  hipFileIOParams_t entries[4] = {
      Entry(hipFileBatchRead, fh, buf, 8192, 8192, 0, Cookie(1)),           // short at EOF
      Entry(hipFileBatchRead, fh, buf, 4096, 20000, 8192, Cookie(2)),       // past EOF
      Entry(hipFileBatchRead, write_only, buf, 4096, 0, 16384, Cookie(3)),  // EBADF
      Entry(hipFileBatchRead, fh, buf, 4096, 0, 32768, Cookie(4)),          // fine
  };
  ASSERT_TRUE(manager().Submit(*batch, 4, entries).ok());
  for (const hipFileIOEvents_t& e : Drain(*batch, 4)) {
    switch (reinterpret_cast<uintptr_t>(e.cookie)) {
      case 1:
        EXPECT_EQ(e.status, hipFileComplete);
        EXPECT_EQ(e.ret, 10000u - 8192u);
        break;
      case 2:
        EXPECT_EQ(e.status, hipFileComplete);
        EXPECT_EQ(e.ret, 0u);
        break;
      case 3:
        EXPECT_EQ(e.status, hipFileFailed);
        EXPECT_EQ(Signed(e.ret), -EBADF);
        break;
      case 4:
        EXPECT_EQ(e.status, hipFileComplete);
        EXPECT_EQ(e.ret, 4096u);
        break;
      default:
        ADD_FAILURE() << "unknown cookie " << e.cookie;
    }
  }
  // An I/O error from the device, then a write that fails the same way.
  sys_.FailAlways(testing::SysOp::kPread, EIO);
  sys_.FailAlways(testing::SysOp::kPwrite, EIO);
  hipFileIOParams_t failing[2] = {Entry(hipFileBatchRead, fh, buf, 4096, 0, 0, Cookie(5)),
                                  Entry(hipFileBatchWrite, fh, buf, 4096, 0, 40960, Cookie(6))};
  ASSERT_TRUE(manager().Submit(*batch, 2, failing).ok());
  for (const hipFileIOEvents_t& e : Drain(*batch, 2)) {
    EXPECT_EQ(e.status, hipFileFailed);
    EXPECT_EQ(Signed(e.ret), -EIO);
  }
  sys_.Reset();
}

// Off, the compatibility switch fails only the entries the compatibility path would move
// (unaligned, through staging); aligned entries take O_DIRECT, and are not grouped through
// buffered staging.
TEST_F(BatchTest, OnlyEntriesNeedingTheCompatibilityPathFailWhenItIsOff) {
  ASSERT_TRUE(driver().SetParameterBool(hipFileParamPropertiesAllowCompatMode, false).ok());
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(2);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 8192, O_RDWR);
  void* buf = DeviceAlloc(8192);
  hipFileIOParams_t entries[2] = {Entry(hipFileBatchRead, fh, buf, 4096, 0, 0, Cookie(1)),
                                  Entry(hipFileBatchRead, fh, buf, 100, 1, 4096, Cookie(2))};
  ASSERT_TRUE(manager().Submit(*batch, 2, entries).ok());
  const std::vector<hipFileIOEvents_t> events = Drain(*batch, 2);
  ASSERT_EQ(events.size(), 2u);
  for (const hipFileIOEvents_t& e : events) {
    if (e.cookie == Cookie(1)) {
      EXPECT_EQ(e.status, hipFileComplete);
      EXPECT_EQ(e.ret, 4096u);
    } else {
      EXPECT_EQ(e.status, hipFileFailed);
      EXPECT_EQ(Signed(e.ret), -static_cast<ssize_t>(hipFileInternalError));
    }
  }
}

TEST_F(BatchTest, GetStatusRefusesBadArguments) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileIOEvents_t events[4];
  unsigned nr = 4;
  timespec ok = {0, 0};
  auto get = [&](hipFileBatchHandle_t b, unsigned min_nr, unsigned* n, hipFileIOEvents_t* ev,
                 const timespec* t) { return manager().GetStatus(b, min_nr, n, ev, t); };
  EXPECT_TRUE(get(*batch, 0, &nr, nullptr, &ok).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(get(*batch, 0, nullptr, events, &ok).IsOp(hipFileInvalidValue));
  nr = 0;
  EXPECT_TRUE(get(*batch, 0, &nr, events, &ok).IsOp(hipFileInvalidValue));
  nr = 2;
  EXPECT_TRUE(get(*batch, 3, &nr, events, &ok).IsOp(hipFileInvalidValue));
  for (const timespec bad : {timespec{-1, 0}, timespec{0, -1}, timespec{0, 1000000000}}) {
    nr = 2;
    EXPECT_TRUE(get(*batch, 0, &nr, events, &bad).IsOp(hipFileInvalidValue));
  }
  nr = 2;
  EXPECT_TRUE(get(Cookie(0x777), 0, &nr, events, &ok).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(get(*batch, 2, &nr, events, &ok).ok());
  EXPECT_EQ(nr, 0u);
  // A huge timeout with nothing outstanding returns at once.
  timespec huge = {std::numeric_limits<time_t>::max(), 999999999};
  nr = 2;
  EXPECT_TRUE(get(*batch, 1, &nr, events, &huge).ok());
  EXPECT_EQ(nr, 0u);
}

TEST_F(BatchTest, PollTimeoutMinNrAndEventsReturnedOnce) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 4; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096, Cookie(i + 1)));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*batch, 4, entries.data()).ok());
  ASSERT_TRUE(sys_.WaitHeld(kWorkers));

  hipFileIOEvents_t events[8];
  unsigned nr = 8;
  timespec poll = {0, 0};
  auto start = Clock::now();
  ASSERT_TRUE(manager().GetStatus(*batch, 1, &nr, events, &poll).ok());
  EXPECT_EQ(nr, 0u);
  EXPECT_LT(Clock::now() - start, milliseconds(40));

  nr = 8;
  timespec fifty_ms = {0, 50000000};
  start = Clock::now();
  ASSERT_TRUE(manager().GetStatus(*batch, 1, &nr, events, &fifty_ms).ok());
  const auto waited = Clock::now() - start;
  EXPECT_EQ(nr, 0u);
  EXPECT_GE(waited, milliseconds(45));
  EXPECT_LT(waited, milliseconds(500));

  sys_.OpenGate();
  // min_nr 6 is capped at the 4 outstanding; no timeout waits for them all.
  nr = 8;
  ASSERT_TRUE(manager().GetStatus(*batch, 6, &nr, events, nullptr).ok());
  EXPECT_EQ(nr, 4u);
  std::vector<bool> seen(5);
  for (unsigned i = 0; i < nr; ++i) {
    const auto c = reinterpret_cast<uintptr_t>(events[i].cookie);
    ASSERT_TRUE(c >= 1 && c <= 4);
    EXPECT_FALSE(seen[c]);
    seen[c] = true;
    EXPECT_EQ(events[i].status, hipFileComplete);
    EXPECT_EQ(events[i].ret, 4096u);
  }
  nr = 8;
  ASSERT_TRUE(manager().GetStatus(*batch, 0, &nr, events, &poll).ok());
  EXPECT_EQ(nr, 0u);  // returned once
}

TEST_F(BatchTest, NrBoundsTheEventsReturned) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 5; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096));
  }
  ASSERT_TRUE(manager().Submit(*batch, 5, entries.data()).ok());
  hipFileIOEvents_t events[5];
  unsigned nr = 3;
  ASSERT_TRUE(manager().GetStatus(*batch, 3, &nr, events, nullptr).ok());
  EXPECT_EQ(nr, 3u);
  nr = 3;
  ASSERT_TRUE(manager().GetStatus(*batch, 2, &nr, events, nullptr).ok());
  EXPECT_EQ(nr, 2u);
}

// Batch runs on the driver's I/O threads, sized by ExecutionMaxIOThreads at the open and started
// at the first submission.
TEST_F(BatchTest, EntriesRunOnTheDriversIoThreads) {
  workers_ = 0;
  ASSERT_TRUE(driver().SetParameterSizeT(hipFileParamExecutionMaxIOThreads, 3).ok());
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(1);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(driver().io_pool().running(), 0u) << "no thread before the first submission";
  hipFileHandle_t fh = OpenFile("f", 4096, O_RDWR);
  void* buf = DeviceAlloc(4096);
  const hipFileIOParams_t entry = Entry(hipFileBatchRead, fh, buf, 4096, 0, 0);
  ASSERT_TRUE(manager().Submit(*batch, 1, &entry).ok());
  EXPECT_EQ(Drain(*batch, 1).size(), 1u);
  EXPECT_EQ(driver().io_pool().size(), 3u);
  EXPECT_EQ(driver().io_pool().running(), 3u);
}

TEST_F(BatchTest, EntriesRunConcurrentlyOnTheWorkers) {
  workers_ = 4;
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 4; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*batch, 4, entries.data()).ok());
  EXPECT_TRUE(sys_.WaitHeld(4));  // all four inside pread at once
  EXPECT_EQ(driver().io_pool().running(), 4u);
  sys_.OpenGate();
  EXPECT_EQ(Drain(*batch, 4).size(), 4u);
}

TEST_F(BatchTest, CancelWhileBusyCancelsQueuedEntriesAndWaitsForRunningOnes) {
  // Each worker claims a group of small entries, its share of those pending (at most
  // kMaxGroupEntries, K): of 2K + 8 over 2 workers, K then K/2 + 4; the rest stay queued.
  constexpr int kGroup = static_cast<int>(BatchManager::kMaxGroupEntries);
  static_assert(kWorkers == 2 && kGroup % 2 == 0);
  constexpr int kEntries = 2 * kGroup + 8;
  constexpr int kRun = kGroup + kGroup / 2 + 4;
  constexpr size_t kBytes = size_t{kEntries} * 4096;
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(kEntries);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", kBytes, O_RDWR);
  void* buf = DeviceAlloc(kBytes);
  ASSERT_TRUE(driver().RegisterBuffer(buf, kBytes, 0).ok());
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < kEntries; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096, Cookie(i + 1)));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*batch, kEntries, entries.data()).ok());
  ASSERT_TRUE(sys_.WaitHeld(kWorkers));

  std::atomic<bool> returned{false};
  std::thread canceller([&] {
    EXPECT_TRUE(manager().Cancel(*batch).ok());
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(returned);  // the two running groups hold it
  sys_.OpenGate();
  canceller.join();

  const std::vector<hipFileIOEvents_t> events = Drain(*batch, kEntries);
  ASSERT_EQ(events.size(), static_cast<size_t>(kEntries));
  int complete = 0, canceled = 0;
  for (const hipFileIOEvents_t& e : events) {
    if (e.status == hipFileComplete) {
      ++complete;
      EXPECT_EQ(e.ret, 4096u);
    } else {
      EXPECT_EQ(e.status, hipFileCanceled);
      EXPECT_EQ(e.ret, 0u);
      ++canceled;
    }
  }
  EXPECT_EQ(complete, kRun);
  EXPECT_EQ(canceled, kEntries - kRun);
  // Nothing holds the buffer any more, and the batch takes new work.
  EXPECT_TRUE(driver().DeregisterBuffer(buf).ok());
  hipFileIOParams_t again = Entry(hipFileBatchRead, fh, buf, 4096, 0, 0);
  ASSERT_TRUE(manager().Submit(*batch, 1, &again).ok());
  EXPECT_EQ(Drain(*batch, 1).size(), 1u);
}

TEST_F(BatchTest, DestroyWhileBusyIsSafeAndForgetsTheHandle) {
  // Each worker claims a full group (kMaxGroupEntries) of the busy batch, whose entries are
  // queued first: both are held inside it and nothing of the other batch starts.
  constexpr int kBusy = static_cast<int>(kWorkers * BatchManager::kMaxGroupEntries);
  const Result<hipFileBatchHandle_t> busy = manager().SetUp(kBusy);
  const Result<hipFileBatchHandle_t> queued = manager().SetUp(16);
  ASSERT_TRUE(busy.ok());
  ASSERT_TRUE(queued.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  ASSERT_TRUE(driver().RegisterBuffer(buf, 1 << 16, 0).ok());
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < kBusy; ++i) {
    entries.push_back(Entry(hipFileBatchWrite, fh, buf, 4096, i * 4096, (i % 16) * 4096));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*busy, kBusy, entries.data()).ok());
  ASSERT_TRUE(manager().Submit(*queued, 16, entries.data()).ok());  // all behind the first
  ASSERT_TRUE(sys_.WaitHeld(kWorkers));
  manager().Destroy(*queued);  // nothing of it runs: returns at once
  std::atomic<bool> returned{false};
  std::thread destroyer([&] {
    manager().Destroy(*busy);
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(returned);
  sys_.OpenGate();
  destroyer.join();
  EXPECT_EQ(manager().BatchCount(), 0u);
  unsigned nr = 1;
  hipFileIOEvents_t event;
  EXPECT_TRUE(manager().GetStatus(*busy, 0, &nr, &event, nullptr).IsOp(hipFileInvalidValue));
  EXPECT_TRUE(manager().Cancel(*busy).IsOp(hipFileInvalidValue));
  manager().Destroy(*busy);         // twice: ignored
  manager().Destroy(Cookie(4242));  // never made: ignored
  EXPECT_TRUE(driver().DeregisterBuffer(buf).ok());
}

// The bug: batches outlived the driver's last close (hipFileBatchIOGetStatus went on succeeding
// on them); hipFile drops them with the driver. Every call on a dropped handle is refused without
// touching its arguments, also once the driver is open again, and destroying it is harmless.
TEST_F(BatchTest, BatchHandlesOutlivedTheLastDriverClose) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);  // opens the driver
  void* buf = DeviceAlloc(1 << 16);
  hipFileIOParams_t entry = Entry(hipFileBatchRead, fh, buf, 4096, 0, 0, Cookie(1));
  ASSERT_TRUE(manager().Submit(*batch, 1, &entry).ok());
  ASSERT_EQ(Drain(*batch, 1).size(), 1u);
  ASSERT_TRUE(manager().Submit(*batch, 1, &entry).ok());  // an event left uncollected
  ASSERT_TRUE(driver().Open().ok());
  ASSERT_TRUE(driver().Close().ok());  // not the last: nothing dropped
  EXPECT_EQ(manager().BatchCount(), 1u);
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_EQ(manager().BatchCount(), 0u);

  auto expect_refused = [&](const char* when) {
    hipFileIOEvents_t event = {};
    event.cookie = Cookie(77);
    unsigned nr = 1;
    EXPECT_TRUE(manager().GetStatus(*batch, 0, &nr, &event, nullptr).IsOp(hipFileInvalidValue))
        << when;
    EXPECT_EQ(nr, 1u) << when;
    EXPECT_EQ(event.cookie, Cookie(77)) << when;
    EXPECT_TRUE(manager().Cancel(*batch).IsOp(hipFileInvalidValue)) << when;
    EXPECT_TRUE(manager().Submit(*batch, 1, &entry).IsOp(hipFileInvalidValue)) << when;
    manager().Destroy(*batch);  // ignored
  };
  expect_refused("closed");
  ASSERT_TRUE(driver().Open().ok());
  entry.fh = OpenFile("g", 1 << 16, O_RDWR);
  expect_refused("reopened");
  // New batches work; they get new handles. The entry reads into bytes of its own: the dropped
  // batch's last entry may still be reading into the first 4 KiB (the close does not wait).
  entry.u.batch.devPtr_offset = 8192;
  const Result<hipFileBatchHandle_t> fresh = manager().SetUp(4);
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(*fresh, *batch);
  ASSERT_TRUE(manager().Submit(*fresh, 1, &entry).ok());
  const std::vector<hipFileIOEvents_t> events = Drain(*fresh, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].status, hipFileComplete);
  ASSERT_TRUE(driver().Close().ok());
}

// Batches set up while the driver is closed belong to its next open, and go with its last close.
TEST_F(BatchTest, ABatchSetUpWhileClosedLivesUntilTheNextLastClose) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(4);
  ASSERT_TRUE(batch.ok());
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_TRUE(manager().Cancel(*batch).ok());
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_TRUE(manager().Cancel(*batch).IsOp(hipFileInvalidValue));
}

// The close cancels queued entries at once, every dropped batch's (a waiter gets their events),
// and returns only once the running ones finished, with the right bytes: after it the program
// may free the batches' memory.
TEST_F(BatchTest, TheLastDriverCloseCancelsQueuedEntriesAndWaitsForRunningOnes) {
  workers_ = 1;  // held in its first group, so everything else stays queued
  constexpr int kBusy = 32;
  constexpr size_t kBytes = kBusy * 4096;
  const Result<hipFileBatchHandle_t> busy = manager().SetUp(kBusy);
  const Result<hipFileBatchHandle_t> queued = manager().SetUp(16);
  ASSERT_TRUE(busy.ok());
  ASSERT_TRUE(queued.ok());
  hipFileHandle_t fh = OpenFile("f", kBytes, O_RDWR);
  void* buf = DeviceAlloc(kBytes);
  void* other = DeviceAlloc(16 * 4096);
  FillDevice(buf, std::vector<unsigned char>(kBytes, 0x5a));
  FillDevice(other, std::vector<unsigned char>(16 * 4096, 0x5a));
  std::vector<hipFileIOParams_t> reads, later;
  for (int i = 0; i < kBusy; ++i) {
    reads.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096, Cookie(i + 1)));
  }
  for (int i = 0; i < 16; ++i) {
    later.push_back(Entry(hipFileBatchRead, fh, other, 4096, i * 4096, i * 4096, Cookie(i + 1)));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*busy, kBusy, reads.data()).ok());
  ASSERT_TRUE(manager().Submit(*queued, 16, later.data()).ok());
  ASSERT_TRUE(sys_.WaitHeld(1));
  // Waiters for every event of each batch, inside GetStatus before the close.
  auto wait_all = [&](hipFileBatchHandle_t batch, unsigned count) {
    std::vector<hipFileIOEvents_t> events(count);
    unsigned nr = count;
    EXPECT_TRUE(manager().GetStatus(batch, count, &nr, events.data(), nullptr).ok());
    events.resize(nr);
    return events;
  };
  std::vector<hipFileIOEvents_t> busy_events, queued_events;
  std::thread busy_waiter([&] { busy_events = wait_all(*busy, kBusy); });
  std::thread queued_waiter([&] { queued_events = wait_all(*queued, 16); });
  std::this_thread::sleep_for(milliseconds(100));

  std::atomic<bool> closed{false};
  std::thread closer([&] {
    EXPECT_TRUE(driver().Close().ok());
    closed = true;
  });
  queued_waiter.join();  // with the gate still closed: not left waiting behind running entries
  ASSERT_EQ(queued_events.size(), 16u);
  for (const hipFileIOEvents_t& e : queued_events) {
    EXPECT_EQ(e.status, hipFileCanceled);
    EXPECT_EQ(e.ret, 0u);
  }
  EXPECT_EQ(manager().BatchCount(), 0u);
  unsigned nr = 1;
  hipFileIOEvents_t event;
  EXPECT_TRUE(manager().GetStatus(*busy, 0, &nr, &event, nullptr).IsOp(hipFileInvalidValue));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(closed) << "the close returned with an entry still running";

  // The busy batch's waiter gets its canceled entries and, once they finish, its running ones;
  // the close returns then.
  sys_.OpenGate();
  closer.join();
  EXPECT_TRUE(closed);
  busy_waiter.join();
  ASSERT_EQ(busy_events.size(), static_cast<size_t>(kBusy));
  const std::vector<unsigned char> file = testing::PatternBytes(kBytes);
  const std::vector<unsigned char> got = DeviceBytes(buf, kBytes);
  const std::vector<unsigned char> untouched(4096, 0x5a);
  int complete = 0, canceled = 0;
  for (const hipFileIOEvents_t& e : busy_events) {
    const size_t i = reinterpret_cast<uintptr_t>(e.cookie) - 1;
    ASSERT_LT(i, static_cast<size_t>(kBusy));
    const bool read =
        std::equal(got.begin() + i * 4096, got.begin() + (i + 1) * 4096, file.begin() + i * 4096);
    if (e.status == hipFileComplete) {
      ++complete;
      EXPECT_EQ(e.ret, 4096u);
      EXPECT_TRUE(read) << i;
    } else {
      ++canceled;
      EXPECT_EQ(e.status, hipFileCanceled);
      EXPECT_TRUE(std::equal(untouched.begin(), untouched.end(), got.begin() + i * 4096)) << i;
    }
  }
  EXPECT_GE(complete, 1) << "the entry held in flight finished";
  EXPECT_GE(canceled, 1) << "one worker claims no more than a group";
  EXPECT_EQ(DeviceBytes(other, 16 * 4096), std::vector<unsigned char>(16 * 4096, 0x5a));
}

TEST_F(BatchTest, DestroyingTheManagerWithWorkInFlightIsSafe) {
  const Result<hipFileBatchHandle_t> batch = manager().SetUp(8);
  ASSERT_TRUE(batch.ok());
  hipFileHandle_t fh = OpenFile("f", 1 << 16, O_RDWR);
  void* buf = DeviceAlloc(1 << 16);
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 8; ++i) {
    entries.push_back(Entry(hipFileBatchRead, fh, buf, 4096, i * 4096, i * 4096));
  }
  sys_.CloseGate();
  ASSERT_TRUE(manager().Submit(*batch, 8, entries.data()).ok());
  ASSERT_TRUE(sys_.WaitHeld(kWorkers));
  std::thread opener([&] {
    std::this_thread::sleep_for(milliseconds(30));
    sys_.OpenGate();
  });
  manager_.reset();
  opener.join();
}

TEST_F(BatchTest, ManyThreadsWithBatchesOfTheirOwn) {
  workers_ = 4;
  constexpr int kThreads = 8;
  constexpr unsigned kEntries = 32;
  constexpr size_t kPiece = 4096;
  constexpr size_t kFile = kEntries * kPiece;
  std::vector<hipFileHandle_t> files(kThreads);
  std::vector<void*> sources(kThreads), sinks(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    files[t] = OpenFile("f" + std::to_string(t), 0, O_RDWR);
    sources[t] = DeviceAlloc(kFile);
    sinks[t] = DeviceAlloc(kFile);
    FillDevice(sources[t], testing::PatternBytes(kFile, 100 + t));
  }
  BatchManager& batches = manager();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Result<hipFileBatchHandle_t> batch = batches.SetUp(kEntries);
      if (!batch.ok()) {
        ++failures;
        return;
      }
      for (int round = 0; round < 3; ++round) {
        for (hipFileOpcode_t op : {hipFileBatchWrite, hipFileBatchRead}) {
          std::vector<hipFileIOParams_t> entries;
          for (unsigned i = 0; i < kEntries; ++i) {
            const auto off = static_cast<int64_t>(i * kPiece);
            entries.push_back(Entry(op, files[t], op == hipFileBatchWrite ? sources[t] : sinks[t],
                                    kPiece, off, off));
          }
          if (!batches.Submit(*batch, kEntries, entries.data()).ok()) ++failures;
          unsigned got = 0;
          while (got < kEntries) {
            hipFileIOEvents_t events[kEntries];
            unsigned nr = kEntries;
            timespec ten_ms = {0, 10000000};
            if (!batches.GetStatus(*batch, 1, &nr, events, &ten_ms).ok()) ++failures;
            for (unsigned i = 0; i < nr; ++i) {
              if (events[i].status != hipFileComplete || events[i].ret != kPiece) ++failures;
            }
            got += nr;
          }
        }
      }
      batches.Destroy(*batch);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(DeviceBytes(sinks[t], kFile), testing::PatternBytes(kFile, 100 + t)) << t;
  }
}

}  // namespace
}  // namespace hipfile::core
