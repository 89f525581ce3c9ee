// SPDX-License-Identifier: MIT
// Refused calls say why on stderr (issue 15, item 8): a warn line naming the entry point, the
// argument, its value and the bound; rate-limited per call site; nothing below the threshold.
// The limiters live as long as the process: a test that expects a site's lines needs a process of
// its own, as CTest runs each (the cpu-staged run of the whole binary skips those).
#include <gtest/gtest.h>
#include <hipfile.h>
#include <unistd.h>

#include <string>

#include "api_test_util.h"
#include "util/log.h"

namespace hipfile::api {
namespace {

class RefusalLogTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    saved_ = GetLogLevel();
    SetLogLevel(LogLevel::kWarn);
  }
  void TearDown() override {
    ApiTest::TearDown();
    SetLogLevel(saved_);
  }
  // An open driver, a registered 1 MiB device buffer and a registered 4 MiB file.
  void Prepare() {
    fh_ = Register(OpenFile("f", 4 << 20, O_RDWR));
    buffer_ = DeviceAlloc(kBuffer);
    ASSERT_TRUE(IsSuccess(hipFileBufRegister(buffer_, kBuffer, 0)));
  }
  // True (and the test skipped) when other tests ran or will run in this process: their refusals
  // may have used up the burst of the sites this test reads.
  static bool SharedProcess() {
    return ::testing::UnitTest::GetInstance()->test_to_run_count() > 1;
  }
  void TearDownBuffer() { ASSERT_TRUE(IsSuccess(hipFileBufDeregister(buffer_))); }

  static int CountLines(const std::string& text, const std::string& containing) {
    int n = 0;
    for (size_t at = text.find(containing); at != std::string::npos;
         at = text.find(containing, at + 1)) {
      ++n;
    }
    return n;
  }

  static constexpr size_t kBuffer = 1 << 20;
  LogLevel saved_ = LogLevel::kWarn;
  hipFileHandle_t fh_ = nullptr;
  void* buffer_ = nullptr;
};

TEST_F(RefusalLogTest, ReadPastTheRegisteredBufferSaysSizeAndBound) {
  if (SharedProcess()) GTEST_SKIP() << "needs fresh log limiters: a process of its own";
  Prepare();
  ::testing::internal::CaptureStderr();
  const ssize_t got = hipFileRead(fh_, buffer_, 2 << 20, 0, 0);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(got, -static_cast<ssize_t>(hipFileInvalidValue));  // the value is unchanged
  EXPECT_NE(log.find("hipfile[warn]: hipFileRead: size 2097152 past the registered buffer's end "
                     "(1048576 bytes from offset 0)"),
            std::string::npos)
      << log;
  // The bound counts from the buffer offset; a negative offset names itself.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(hipFileWrite(fh_, buffer_, 4096, 0, kBuffer - 100),
            -static_cast<ssize_t>(hipFileInvalidValue));
  EXPECT_EQ(hipFileRead(fh_, buffer_, 4096, -1, 0), -1);
  const std::string more = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(more.find("hipFileWrite: size 4096 past the registered buffer's end (100 bytes from "
                      "offset 1048476)"),
            std::string::npos)
      << more;
  EXPECT_NE(more.find("hipFileRead: file_offset -1 is negative"), std::string::npos) << more;
  TearDownBuffer();
}

TEST_F(RefusalLogTest, UnknownHandleAndNullAsyncArgumentsAreNamed) {
  if (SharedProcess()) GTEST_SKIP() << "needs fresh log limiters: a process of its own";
  Prepare();
  int not_a_handle = 0;
  size_t size = 4096;
  hoff_t offset = 0;
  ::testing::internal::CaptureStderr();
  (void)hipFileRead(&not_a_handle, buffer_, 4096, 0, 0);
  (void)hipFileReadAsync(fh_, buffer_, &size, &offset, &offset, nullptr, nullptr);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("hipFileRead: handle "), std::string::npos) << log;
  EXPECT_NE(log.find(" is not registered"), std::string::npos) << log;
  EXPECT_NE(log.find("hipFileReadAsync: bytes_p is NULL"), std::string::npos) << log;
  TearDownBuffer();
}

TEST_F(RefusalLogTest, RefusedBatchEntryNamesItsIndex) {
  if (SharedProcess()) GTEST_SKIP() << "needs fresh log limiters: a process of its own";
  Prepare();
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 4)));
  hipFileIOParams_t entries[3] = {};
  for (hipFileIOParams_t& e : entries) {
    e.mode = hipFileBatch;
    e.opcode = hipFileBatchRead;
    e.fh = fh_;
    e.u.batch.devPtr_base = buffer_;
    e.u.batch.size = 4096;
  }
  entries[2].u.batch.size = 2 << 20;
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 3, entries, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 5, entries, 0), hipFileBatchFull));
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("hipFileBatchIOSubmit: entry 2: size 2097152 past the registered buffer's "
                     "end (1048576 bytes from offset 0)"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("hipFileBatchIOSubmit: nr 5 past the batch's capacity (max_nr 4)"),
            std::string::npos)
      << log;
  hipFileBatchIODestroy(batch);
  TearDownBuffer();
}

TEST_F(RefusalLogTest, RepeatedRefusalPrintsAHandfulThenTheSuppressedCount) {
  if (SharedProcess()) GTEST_SKIP() << "needs fresh log limiters: a process of its own";
  Prepare();
  const std::string line = "hipFileRead: size 2097152 past the registered buffer's end";
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(hipFileRead(fh_, buffer_, 2 << 20, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
  }
  const std::string burst = ::testing::internal::GetCapturedStderr();
  const int printed = CountLines(burst, line);
  EXPECT_GE(printed, static_cast<int>(LogLimiter::kBurst)) << burst;
  EXPECT_LE(printed, static_cast<int>(LogLimiter::kBurst) + 1) << burst;  // + one interval
  EXPECT_NE(burst.find("(more like this: at most one a second)"), std::string::npos) << burst;
  // Past the interval, the next refusal prints with the count of those suppressed meanwhile.
  ::testing::internal::CaptureStderr();
  ::usleep(1100 * 1000);
  (void)hipFileRead(fh_, buffer_, 2 << 20, 0, 0);
  const std::string later = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(CountLines(later, line), 1) << later;
  EXPECT_NE(later.find("more like this suppressed)"), std::string::npos) << later;
  if (printed == static_cast<int>(LogLimiter::kBurst)) {
    EXPECT_NE(later.find("(995 more like this suppressed)"), std::string::npos) << later;
  }
  TearDownBuffer();
}

TEST_F(RefusalLogTest, ErrorLevelPrintsNoRefusal) {
  char saved[64] = {};
  ASSERT_TRUE(IsSuccess(hipFileGetParameterString(hipFileParamLoggingLevel, saved, sizeof saved)));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterString(hipFileParamLoggingLevel, "error")));
  Prepare();  // the open applies the parameter
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(hipFileRead(fh_, buffer_, 2 << 20, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
  }
  hipFileBatchHandle_t batch = nullptr;
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(&batch, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBufRegister(buffer_, kBuffer, 0), hipFileMemoryAlreadyRegistered));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  TearDownBuffer();
  while (hipFileUseCount() > 0) ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterString(hipFileParamLoggingLevel, saved)));
}

}  // namespace
}  // namespace hipfile::api
