// SPDX-License-Identifier: MIT
// Where each setting's value came from (hipFileExtGet*Source): the default, the environment, the
// configuration file, the parameter API - for the variables as ParseConfig resolved them, and for
// the parameters before the driver opens, while it is open and after.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/config_file.h"
#include "core/driver.h"
#include "core/params.h"
#include "core_test_util.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {
namespace {

constexpr SettingSource kDefault = SettingSource::kDefault;
constexpr SettingSource kEnv = SettingSource::kEnvironment;
constexpr SettingSource kFile = SettingSource::kConfigFile;
constexpr SettingSource kApi = SettingSource::kApi;

class SettingSourceTest : public ::testing::Test {
 protected:
  // HIPFILE_CONFIG names a file holding `json`.
  void ConfigFile(const std::string& json) {
    const std::string path = dir_.File("hipfile.json");
    testing::WriteFileOrDie(path, std::vector<unsigned char>(json.begin(), json.end()));
    sys_.Set(kEnvConfig, path);
  }
  std::unique_ptr<Driver> MakeDriver() {
    gpu_ = runtime::CreateCpuRuntime(runtime::CpuRuntimeOptions{});
    return std::make_unique<Driver>(sys_, *gpu_, ParseConfig(sys_));
  }
  testing::TempDir dir_;
  EnvSys sys_;
  std::unique_ptr<runtime::GpuRuntime> gpu_;
};

TEST_F(SettingSourceTest, EverythingIsDefaultWithAnEmptyEnvironment) {
  const Config config = ParseConfig(sys_);
  for (size_t i = 0; i < kEnvVariableCount; ++i) {
    EXPECT_EQ(config.SourceOf(kEnvVariables[i]), kDefault) << kEnvVariables[i];
  }
  const ParamSet params(config);
  for (size_t p = 0; p < kSizeTParamCount; ++p) EXPECT_EQ(*params.SizeTSource(p), kDefault) << p;
  for (size_t p = 0; p < kBoolParamCount; ++p) EXPECT_EQ(*params.BoolSource(p), kDefault) << p;
  for (size_t p = 0; p < kStringParamCount; ++p) EXPECT_EQ(*params.StringSource(p), kDefault);
  EXPECT_FALSE(params.SizeTSource(static_cast<int>(kSizeTParamCount)).ok());
  EXPECT_FALSE(params.BoolSource(-1).ok());
}

TEST_F(SettingSourceTest, AVariableTakenIsTheEnvironment) {
  sys_.Set(kEnvStatsLevel, "0");
  sys_.Set(kEnvPageCache, "off");
  sys_.Set(kEnvLogLevel, "info");
  sys_.Set(kEnvIoUring, "no");
  sys_.Set(kEnvLogfilePath, "/tmp/x.log");
  const Config config = ParseConfig(sys_);
  for (const char* v :
       {kEnvStatsLevel, kEnvPageCache, kEnvLogLevel, kEnvIoUring, kEnvLogfilePath}) {
    EXPECT_EQ(config.SourceOf(v), kEnv) << v;
  }
  EXPECT_EQ(config.SourceOf(kEnvIoThreads), kDefault);
  const ParamSet params(config);
  EXPECT_EQ(*params.SizeTSource(hipFileParamProfileStats), kEnv);
  EXPECT_EQ(*params.StringSource(hipFileParamLoggingLevel), kEnv);
  EXPECT_EQ(*params.StringSource(hipFileParamEnvLogfilePath), kEnv);
  EXPECT_EQ(*params.SizeTSource(hipFileParamExecutionMaxIOThreads), kDefault);
}

TEST_F(SettingSourceTest, AVariableRefusedIsNoSource) {
  sys_.Set(kEnvStatsLevel, "1x");
  sys_.Set(kEnvPageCache, "sometimes");
  sys_.Set(kEnvAllowCompatMode, "maybe");
  const Config config = ParseConfig(sys_);
  EXPECT_EQ(config.problems.size(), 3u);
  EXPECT_EQ(config.SourceOf(kEnvStatsLevel), kDefault);
  EXPECT_EQ(config.SourceOf(kEnvPageCache), kDefault);
  EXPECT_EQ(*ParamSet(config).BoolSource(hipFileParamPropertiesAllowCompatMode), kDefault);
}

TEST_F(SettingSourceTest, BatchWorkersGiveTheIoThreadsFromTheEnvironment) {
  sys_.Set(kEnvBatchWorkers, "6");
  const Config config = ParseConfig(sys_);
  EXPECT_EQ(config.SourceOf(kEnvBatchWorkers), kEnv);
  EXPECT_EQ(*ParamSet(config).SizeTSource(hipFileParamExecutionMaxIOThreads), kEnv);
}

TEST_F(SettingSourceTest, TheFilesKeysAreTheFileAndAVariableSetOverThemIsTheEnvironment) {
  if (!ConfigFileSupported()) GTEST_SKIP() << "built without nlohmann-json";
  ConfigFile(R"({"logging": {"level": "error", "dir": "/var/log/x"},
                 "profile": {"cufile_stats": 2, "nvtx": true},
                 "execution": {"max_io_threads": 9},
                 "properties": {"io_batchsize": 64, "use_poll_mode": true,
                                "allow_compat_mode": false}})");
  sys_.Set(kEnvIoThreads, "3");
  sys_.Set(kEnvAllowCompatMode, "bad");  // refused: the file's value stays, and its source
  const Config config = ParseConfig(sys_);
  EXPECT_EQ(config.SourceOf(kEnvConfig), kEnv);
  EXPECT_EQ(config.SourceOf(kEnvLogLevel), kFile);
  EXPECT_EQ(config.SourceOf(kEnvStatsLevel), kFile);
  EXPECT_EQ(config.SourceOf(kEnvProfileNvtx), kFile);
  EXPECT_EQ(config.SourceOf(kEnvIoThreads), kEnv);
  EXPECT_EQ(config.SourceOf(kEnvAllowCompatMode), kFile);
  EXPECT_FALSE(config.allow_compat_mode);
  const ParamSet params(config);
  EXPECT_EQ(*params.StringSource(hipFileParamLoggingLevel), kFile);
  EXPECT_EQ(*params.StringSource(hipFileParamLogDir), kFile);
  EXPECT_EQ(*params.SizeTSource(hipFileParamProfileStats), kFile);
  EXPECT_EQ(*params.BoolSource(hipFileParamProfileNvtx), kFile);
  EXPECT_EQ(*params.SizeTSource(hipFileParamPropertiesIOBatchsize), kFile);
  EXPECT_EQ(*params.BoolSource(hipFileParamPropertiesUsePollMode), kFile);
  EXPECT_EQ(*params.BoolSource(hipFileParamPropertiesAllowCompatMode), kFile);
  EXPECT_EQ(*params.SizeTSource(hipFileParamExecutionMaxIOThreads), kEnv);
  EXPECT_EQ(*params.SizeTSource(hipFileParamPropertiesBatchIOTimeoutMs), kDefault);
}

// The driver answers for the values Get* reports: the next open's while closed, those in use while
// open. A parameter set through the API after the environment gave it is `api` from then on.
TEST_F(SettingSourceTest, TheApiWinsOverTheEnvironmentBeforeDuringAndAfterAnOpen) {
  sys_.Set(kEnvIoThreads, "3");
  sys_.Set(kEnvStatsLevel, "1");
  const std::unique_ptr<Driver> driver = MakeDriver();
  const auto source = [&](ParamKind kind, int param) {
    const Result<SettingSource> s = driver->GetParameterSource(kind, param);
    EXPECT_TRUE(s.ok());
    return s.ok() ? *s : kDefault;
  };
  EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamExecutionMaxIOThreads), kEnv);
  ASSERT_TRUE(driver->SetParameterSizeT(hipFileParamExecutionMaxIOThreads, 5).ok());
  ASSERT_TRUE(driver->SetParameterBool(hipFileParamPropertiesUsePollMode, true).ok());
  ASSERT_TRUE(driver->SetParameterString(hipFileParamLoggingLevel, "warn").ok());
  ASSERT_TRUE(driver->SetMaxPinnedMemSize(65536).ok());
  for (int round = 0; round < 2; ++round) {  // closed (the next open's), then open (in use)
    EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamExecutionMaxIOThreads), kApi) << round;
    EXPECT_EQ(source(ParamKind::kBool, hipFileParamPropertiesUsePollMode), kApi) << round;
    EXPECT_EQ(source(ParamKind::kString, hipFileParamLoggingLevel), kApi) << round;
    EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamPropertiesMaxDevicePinnedMemSizeKB), kApi);
    EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamProfileStats), kEnv) << round;
    EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamPropertiesIOBatchsize), kDefault) << round;
    if (round == 0) {
      ASSERT_TRUE(driver->Open().ok());
    }
  }
  // A set refused while open changes neither the value nor its source.
  EXPECT_FALSE(driver->SetParameterSizeT(hipFileParamPropertiesIOBatchsize, 8).ok());
  EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamPropertiesIOBatchsize), kDefault);
  ASSERT_TRUE(driver->Close().ok());
  EXPECT_EQ(source(ParamKind::kSizeT, hipFileParamExecutionMaxIOThreads), kApi);
  EXPECT_FALSE(driver->GetParameterSource(ParamKind::kBool, 999).ok());
}

}  // namespace
}  // namespace hipfile::core
