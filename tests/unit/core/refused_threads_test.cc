// SPDX-License-Identifier: MIT
// Threads the system refuses (Sys::StartThread failing, as at RLIMIT_NPROC or a container's pid
// limit) on every path that starts some: a multi-chunk read is done by the caller alone; a
// stream-ordered submission and a batch submission fail with the refusal and leave nothing
// queued; and once threads can be had again, each path works.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/batch/batch_manager.h"
#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::SysOp;

class RefusedThreadsTest : public CoreTest {
 protected:
  static constexpr size_t kBytes = size_t{24} << 20;  // three 8 MiB chunks
  void SetUp() override {
    sys_.Set("HIPFILE_LOG_LEVEL", "off");
    sys_.Set("HIPFILE_PAGE_CACHE", "off");  // buffered 8 MiB chunks, not one 64 MiB window
    path_ = MakeFile("in.bin", kBytes);
    fd_ = std::make_unique<ScopedFd>(path_, O_RDWR);
    Result<void*> handle = driver().RegisterHandle(fd_->get());
    ASSERT_TRUE(handle.ok()) << handle.status().ToString();
    handle_ = *handle;
    device_ = DeviceAlloc(kBytes);
  }
  void ExpectDeviceHoldsFile(size_t n) {
    std::vector<unsigned char> back(n);
    ASSERT_EQ(gpu_.Memcpy(back.data(), device_, n, hipMemcpyDeviceToHost), hipSuccess);
    const std::vector<unsigned char> want = testing::PatternBytes(kBytes);
    EXPECT_EQ(std::memcmp(back.data(), want.data(), n), 0);
  }

  std::string path_;
  std::unique_ptr<ScopedFd> fd_;
  void* handle_ = nullptr;
  void* device_ = nullptr;
};

TEST_F(RefusedThreadsTest, AMultiChunkReadIsDoneByTheCallerAlone) {
  sys_.FailAlways(SysOp::kStartThread, EAGAIN);
  const Result<size_t> got = driver().Read(handle_, device_, kBytes, 0, 0);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, kBytes);
  ExpectDeviceHoldsFile(kBytes);
  EXPECT_GE(sys_.Calls(SysOp::kStartThread), 1u);  // it did ask for a helper
}

TEST_F(RefusedThreadsTest, AStreamOrderedSubmissionFailsAndTheNextOneWorks) {
  runtime::Stream stream = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream, 0), hipSuccess);
  size_t size = kBytes;
  off_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = -999;
  sys_.FailNth(SysOp::kStartThread, 2, EAGAIN);  // the executor's second worker
  const Status refused = driver().SubmitAsync(IoDirection::kRead, handle_, device_, &size,
                                              &file_offset, &buffer_offset, &bytes, stream);
  EXPECT_TRUE(refused.IsErrno(EAGAIN)) << refused.ToString();
  EXPECT_EQ(bytes, -999);  // not queued: nothing will write it
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);

  sys_.Reset();
  ASSERT_TRUE(driver()
                  .SubmitAsync(IoDirection::kRead, handle_, device_, &size, &file_offset,
                               &buffer_offset, &bytes, stream)
                  .ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kBytes));
  ExpectDeviceHoldsFile(kBytes);
  ASSERT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
}

TEST_F(RefusedThreadsTest, ABatchSubmissionFailsWithNothingAcceptedAndTheNextOneWorks) {
  BatchManager batches(driver());
  Result<hipFileBatchHandle_t> batch = batches.SetUp(2);
  ASSERT_TRUE(batch.ok());
  hipFileIOParams_t params[2];
  for (int i = 0; i < 2; ++i)
    params[i] = testing::BatchEntry(hipFileBatchRead, handle_, device_, 1 << 20, off_t{i} << 20,
                                    off_t{i} << 20);
  sys_.FailNth(SysOp::kStartThread, 2, EAGAIN);
  const Status refused = batches.Submit(*batch, 2, params);
  EXPECT_TRUE(refused.IsErrno(EAGAIN)) << refused.ToString();
  hipFileIOEvents_t events[2];
  unsigned nr = 2;
  const timespec poll{0, 0};
  ASSERT_TRUE(batches.GetStatus(*batch, 0, &nr, events, &poll).ok());
  EXPECT_EQ(nr, 0u);  // nothing was accepted, so nothing is pending or done

  sys_.Reset();
  ASSERT_TRUE(batches.Submit(*batch, 2, params).ok());
  nr = 2;
  ASSERT_TRUE(batches.GetStatus(*batch, 2, &nr, events, nullptr).ok());
  ASSERT_EQ(nr, 2u);
  for (const hipFileIOEvents_t& e : events) {
    EXPECT_EQ(e.status, hipFileComplete);
    EXPECT_EQ(e.ret, size_t{1} << 20);
  }
  ExpectDeviceHoldsFile(2 << 20);
  batches.Destroy(*batch);
}

}  // namespace
}  // namespace hipfile::core
