// SPDX-License-Identifier: MIT
// hipFileBatchIO* through the C API and the process's driver: error values as the header states
// them, a round trip through GPU memory, properties, and several threads at once.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <time.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/process_runtime.h"
#include "fakes/batch_entry.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

class BatchApiTest : public ApiTest {
 protected:
  // Waits for `count` events.
  std::vector<hipFileIOEvents_t> Drain(hipFileBatchHandle_t batch, unsigned count) {
    std::vector<hipFileIOEvents_t> events;
    while (events.size() < count) {
      std::vector<hipFileIOEvents_t> got(count - events.size());
      unsigned nr = static_cast<unsigned>(got.size());
      EXPECT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, got.data(), nullptr)));
      if (nr == 0) break;
      events.insert(events.end(), got.begin(), got.begin() + nr);
    }
    return events;
  }
  static hipFileIOParams_t Entry(hipFileOpcode_t opcode, hipFileHandle_t fh, void* base,
                                 size_t size, int64_t offset, void* cookie) {
    return testing::BatchEntry(opcode, fh, base, size, offset, offset, cookie);
  }
};

TEST_F(BatchApiTest, PropertiesAdvertiseBatchIo) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  hipFileDriverProps_t props = {};
  ASSERT_TRUE(IsSuccess(hipFileDriverGetProperties(&props)));
  EXPECT_NE(props.feature_flags & (1u << hipFileBatchIOSupported), 0u);
  EXPECT_EQ(props.max_batch_io_count, 128u);
}

TEST_F(BatchApiTest, ArgumentErrorsAreOpErrors) {
  hipFileBatchHandle_t batch = nullptr;
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(nullptr, 1), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(&batch, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(&batch, 129), hipFileInvalidValue));
  EXPECT_EQ(batch, nullptr);
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 2)));
  const int fd = OpenFile("f", 8192, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  void* buf = DeviceAlloc(8192);
  hipFileIOParams_t entries[3] = {Entry(hipFileBatchRead, fh, buf, 4096, 0, nullptr),
                                  Entry(hipFileBatchRead, fh, buf, 4096, 4096, nullptr),
                                  Entry(hipFileBatchRead, fh, buf, 4096, 0, nullptr)};
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 0, entries, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 3, entries, 0), hipFileBatchFull));
  entries[1].fh = nullptr;
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 2, entries, 0), hipFileHandleNotRegistered));
  entries[1].fh = fh;
  EXPECT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 2, entries, 0xffffffffu)));  // flags ignored
  hipFileIOEvents_t events[2];
  unsigned nr = 2;
  timespec bad = {0, 1000000000};
  EXPECT_TRUE(IsOp(hipFileBatchIOGetStatus(batch, 0, &nr, events, &bad), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOGetStatus(batch, 3, &nr, events, nullptr), hipFileInvalidValue));
  EXPECT_EQ(Drain(batch, 2).size(), 2u);
  hipFileBatchIODestroy(batch);
  EXPECT_TRUE(IsOp(hipFileBatchIOCancel(batch), hipFileInvalidValue));
  hipFileBatchIODestroy(batch);  // ignored
}

TEST_F(BatchApiTest, WritesThenReadsThroughGpuMemory) {
  constexpr size_t kPiece = 4096;
  constexpr unsigned kCount = 128;
  constexpr size_t kSize = kPiece * kCount;
  const int in_fd = OpenFile("in", kSize, O_RDONLY);
  const int out_fd = OpenFile("out", 0, O_RDWR);
  hipFileHandle_t in = Register(in_fd);
  hipFileHandle_t out = Register(out_fd);
  void* buf = DeviceAlloc(kSize);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(buf, kSize, 0)));
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, kCount)));
  for (hipFileOpcode_t op : {hipFileBatchRead, hipFileBatchWrite}) {
    std::vector<hipFileIOParams_t> entries;
    for (unsigned i = 0; i < kCount; ++i) {
      entries.push_back(Entry(op, op == hipFileBatchRead ? in : out, buf, kPiece,
                              static_cast<int64_t>(i * kPiece),
                              reinterpret_cast<void*>(uintptr_t{i} + 1)));
    }
    ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, kCount, entries.data(), 0)));
    std::vector<bool> seen(kCount + 1);
    for (const hipFileIOEvents_t& e : Drain(batch, kCount)) {
      const auto cookie = reinterpret_cast<uintptr_t>(e.cookie);
      ASSERT_TRUE(cookie >= 1 && cookie <= kCount);
      EXPECT_FALSE(seen[cookie]);
      seen[cookie] = true;
      EXPECT_EQ(e.status, hipFileComplete);
      EXPECT_EQ(e.ret, kPiece);
    }
  }
  hipFileBatchIODestroy(batch);
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(buf)));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), testing::PatternBytes(kSize));
}

// The bug: batch handles stayed usable after the last hipFileDriverClose; hipFile drops them
// with the driver. Refused, untouched, whether the driver is closed or open again; destroying
// them is harmless.
TEST_F(BatchApiTest, BatchHandlesOutlivedTheLastDriverClose) {
  const int fd = OpenFile("f", 8192, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  void* buf = DeviceAlloc(8192);
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 2)));
  hipFileIOParams_t entry = Entry(hipFileBatchRead, fh, buf, 4096, 0, nullptr);
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 1, &entry, 0)));
  ASSERT_EQ(Drain(batch, 1).size(), 1u);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_EQ(hipFileUseCount(), 0);

  auto expect_refused = [&](const char* when) {
    hipFileIOEvents_t event = {};
    event.cookie = &event;
    unsigned nr = 1;
    timespec poll = {0, 0};
    EXPECT_TRUE(IsOp(hipFileBatchIOGetStatus(batch, 0, &nr, &event, &poll), hipFileInvalidValue))
        << when;
    EXPECT_EQ(nr, 1u) << when;
    EXPECT_EQ(event.cookie, &event) << when;
    EXPECT_TRUE(IsOp(hipFileBatchIOCancel(batch), hipFileInvalidValue)) << when;
    EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 1, &entry, 0), hipFileInvalidValue)) << when;
    hipFileBatchIODestroy(batch);
  };
  expect_refused("closed");
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  entry.fh = Register(fd);
  expect_refused("reopened");
  hipFileBatchHandle_t fresh = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&fresh, 2)));
  EXPECT_NE(fresh, batch);
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(fresh, 1, &entry, 0)));
  const std::vector<hipFileIOEvents_t> events = Drain(fresh, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].status, hipFileComplete);
  hipFileBatchIODestroy(fresh);
}

TEST_F(BatchApiTest, FailedEntriesCarryNegativeErrno) {
  const int fd = OpenFile("wo", 4096, O_WRONLY);
  hipFileHandle_t fh = Register(fd);
  void* buf = DeviceAlloc(4096);
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 1)));
  hipFileIOParams_t entry = Entry(hipFileBatchRead, fh, buf, 4096, 0, nullptr);
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 1, &entry, 0)));
  const std::vector<hipFileIOEvents_t> events = Drain(batch, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].status, hipFileFailed);
  EXPECT_EQ(static_cast<ssize_t>(events[0].ret), -EBADF);
  hipFileBatchIODestroy(batch);
}

TEST_F(BatchApiTest, ThreadsWithBatchesOfTheirOwn) {
  constexpr int kThreads = 4;
  constexpr unsigned kCount = 16;
  constexpr size_t kPiece = 8192;
  std::vector<hipFileHandle_t> files;
  std::vector<void*> bufs;
  for (int t = 0; t < kThreads; ++t) {
    files.push_back(Register(OpenFile("f" + std::to_string(t), kCount * kPiece, O_RDWR)));
    bufs.push_back(DeviceAlloc(kCount * kPiece));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      hipFileBatchHandle_t batch = nullptr;
      if (!IsSuccess(hipFileBatchIOSetUp(&batch, kCount))) {
        ++failures;
        return;
      }
      std::vector<hipFileIOParams_t> entries;
      for (unsigned i = 0; i < kCount; ++i) {
        entries.push_back(Entry(hipFileBatchRead, files[t], bufs[t], kPiece,
                                static_cast<int64_t>(i * kPiece), nullptr));
      }
      if (!IsSuccess(hipFileBatchIOSubmit(batch, kCount, entries.data(), 0))) ++failures;
      unsigned got = 0;
      while (got < kCount) {
        hipFileIOEvents_t events[kCount];
        unsigned nr = kCount;
        if (!IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events, nullptr))) ++failures;
        for (unsigned i = 0; i < nr; ++i) {
          if (events[i].status != hipFileComplete || events[i].ret != kPiece) ++failures;
        }
        got += nr;
      }
      hipFileBatchIODestroy(batch);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    std::vector<unsigned char> bytes(kCount * kPiece);
    ASSERT_EQ(ProcessRuntime().Memcpy(bytes.data(), bufs[t], bytes.size(), hipMemcpyDeviceToHost),
              hipSuccess);
    EXPECT_EQ(bytes, testing::PatternBytes(kCount * kPiece)) << t;
  }
}

}  // namespace
}  // namespace hipfile::api
