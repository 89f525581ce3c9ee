// SPDX-License-Identifier: MIT
#include "engine/retry.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <vector>

#include "engine_test_util.h"

namespace hipfile::engine {
namespace {

using testing::FaultSys;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::TempDir;
using testing::WriteFileOrDie;

class RetryTest : public ::testing::Test {
 protected:
  TempDir dir_;
  FaultSys sys_;
};

TEST_F(RetryTest, PreadFullStopsAtEndOfFile) {
  const std::vector<unsigned char> content = PatternBytes(5000);
  WriteFileOrDie(dir_.File("f"), content);
  ScopedFd fd(dir_.File("f"), O_RDONLY);
  sys_.ShortTransfers(SysOp::kPread, 999);
  std::vector<unsigned char> buf(8000);
  const Transfer t = PreadFull(sys_, fd.get(), buf.data(), buf.size(), 1000);
  EXPECT_TRUE(t.status.ok());
  EXPECT_EQ(t.bytes, 4000u);
  EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + 4000, content.begin() + 1000));
}

TEST_F(RetryTest, PreadFullKeepsBytesBeforeAnError) {
  WriteFileOrDie(dir_.File("f"), PatternBytes(5000));
  ScopedFd fd(dir_.File("f"), O_RDONLY);
  sys_.ShortTransfers(SysOp::kPread, 1000);
  sys_.FailNth(SysOp::kPread, 3, ESTALE);
  std::vector<unsigned char> buf(5000);
  const Transfer t = PreadFull(sys_, fd.get(), buf.data(), buf.size(), 0);
  EXPECT_TRUE(t.status.IsErrno(ESTALE));
  EXPECT_EQ(t.bytes, 2000u);
}

TEST_F(RetryTest, RetriesAreBoundedButResetByProgress) {
  WriteFileOrDie(dir_.File("f"), PatternBytes(5000));
  ScopedFd fd(dir_.File("f"), O_RDONLY);
  std::vector<unsigned char> buf(5000);
  sys_.ShortTransfers(SysOp::kPread, 2500);
  // kMaxConsecutiveRetries before each of the two calls that make progress: all retried.
  sys_.FailTimes(SysOp::kPread, kMaxConsecutiveRetries, EAGAIN);
  sys_.FailNth(SysOp::kPread, kMaxConsecutiveRetries + 2, EINTR);
  Transfer t = PreadFull(sys_, fd.get(), buf.data(), buf.size(), 0);
  EXPECT_TRUE(t.status.ok());
  EXPECT_EQ(t.bytes, 5000u);

  sys_.Reset();
  sys_.FailTimes(SysOp::kPread, kMaxConsecutiveRetries + 1, EAGAIN);
  t = PreadFull(sys_, fd.get(), buf.data(), buf.size(), 0);
  EXPECT_TRUE(t.status.IsErrno(EAGAIN));
  EXPECT_EQ(t.bytes, 0u);
}

TEST_F(RetryTest, PwriteFullContinuesShortWrites) {
  WriteFileOrDie(dir_.File("f"), {});
  ScopedFd fd(dir_.File("f"), O_WRONLY);
  const std::vector<unsigned char> data = PatternBytes(3000, 5);
  sys_.ShortTransfers(SysOp::kPwrite, 1024);
  sys_.FailNth(SysOp::kPwrite, 2, EINTR);
  const Transfer t = PwriteFull(sys_, fd.get(), data.data(), data.size(), 0);
  EXPECT_TRUE(t.status.ok());
  EXPECT_EQ(t.bytes, 3000u);
  EXPECT_EQ(ReadFileOrDie(dir_.File("f")), data);
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 4u);
}

TEST_F(RetryTest, PwriteFullReportsNoProgressAsEio) {
  WriteFileOrDie(dir_.File("f"), {});
  ScopedFd fd(dir_.File("f"), O_WRONLY);
  const std::vector<unsigned char> data = PatternBytes(3000, 5);
  sys_.ShortTransfers(SysOp::kPwrite, 0);
  const Transfer t = PwriteFull(sys_, fd.get(), data.data(), data.size(), 0);
  EXPECT_TRUE(t.status.IsErrno(EIO));
  EXPECT_EQ(t.bytes, 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 2u);
}

}  // namespace
}  // namespace hipfile::engine
