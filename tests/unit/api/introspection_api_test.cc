// SPDX-License-Identifier: MIT
// hipfile_ext.h's introspection through the C API: the build's features against the build's
// CMake options, where parameters' values came from, the variables, and the way a file's bytes
// would go - checked against the path statistics of the same transfers.
#include <fcntl.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "api_test_util.h"

namespace hipfile::api {
namespace {

class IntrospectionApiTest : public ApiTest {};

TEST_F(IntrospectionApiTest, BuildFeaturesAreTheBuildsCMakeOptions) {
  unsigned expected = 0;
#if defined(HIPFILE_HAVE_IO_URING)
  expected |= HIPFILE_EXT_FEATURE_IO_URING;
#endif
#if defined(HIPFILE_HAVE_NVTX)
  expected |= HIPFILE_EXT_FEATURE_NVTX;
#endif
#if defined(HIPFILE_HAVE_NLOHMANN_JSON)
  expected |= HIPFILE_EXT_FEATURE_CONFIG_FILE;
#endif
  EXPECT_EQ(hipFileExtBuildFeatures(), expected);
  EXPECT_EQ(hipFileExtBuildFeatures() & ~HIPFILE_EXT_FEATURE_ALL, 0u);
  EXPECT_STREQ(hipFileExtBuildFeatureName(HIPFILE_EXT_FEATURE_IO_URING), "io_uring");
  EXPECT_STREQ(hipFileExtBuildFeatureName(HIPFILE_EXT_FEATURE_NVTX), "nvtx");
  EXPECT_STREQ(hipFileExtBuildFeatureName(HIPFILE_EXT_FEATURE_CONFIG_FILE), "config_file");
  EXPECT_STREQ(hipFileExtBuildFeatureName(0), "unknown");
  EXPECT_STREQ(hipFileExtBuildFeatureName(HIPFILE_EXT_FEATURE_ALL), "unknown");
  EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(IntrospectionApiTest, SourceNames) {
  EXPECT_STREQ(hipFileExtSourceName(hipFileExtSourceDefault), "default");
  EXPECT_STREQ(hipFileExtSourceName(hipFileExtSourceEnvironment), "environment");
  EXPECT_STREQ(hipFileExtSourceName(hipFileExtSourceConfigFile), "file");
  EXPECT_STREQ(hipFileExtSourceName(hipFileExtSourceApi), "api");
  EXPECT_STREQ(hipFileExtSourceName(4), "unknown");
  EXPECT_STREQ(hipFileExtSourceName(-1), "unknown");
  EXPECT_STREQ(hipFileExtIoCaseName(hipFileExtIoReadCold), "read_cold");
  EXPECT_STREQ(hipFileExtIoCaseName(HIPFILE_EXT_IO_CASE_COUNT), "unknown");
}

// A parameter set through the API is `api` while the driver is closed and while it is open.
TEST_F(IntrospectionApiTest, AParameterSetByTheApiIsApi) {
  size_t before = 0;
  ASSERT_TRUE(IsSuccess(hipFileGetParameterSizeT(hipFileParamPollthresholdSizeKB, &before)));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterSizeT(hipFileParamPollthresholdSizeKB, before + 4)));
  hipFileExtSettingSource_t source = hipFileExtSourceDefault;
  ASSERT_TRUE(
      IsSuccess(hipFileExtGetParameterSizeTSource(hipFileParamPollthresholdSizeKB, &source)));
  EXPECT_EQ(source, hipFileExtSourceApi);
  EXPECT_EQ(hipFileUseCount(), 0) << "the query opens nothing";
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  source = hipFileExtSourceDefault;
  ASSERT_TRUE(
      IsSuccess(hipFileExtGetParameterSizeTSource(hipFileParamPollthresholdSizeKB, &source)));
  EXPECT_EQ(source, hipFileExtSourceApi);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterSizeT(hipFileParamPollthresholdSizeKB, before)));

  bool poll = false;
  ASSERT_TRUE(IsSuccess(hipFileGetParameterBool(hipFileParamPropertiesUsePollMode, &poll)));
  ASSERT_TRUE(IsSuccess(hipFileSetParameterBool(hipFileParamPropertiesUsePollMode, poll)));
  ASSERT_TRUE(
      IsSuccess(hipFileExtGetParameterBoolSource(hipFileParamPropertiesUsePollMode, &source)));
  EXPECT_EQ(source, hipFileExtSourceApi);
}

TEST_F(IntrospectionApiTest, ParameterSourceRefusesBadArguments) {
  hipFileExtSettingSource_t source;
  EXPECT_TRUE(IsOp(hipFileExtGetParameterSizeTSource(hipFileParamProfileStats, nullptr),
                   hipFileInvalidValue));
  EXPECT_TRUE(IsOp(
      hipFileExtGetParameterSizeTSource(static_cast<hipFileSizeTConfigParameter_t>(1000), &source),
      hipFileInvalidValue));
  EXPECT_TRUE(
      IsOp(hipFileExtGetParameterBoolSource(static_cast<hipFileBoolConfigParameter_t>(-1), &source),
           hipFileInvalidValue));
  EXPECT_TRUE(IsOp(
      hipFileExtGetParameterStringSource(static_cast<hipFileStringConfigParameter_t>(99), &source),
      hipFileInvalidValue));
  ASSERT_TRUE(IsSuccess(hipFileExtGetParameterStringSource(hipFileParamLogDir, &source)));
}

// Every variable the library reads can be asked about; HIPFILE_RUNTIME is `environment` exactly
// when this test runs under one (the cpu-staged run of this binary sets it).
TEST_F(IntrospectionApiTest, Variables) {
  unsigned count = 0;
  bool runtime = false, config = false;
  for (unsigned i = 0; const char* name = hipFileExtVariableName(i); ++i, ++count) {
    EXPECT_EQ(std::strncmp(name, "HIPFILE_", 8), 0) << name;
    hipFileExtSettingSource_t source = hipFileExtSourceApi;
    ASSERT_TRUE(IsSuccess(hipFileExtGetVariableSource(name, &source))) << name;
    EXPECT_NE(source, hipFileExtSourceApi) << name;
    if (std::getenv(name) == nullptr && std::strcmp(name, "HIPFILE_CONFIG") != 0) {
      // Unset: the default, or the file's key where a configuration file is in use.
      EXPECT_NE(source, hipFileExtSourceEnvironment) << name;
    }
    runtime = runtime || std::strcmp(name, "HIPFILE_RUNTIME") == 0;
    config = config || std::strcmp(name, "HIPFILE_CONFIG") == 0;
  }
  EXPECT_GE(count, 20u);
  EXPECT_TRUE(runtime && config);
  hipFileExtSettingSource_t source;
  ASSERT_TRUE(IsSuccess(hipFileExtGetVariableSource("HIPFILE_RUNTIME", &source)));
  const char* forced = std::getenv("HIPFILE_RUNTIME");
  EXPECT_EQ(source, forced != nullptr && *forced != '\0' ? hipFileExtSourceEnvironment
                                                         : hipFileExtSourceDefault);
  EXPECT_TRUE(
      IsOp(hipFileExtGetVariableSource("HIPFILE_TEST_TMPDIR", &source), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileExtGetVariableSource(nullptr, &source), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileExtGetVariableSource("HIPFILE_RUNTIME", nullptr), hipFileInvalidValue));
  EXPECT_EQ(hipFileUseCount(), 0);
}

// The rule the library gives for a file is what its transfers then do: the bytes of a small read
// and of an aligned write land under the path (and reason) the rule named.
TEST_F(IntrospectionApiTest, TheIoRuleIsWhatTransfersDo) {
  constexpr size_t kFile = 8u << 20, kSmall = 64u << 10, kWrite = 4u << 20;
  const int fd = OpenFile("rule.bin", kFile, O_RDWR);
  ASSERT_GE(fd, 0);
  hipFileExtIoRule_t rule;
  std::memset(&rule, 0xff, sizeof rule);
  ASSERT_TRUE(IsSuccess(hipFileExtGetIoRule(fd, &rule)));
  EXPECT_EQ(hipFileUseCount(), 0) << "the query opens nothing";
  EXPECT_EQ(rule.staged, ProcessRuntime().DeviceMemoryIsHostMemory() ? 0 : 1);
  EXPECT_EQ(rule.compat_allowed, 1);
  if (rule.o_direct) {
    EXPECT_GT(rule.dio_offset_align, 0u);
  } else {
    EXPECT_EQ(rule.dio_offset_align, 0u);
  }
  for (int c = HIPFILE_EXT_IO_CASE_COUNT; c < HIPFILE_EXT_MAX_IO_CASES; ++c) {
    EXPECT_EQ(rule.ways[c].path, 0) << "entries past the count stay 0";
  }
  EXPECT_EQ(rule.reserved[0], 0u);
  const hipFileExtIoWay_t small = rule.ways[hipFileExtIoReadSmall];
  const hipFileExtIoWay_t write = rule.ways[hipFileExtIoWriteAligned];
  ASSERT_EQ(small.refused, 0);
  ASSERT_EQ(write.refused, 0);

  void* device = DeviceAlloc(kWrite);
  hipFileHandle_t fh = Register(fd);
  ASSERT_NE(fh, nullptr);
  hipFileExtPathStats_t before, after;
  ASSERT_TRUE(IsSuccess(hipFileExtGetPathStats(&before)));
  ASSERT_EQ(hipFileRead(fh, device, kSmall, 0, 0), static_cast<ssize_t>(kSmall));
  ASSERT_EQ(hipFileWrite(fh, device, kWrite, 0, 0), static_cast<ssize_t>(kWrite));
  ASSERT_TRUE(IsSuccess(hipFileExtGetPathStats(&after)));
  hipFileHandleDeregister(fh);
  EXPECT_EQ(after.read_bytes[small.path] - before.read_bytes[small.path], kSmall)
      << hipFileExtPathName(small.path);
  EXPECT_EQ(after.write_bytes[write.path] - before.write_bytes[write.path], kWrite)
      << hipFileExtPathName(write.path);
  if (small.path == hipFileExtPathBuffered) {
    EXPECT_EQ(
        after.read_fallback_bytes[small.fallback] - before.read_fallback_bytes[small.fallback],
        kSmall)
        << hipFileExtFallbackName(small.fallback);
  }
}

TEST_F(IntrospectionApiTest, TheIoRuleRefusesWhatARegistrationRefuses) {
  hipFileExtIoRule_t rule;
  EXPECT_TRUE(IsOp(hipFileExtGetIoRule(-1, &rule), hipFileInvalidValue));
  const int fd = OpenFile("null-rule.bin", 4096, O_RDONLY);
  EXPECT_TRUE(IsOp(hipFileExtGetIoRule(fd, nullptr), hipFileInvalidValue));
  const int dir = ::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  fds_.push_back(dir);
  EXPECT_TRUE(IsOp(hipFileExtGetIoRule(dir, &rule), hipFileInvalidFileType));
  EXPECT_EQ(hipFileUseCount(), 0);
}

}  // namespace
}  // namespace hipfile::api
