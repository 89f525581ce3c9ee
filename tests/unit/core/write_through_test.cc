// SPDX-License-Identifier: MIT
// HIPFILE_WRITE_THROUGH: a write reported done was flushed with fdatasync first, and a flush
// that fails fails the write; without it no write flushes (pwrite's promise: the bytes are in the
// page cache). Sync writes and batch writes.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>

#include "core/batch/batch_manager.h"
#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::SysOp;

class WriteThroughTest : public CoreTest {
 protected:
  void Open(bool write_through) {
    sys_.Set("HIPFILE_WRITE_THROUGH", write_through ? "true" : "false");
    path_ = MakeFile("out.bin", kBytes);
    fd_ = std::make_unique<ScopedFd>(path_, O_RDWR);
    Result<void*> handle = driver().RegisterHandle(fd_->get());
    ASSERT_TRUE(handle.ok()) << handle.status().ToString();
    handle_ = *handle;
    device_ = DeviceAlloc(kBytes);
  }
  static constexpr size_t kBytes = 1 << 20;
  std::string path_;
  std::unique_ptr<ScopedFd> fd_;
  void* handle_ = nullptr;
  void* device_ = nullptr;
};

TEST_F(WriteThroughTest, AWriteIsFlushedBeforeItIsReportedDone) {
  Open(true);
  const uint64_t before = sys_.Calls(SysOp::kFdatasync);
  const Result<size_t> wrote = driver().Write(handle_, device_, kBytes, 0, 0);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  EXPECT_EQ(*wrote, kBytes);
  EXPECT_EQ(sys_.Calls(SysOp::kFdatasync), before + 1);
}

TEST_F(WriteThroughTest, AFlushThatFailsFailsTheWrite) {
  Open(true);
  sys_.FailNth(SysOp::kFdatasync, 1, EIO);
  const Result<size_t> wrote = driver().Write(handle_, device_, kBytes, 0, 0);
  ASSERT_FALSE(wrote.ok());
  EXPECT_TRUE(wrote.status().IsErrno(EIO)) << wrote.status().ToString();
}

TEST_F(WriteThroughTest, WithoutItNoWriteFlushes) {
  Open(false);
  const uint64_t before = sys_.Calls(SysOp::kFdatasync);
  ASSERT_TRUE(driver().Write(handle_, device_, kBytes, 0, 0).ok());
  EXPECT_EQ(sys_.Calls(SysOp::kFdatasync), before);
}

TEST_F(WriteThroughTest, BatchWritesAreFlushedAndAFailedFlushFailsTheirEntries) {
  Open(true);
  BatchManager batches(driver());
  Result<hipFileBatchHandle_t> batch = batches.SetUp(4);
  ASSERT_TRUE(batch.ok());
  hipFileIOParams_t params[4] = {};
  for (int i = 0; i < 4; ++i) {
    params[i].mode = hipFileBatch;
    params[i].fh = handle_;
    params[i].opcode = hipFileBatchWrite;
    params[i].u.batch.devPtr_base = device_;
    params[i].u.batch.devPtr_offset = i * 4096;
    params[i].u.batch.file_offset = i * 4096;
    params[i].u.batch.size = 4096;
  }
  for (const bool fail : {false, true}) {
    if (fail) sys_.FailAlways(SysOp::kFdatasync, EIO);
    const uint64_t before = sys_.Calls(SysOp::kFdatasync);
    ASSERT_TRUE(batches.Submit(*batch, 4, params).ok());
    hipFileIOEvents_t events[4];
    unsigned got = 0;
    while (got < 4) {
      unsigned nr = 4 - got;
      ASSERT_TRUE(batches.GetStatus(*batch, 1, &nr, events + got, nullptr).ok());
      got += nr;
    }
    EXPECT_GE(sys_.Calls(SysOp::kFdatasync), before + 1);
    for (const hipFileIOEvents_t& e : events) {
      if (fail) {
        EXPECT_EQ(e.status, hipFileFailed);
        EXPECT_EQ(static_cast<ssize_t>(e.ret), -EIO);
      } else {
        EXPECT_EQ(e.status, hipFileComplete);
        EXPECT_EQ(e.ret, 4096u);
      }
    }
  }
  batches.Destroy(*batch);
}

}  // namespace
}  // namespace hipfile::core
