// SPDX-License-Identifier: MIT
// Version, error strings, the driver's lifecycle, properties and parameters through the C API.
#include <gtest/gtest.h>
#include <hipfile.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "api_test_util.h"

namespace hipfile::api {
namespace {

TEST(VersionApiTest, FillsWhatIsAskedAndIgnoresNulls) {
  unsigned major = 99, minor = 99, patch = 99;
  EXPECT_TRUE(IsSuccess(hipFileGetVersion(&major, &minor, &patch)));
  EXPECT_EQ(major, unsigned{HIPFILE_VERSION_MAJOR});
  EXPECT_EQ(minor, unsigned{HIPFILE_VERSION_MINOR});
  EXPECT_EQ(patch, unsigned{HIPFILE_VERSION_PATCH});
  EXPECT_TRUE(IsSuccess(hipFileGetVersion(nullptr, nullptr, nullptr)));
  minor = 99;
  EXPECT_TRUE(IsSuccess(hipFileGetVersion(nullptr, &minor, nullptr)));
  EXPECT_EQ(minor, unsigned{HIPFILE_VERSION_MINOR});
  EXPECT_EQ(hipFileUseCount(), 0);  // needs no driver
}

TEST(ErrorApiTest, StringsForKnownAndUnknownCodes) {
  EXPECT_STREQ(hipFileGetOpErrorString(hipFileSuccess), "hipFile success");
  EXPECT_STREQ(hipFileGetOpErrorString(hipFileHipDriverError),
               "GPU driver error: Inspect hip_drv_err for additional information");
  EXPECT_STREQ(hipFileGetOpErrorString(static_cast<hipFileOpError_t>(12345)),
               "Unknown hipFile error");
  EXPECT_STREQ(HIPFILE_ERRSTR(-hipFileInvalidValue), hipFileGetOpErrorString(hipFileInvalidValue));
}

class DriverApiTest : public ApiTest {};

TEST_F(DriverApiTest, OpenCloseAndUseCount) {
  EXPECT_TRUE(IsOp(hipFileDriverClose(), hipFileDriverNotInitialized));
  EXPECT_TRUE(IsSuccess(hipFileDriverOpen()));
  EXPECT_EQ(hipFileUseCount(), 1);
  EXPECT_TRUE(IsSuccess(hipFileDriverOpen()));
  EXPECT_EQ(hipFileUseCount(), 2);
  EXPECT_TRUE(IsSuccess(hipFileDriverClose()));
  EXPECT_TRUE(IsSuccess(hipFileDriverClose()));
  EXPECT_EQ(hipFileUseCount(), 0);
  EXPECT_TRUE(IsOp(hipFileDriverClose(), hipFileDriverNotInitialized));
}

TEST_F(DriverApiTest, PropertiesNeedAPointerAndAnOpenDriver) {
  hipFileDriverProps_t props;
  EXPECT_TRUE(IsOp(hipFileDriverGetProperties(nullptr), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileDriverGetProperties(&props), hipFileDriverNotInitialized));
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  std::memset(&props, 0xff, sizeof props);
  ASSERT_TRUE(IsSuccess(hipFileDriverGetProperties(&props)));
  EXPECT_EQ(props.max_batch_io_count, 128u);
  EXPECT_EQ(props.feature_flags, (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) |
                                     (1u << hipFileParallelIOSupported));
  EXPECT_NE(props.nvfs.driver_control_flags & (1u << hipFileAllowCompatMode), 0u);
  EXPECT_EQ(props.nvfs.driver_control_flags & (1u << hipFileUsePollMode), 0u);
  EXPECT_EQ(props.max_device_pinned_mem_size, 1048576u);
}

TEST_F(DriverApiTest, DriverSettersApplyAtTheNextOpen) {
  ASSERT_TRUE(IsSuccess(hipFileDriverSetMaxPinnedMemSize(65536)));
  ASSERT_TRUE(IsSuccess(hipFileDriverSetPollMode(true, 32)));
  EXPECT_TRUE(IsOp(hipFileDriverSetMaxDirectIOSize(0), hipFileInvalidValue));
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  hipFileDriverProps_t props;
  ASSERT_TRUE(IsSuccess(hipFileDriverGetProperties(&props)));
  EXPECT_EQ(props.max_device_pinned_mem_size, 65536u);
  EXPECT_EQ(props.nvfs.poll_thresh_size, 32u);
  EXPECT_NE(props.nvfs.driver_control_flags & (1u << hipFileUsePollMode), 0u);
  EXPECT_TRUE(IsSuccess(hipFileDriverSetMaxCacheSize(1024)));  // open: accepted, ignored
  ASSERT_TRUE(IsSuccess(hipFileDriverGetProperties(&props)));
  EXPECT_EQ(props.max_device_cache_size, 131072u);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  // Restore the defaults for the other tests.
  ASSERT_TRUE(IsSuccess(hipFileDriverSetMaxPinnedMemSize(262144)));
  ASSERT_TRUE(IsSuccess(hipFileDriverSetPollMode(false, 4)));
}

class ParamsApiTest : public ApiTest {};

TEST_F(ParamsApiTest, NullOutputsAndInvalidParametersAreInvalidValue) {
  EXPECT_TRUE(
      IsOp(hipFileGetParameterSizeT(hipFileParamProfileStats, nullptr), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileGetParameterBool(hipFileParamForceCompatMode, nullptr), hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileGetParameterString(hipFileParamLogDir, nullptr, 10), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileSetParameterString(hipFileParamLogDir, nullptr), hipFileInvalidValue));
  size_t size = 0;
  bool flag = false;
  char text[32];
  EXPECT_TRUE(IsOp(hipFileGetParameterSizeT(static_cast<hipFileSizeTConfigParameter_t>(12), &size),
                   hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileGetParameterBool(static_cast<hipFileBoolConfigParameter_t>(-1), &flag),
                   hipFileInvalidValue));
  EXPECT_TRUE(IsOp(
      hipFileGetParameterString(static_cast<hipFileStringConfigParameter_t>(3), text, sizeof text),
      hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileSetParameterSizeT(static_cast<hipFileSizeTConfigParameter_t>(100), 1),
                   hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileSetParameterBool(static_cast<hipFileBoolConfigParameter_t>(12), true),
                   hipFileInvalidValue));
  EXPECT_EQ(hipFileUseCount(), 0);  // no implicit open
}

TEST_F(ParamsApiTest, StringNeedsRoomForItsTerminator) {
  char text[8];
  ASSERT_TRUE(IsSuccess(hipFileSetParameterString(hipFileParamLogDir, "/tmp/ab")));  // 7 chars
  EXPECT_TRUE(IsSuccess(hipFileGetParameterString(hipFileParamLogDir, text, 8)));
  EXPECT_STREQ(text, "/tmp/ab");
  EXPECT_TRUE(IsOp(hipFileGetParameterString(hipFileParamLogDir, text, 7), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileGetParameterString(hipFileParamLogDir, text, 0), hipFileInvalidValue));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterString(hipFileParamLogDir, "")));
}

TEST_F(ParamsApiTest, SetOnlyWhileClosedGetInUseWhileOpen) {
  size_t threads = 0;
  ASSERT_TRUE(IsSuccess(hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads)));
  // The default: one I/O thread per hardware thread, from 4 to 64 (docs/parameters.md).
  EXPECT_EQ(threads, std::clamp<size_t>(std::thread::hardware_concurrency(), 4, 64));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 9)));
  ASSERT_TRUE(IsSuccess(hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads)));
  EXPECT_EQ(threads, 9u);
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  EXPECT_TRUE(IsOp(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 2),
                   hipFileDriverAlreadyOpen));
  EXPECT_TRUE(IsOp(hipFileSetParameterBool(hipFileParamPropertiesUsePollMode, true),
                   hipFileDriverAlreadyOpen));
  EXPECT_TRUE(
      IsOp(hipFileSetParameterString(hipFileParamLoggingLevel, "info"), hipFileDriverAlreadyOpen));
  ASSERT_TRUE(IsSuccess(hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads)));
  EXPECT_EQ(threads, 9u);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 4)));
  bool allow = false;
  ASSERT_TRUE(IsSuccess(hipFileGetParameterBool(hipFileParamPropertiesAllowCompatMode, &allow)));
  EXPECT_TRUE(allow);
  char level[16];
  ASSERT_TRUE(IsSuccess(hipFileGetParameterString(hipFileParamLoggingLevel, level, sizeof level)));
  EXPECT_STRNE(level, "");
}

// Off, the switch refuses only what the compatibility path would move: through staging
// (cpu-staged), an unaligned transfer; aligned ones take O_DIRECT. Host memory (cpu) is never
// refused. tests/system/compat_mode_test.cc has the rest.
TEST_F(ParamsApiTest, CompatModeOffRefusesOnlyTheCompatibilityPath) {
  ASSERT_TRUE(IsSuccess(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false)));
  const int fd = OpenFile("f", 8192, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  void* buffer = DeviceAlloc(4096);
  EXPECT_EQ(hipFileRead(fh, buffer, 4096, 0, 0), 4096);
  EXPECT_EQ(hipFileWrite(fh, buffer, 4096, 4096, 0), 4096);
  const bool staged = !ProcessRuntime().DeviceMemoryIsHostMemory();
  const ssize_t refused = -static_cast<ssize_t>(hipFileInternalError);
  EXPECT_EQ(hipFileRead(fh, buffer, 100, 1, 0), staged ? refused : 100);
  EXPECT_EQ(hipFileWrite(fh, buffer, 100, 1, 0), staged ? refused : 100);
  hipFileHandleDeregister(fh);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, true)));
}

// The batch calls in full: tests/unit/batch/. Here: they exist, keep the driver closed while
// setting up, and refuse submission until it is open.
class BatchApiSmokeTest : public ApiTest {};

TEST_F(BatchApiSmokeTest, SetUpNeedsNoDriverButSubmitDoes) {
  hipFileBatchHandle_t batch = nullptr;
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(nullptr, 4), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBatchIOSetUp(&batch, 0), hipFileInvalidValue));
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 4)));
  EXPECT_NE(batch, nullptr);
  EXPECT_EQ(hipFileUseCount(), 0);
  hipFileIOParams_t params = {};
  params.mode = hipFileBatch;
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 1, &params, 0), hipFileDriverNotInitialized));
  unsigned nr = 1;
  hipFileIOEvents_t event = {};
  timespec poll = {0, 0};
  EXPECT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 0, &nr, &event, &poll)));
  EXPECT_EQ(nr, 0u);
  EXPECT_TRUE(IsSuccess(hipFileBatchIOCancel(batch)));
  hipFileBatchIODestroy(batch);
  EXPECT_TRUE(IsOp(hipFileBatchIOCancel(batch), hipFileInvalidValue));
}

}  // namespace
}  // namespace hipfile::api
