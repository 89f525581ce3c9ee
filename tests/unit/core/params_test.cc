// SPDX-License-Identifier: MIT
#include "core/params.h"

#include <gtest/gtest.h>

#include "core_test_util.h"
#include "engine/stream_staging.h"

namespace hipfile::core {
namespace {

TEST(ParamSetTest, DefaultsComeFromTheConfig) {
  Config config;
  config.allow_compat_mode = false;
  config.force_compat_mode = true;
  config.stats_level = 0;
  config.log_level = LogLevel::kInfo;
  const ParamSet params(config);
  EXPECT_EQ(*params.GetBool(hipFileParamPropertiesAllowCompatMode), false);
  EXPECT_EQ(*params.GetBool(hipFileParamForceCompatMode), true);
  EXPECT_EQ(*params.GetSizeT(hipFileParamProfileStats), 0u);
  EXPECT_EQ(*params.GetString(hipFileParamLoggingLevel), "info");
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesIOBatchsize), 128u);
  EXPECT_EQ(*params.GetBool(hipFileParamPropertiesUsePollMode), false);
}

TEST(ParamSetTest, OutOfRangeParametersAreInvalid) {
  ParamSet params{Config{}};
  const Status invalid = Status::Op(hipFileInvalidValue);
  EXPECT_EQ(params.SetSizeT(-1, 1), invalid);
  EXPECT_EQ(params.SetSizeT(static_cast<int>(kSizeTParamCount), 1), invalid);
  EXPECT_EQ(params.SetBool(static_cast<int>(kBoolParamCount), true), invalid);
  EXPECT_EQ(params.SetString(static_cast<int>(kStringParamCount), "x"), invalid);
  EXPECT_EQ(params.GetSizeT(99).status(), invalid);
  EXPECT_EQ(params.GetBool(-5).status(), invalid);
  EXPECT_EQ(params.GetString(3).status(), invalid);
}

TEST(ParamSetTest, ValuesAreRangeChecked) {
  ParamSet params{Config{}};
  const Status invalid = Status::Op(hipFileInvalidValue);
  EXPECT_EQ(params.SetSizeT(hipFileParamProfileStats, 4), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamPropertiesIOBatchsize, 0), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamPropertiesIOBatchsize, 129), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 0), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 6), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, SIZE_MAX - 3), invalid);
  EXPECT_EQ(params.SetSizeT(hipFileParamExecutionMaxIOQueueDepth, 0), invalid);
  EXPECT_EQ(params.SetString(hipFileParamLoggingLevel, "chatty"), invalid);
  EXPECT_EQ(params.SetString(hipFileParamLogDir, std::string(kMaxStringParamLength + 1, 'a')),
            invalid);
  // Nothing changed.
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesIOBatchsize), 128u);
  EXPECT_EQ(*params.GetString(hipFileParamLoggingLevel), "warn");

  EXPECT_TRUE(params.SetSizeT(hipFileParamPropertiesIOBatchsize, 64).ok());
  EXPECT_TRUE(params.SetString(hipFileParamLoggingLevel, "DEBUG").ok());
  EXPECT_TRUE(params.SetString(hipFileParamLogDir, "/tmp/logs").ok());
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesIOBatchsize), 64u);
  EXPECT_EQ(params.log_level(), LogLevel::kDebug);
  EXPECT_EQ(*params.GetString(hipFileParamLogDir), "/tmp/logs");
}

TEST(ParamSetTest, EngineOptionsFollowPinnedAndPerBufferSizes) {
  ParamSet params{Config{}};
  engine::EngineOptions defaults = params.ToEngineOptions();
  // The whole pinned staging limit; the Driver gives the engine its share (SplitStagingBudget).
  EXPECT_EQ(defaults.max_staging_bytes, size_t{1} << 30);
  EXPECT_EQ(defaults.chunk_bytes, engine::EngineOptions{}.chunk_bytes);
  ASSERT_TRUE(params.SetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 1024).ok());
  ASSERT_TRUE(params.SetSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 256).ok());
  EXPECT_EQ(params.ToEngineOptions().max_staging_bytes, 1024u * 1024);
  EXPECT_EQ(params.ToEngineOptions().chunk_bytes, 256u * 1024);
  // A chunk never exceeds the staging cap.
  ASSERT_TRUE(params.SetSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 4096).ok());
  EXPECT_EQ(params.ToEngineOptions().chunk_bytes, 1024u * 1024);
}

TEST(ParamSetTest, PropertiesReflectTheValues) {
  ParamSet params{Config{}};
  ASSERT_TRUE(params.SetBool(hipFileParamPropertiesUsePollMode, true).ok());
  ASSERT_TRUE(params.SetSizeT(hipFileParamPollthresholdSizeKB, 64).ok());
  ASSERT_TRUE(params.SetSizeT(hipFileParamPropertiesBatchIOTimeoutMs, 500).ok());
  hipFileDriverProps_t props;
  params.FillProperties(&props);
  EXPECT_EQ(props.nvfs.major_version, unsigned{HIPFILE_VERSION_MAJOR});
  EXPECT_EQ(props.nvfs.minor_version, unsigned{HIPFILE_VERSION_MINOR});
  EXPECT_EQ(props.nvfs.poll_thresh_size, 64u);
  EXPECT_EQ(props.nvfs.max_direct_io_size, 16384u);
  EXPECT_EQ(props.nvfs.driver_control_flags,
            (1u << hipFileUsePollMode) | (1u << hipFileAllowCompatMode));
  EXPECT_EQ(props.nvfs.driver_status_flags, 0u);
  EXPECT_EQ(props.feature_flags, (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) |
                                     (1u << hipFileParallelIOSupported));
  EXPECT_EQ(props.max_device_cache_size, 131072u);
  EXPECT_EQ(props.per_buffer_cache_size, 8192u);
  EXPECT_EQ(props.max_device_pinned_mem_size, 1048576u);
  EXPECT_EQ(props.max_batch_io_count, 128u);
  EXPECT_EQ(props.max_batch_io_timeout_msecs, 500u);
  ASSERT_TRUE(params.SetBool(hipFileParamPropertiesAllowCompatMode, false).ok());
  ASSERT_TRUE(params.SetBool(hipFileParamPropertiesUsePollMode, false).ok());
  params.FillProperties(&props);
  EXPECT_EQ(props.nvfs.driver_control_flags, 0u);
}

TEST(ParamSetTest, ForceWithoutAllowResolvesToAllow) {
  ParamSet params{Config{}};
  ASSERT_TRUE(params.SetBool(hipFileParamForceCompatMode, true).ok());
  ASSERT_TRUE(params.SetBool(hipFileParamPropertiesAllowCompatMode, false).ok());
  ::testing::internal::CaptureStderr();
  params.ResolveForOpen();
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("ForceCompatMode"), std::string::npos);
  EXPECT_TRUE(params.allow_compat_mode());
}

// The Driver's contract over the parameters.
class DriverParamsTest : public CoreTest {};

TEST_F(DriverParamsTest, SetWhileClosedAppliesAtTheNextOpen) {
  ASSERT_TRUE(
      driver().SetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 2048).ok());
  ASSERT_TRUE(driver().SetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 128).ok());
  // While closed, Get gives what the next open will use.
  EXPECT_EQ(*driver().GetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 2048u);
  EXPECT_FALSE(driver().EngineOptionsInUse().has_value());
  ASSERT_TRUE(driver().Open().ok());
  const std::optional<engine::EngineOptions> options = driver().EngineOptionsInUse();
  ASSERT_TRUE(options.has_value());
  // The limit is the pinned staging of every path: the engine's transfer buffers get their share
  // (two per I/O thread, at most half of it), stream-ordered staging the rest.
  const engine::StagingBudget budget = engine::SplitStagingBudget(
      2048u * 1024, sys_.PhysicalMemoryBytes(), 128u * 1024, options->io_threads);
  EXPECT_EQ(options->max_staging_bytes, budget.transfer_bytes);
  EXPECT_LE(options->max_staging_bytes, 1024u * 1024);
  EXPECT_EQ(options->chunk_bytes, 128u * 1024);
  ASSERT_TRUE(driver().Close().ok());
  // Kept for later opens.
  EXPECT_EQ(*driver().GetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB), 128u);
}

TEST_F(DriverParamsTest, SetWhileOpenIsRefused) {
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_EQ(driver().SetParameterSizeT(hipFileParamExecutionMaxIOThreads, 8),
            Status::Op(hipFileDriverAlreadyOpen));
  EXPECT_EQ(driver().SetParameterBool(hipFileParamPropertiesUsePollMode, true),
            Status::Op(hipFileDriverAlreadyOpen));
  EXPECT_EQ(driver().SetParameterString(hipFileParamLogDir, "/x"),
            Status::Op(hipFileDriverAlreadyOpen));
  // An invalid value is reported as such even while open.
  EXPECT_EQ(driver().SetParameterSizeT(hipFileParamPropertiesIOBatchsize, 0),
            Status::Op(hipFileInvalidValue));
  EXPECT_EQ(*driver().GetParameterSizeT(hipFileParamExecutionMaxIOThreads), AutoIoThreads());
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_TRUE(driver().SetParameterSizeT(hipFileParamExecutionMaxIOThreads, 8).ok());
}

TEST_F(DriverParamsTest, GetWhileOpenGivesTheValueInUse) {
  ASSERT_TRUE(driver().SetParameterBool(hipFileParamForceCompatMode, true).ok());
  ASSERT_TRUE(driver().SetParameterBool(hipFileParamPropertiesAllowCompatMode, false).ok());
  EXPECT_FALSE(*driver().GetParameterBool(hipFileParamPropertiesAllowCompatMode));
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(driver().Open().ok());
  ::testing::internal::GetCapturedStderr();
  // In use: the compatibility path stays enabled.
  EXPECT_TRUE(*driver().GetParameterBool(hipFileParamPropertiesAllowCompatMode));
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_FALSE(*driver().GetParameterBool(hipFileParamPropertiesAllowCompatMode));
}

TEST_F(DriverParamsTest, EnvironmentGivesTheDefaults) {
  sys_.Set("HIPFILE_ALLOW_COMPAT_MODE", "false");
  sys_.Set("HIPFILE_STATS_LEVEL", "2");
  EXPECT_FALSE(*driver().GetParameterBool(hipFileParamPropertiesAllowCompatMode));
  EXPECT_EQ(*driver().GetParameterSizeT(hipFileParamProfileStats), 2u);
}

TEST_F(DriverParamsTest, DriverSettersSetTheNextOpenAndAreNoOpsWhileOpen) {
  ASSERT_TRUE(driver().SetPollMode(true, 16).ok());
  ASSERT_TRUE(driver().SetMaxDirectIoSize(1024).ok());
  ASSERT_TRUE(driver().SetMaxCacheSize(4096).ok());
  ASSERT_TRUE(driver().SetMaxPinnedMemSize(8192).ok());
  EXPECT_EQ(driver().SetMaxPinnedMemSize(0), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().SetMaxDirectIoSize(3), Status::Op(hipFileInvalidValue));
  ASSERT_TRUE(driver().Open().ok());
  hipFileDriverProps_t props;
  ASSERT_TRUE(driver().GetProperties(&props).ok());
  EXPECT_EQ(props.nvfs.poll_thresh_size, 16u);
  EXPECT_NE(props.nvfs.driver_control_flags & (1u << hipFileUsePollMode), 0u);
  EXPECT_EQ(props.nvfs.max_direct_io_size, 1024u);
  EXPECT_EQ(props.max_device_cache_size, 4096u);
  EXPECT_EQ(props.max_device_pinned_mem_size, 8192u);
  EXPECT_EQ(driver().EngineOptionsInUse()->max_staging_bytes, 8192u * 1024);

  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(driver().SetMaxPinnedMemSize(4).ok());  // ignored while open
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(driver().GetProperties(&props).ok());
  EXPECT_EQ(props.max_device_pinned_mem_size, 8192u);
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_EQ(*driver().GetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 8192u);
}

TEST_F(DriverParamsTest, PropertiesNeedAnOpenDriver) {
  hipFileDriverProps_t props;
  EXPECT_EQ(driver().GetProperties(&props), Status::Op(hipFileDriverNotInitialized));
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_TRUE(driver().GetProperties(&props).ok());
  EXPECT_EQ(props.max_batch_io_count, 128u);
  ASSERT_TRUE(driver().Close().ok());
}

}  // namespace
}  // namespace hipfile::core
