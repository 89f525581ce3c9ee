// SPDX-License-Identifier: MIT
#include "core/config.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/params.h"
#include "core_test_util.h"
#include "runtime/cuda/gather_kernel.h"

namespace hipfile::core {
namespace {

// Each of `bad` as the value of `name` is reported (one problem naming the variable) and leaves
// the field at `fallback`.
template <class Field>
void ExpectRefused(const char* name, std::initializer_list<const char*> bad, Field Config::*field,
                   Field fallback) {
  EnvSys sys;
  for (const char* value : bad) {
    sys.Set(name, value);
    const Config config = ParseConfig(sys);
    EXPECT_EQ(config.*field, fallback) << name << "=" << value;
    ASSERT_EQ(config.problems.size(), 1u) << name << "=" << value;
    EXPECT_NE(config.problems[0].find(name), std::string::npos);
  }
}

TEST(ConfigTest, DefaultsWithAnEmptyEnvironment) {
  EnvSys sys;
  const Config config = ParseConfig(sys);
  EXPECT_TRUE(config.allow_compat_mode);
  EXPECT_FALSE(config.force_compat_mode);
  EXPECT_FALSE(config.unsupported_file_systems);
  EXPECT_EQ(config.stats_level, 1u);
  EXPECT_EQ(config.log_level, LogLevel::kWarn);
  EXPECT_TRUE(config.problems.empty());
}

TEST(ConfigTest, ReadsEveryVariable) {
  EnvSys sys;
  sys.Set("HIPFILE_ALLOW_COMPAT_MODE", "FALSE");
  sys.Set("HIPFILE_FORCE_COMPAT_MODE", "off");
  sys.Set("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "True");
  sys.Set("HIPFILE_STATS_LEVEL", "0");
  sys.Set("HIPFILE_LOG_LEVEL", "DEBUG");
  const Config config = ParseConfig(sys);
  EXPECT_FALSE(config.allow_compat_mode);
  EXPECT_FALSE(config.force_compat_mode);
  EXPECT_TRUE(config.unsupported_file_systems);
  EXPECT_EQ(config.stats_level, 0u);
  EXPECT_EQ(config.log_level, LogLevel::kDebug);
  EXPECT_TRUE(config.problems.empty());
}

TEST(ConfigTest, StatsLevelIsClampedAndOverflowIsTheMaximum) {
  EnvSys sys;
  sys.Set("HIPFILE_STATS_LEVEL", "7");
  EXPECT_EQ(ParseConfig(sys).stats_level, 2u);
  sys.Set("HIPFILE_STATS_LEVEL", "123456789012345678901234567890");
  const Config config = ParseConfig(sys);
  EXPECT_EQ(config.stats_level, 2u);
  EXPECT_TRUE(config.problems.empty());
}

TEST(ConfigTest, UnparsableValuesAreReportedAndDefaultsUsed) {
  EnvSys sys;
  sys.Set("HIPFILE_ALLOW_COMPAT_MODE", "maybe");
  sys.Set("HIPFILE_FORCE_COMPAT_MODE", "");
  sys.Set("HIPFILE_STATS_LEVEL", "1x");
  sys.Set("HIPFILE_LOG_LEVEL", "loud");
  const Config config = ParseConfig(sys);
  EXPECT_TRUE(config.allow_compat_mode);
  EXPECT_FALSE(config.force_compat_mode);
  EXPECT_EQ(config.stats_level, 1u);
  EXPECT_EQ(config.log_level, LogLevel::kWarn);
  ASSERT_EQ(config.problems.size(), 4u);
  const std::string all =
      config.problems[0] + config.problems[1] + config.problems[2] + config.problems[3];
  EXPECT_NE(all.find("HIPFILE_ALLOW_COMPAT_MODE=\"maybe\""), std::string::npos);
  EXPECT_NE(all.find("HIPFILE_FORCE_COMPAT_MODE=\"\""), std::string::npos);
  EXPECT_NE(all.find("HIPFILE_STATS_LEVEL=\"1x\""), std::string::npos);
  EXPECT_NE(all.find("HIPFILE_LOG_LEVEL=\"loud\""), std::string::npos);
}

TEST(ConfigTest, PageCacheVariables) {
  EnvSys sys;
  Config config = ParseConfig(sys);
  EXPECT_EQ(config.page_cache, engine::PageCacheMode::kAuto);
  EXPECT_EQ(config.page_cache_pin_after, 2u);
  EXPECT_EQ(config.page_cache_max_pinned_mb, 0u);
  sys.Set("HIPFILE_PAGE_CACHE", "OFF");
  sys.Set("HIPFILE_PAGE_CACHE_PIN_AFTER", "1");
  sys.Set("HIPFILE_PAGE_CACHE_MAX_PINNED_MB", "4096");
  config = ParseConfig(sys);
  EXPECT_EQ(config.page_cache, engine::PageCacheMode::kOff);
  EXPECT_EQ(config.page_cache_pin_after, 1u);
  EXPECT_EQ(config.page_cache_max_pinned_mb, 4096u);
  EXPECT_TRUE(config.problems.empty());

  sys.Set("HIPFILE_PAGE_CACHE", "sometimes");
  sys.Set("HIPFILE_PAGE_CACHE_PIN_AFTER", "0");
  sys.Set("HIPFILE_PAGE_CACHE_MAX_PINNED_MB", "-1");
  config = ParseConfig(sys);
  EXPECT_EQ(config.page_cache, engine::PageCacheMode::kAuto);
  EXPECT_EQ(config.page_cache_pin_after, 2u);
  EXPECT_EQ(config.page_cache_max_pinned_mb, 0u);
  EXPECT_EQ(config.problems.size(), 3u);
}

TEST(ConfigTest, CopySpin) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).copy_spin_us, 20u);
  sys.Set("HIPFILE_COPY_SPIN_US", "0");
  EXPECT_EQ(ParseConfig(sys).copy_spin_us, 0u);
  sys.Set("HIPFILE_COPY_SPIN_US", "2000000");
  const Config config = ParseConfig(sys);
  EXPECT_EQ(config.copy_spin_us, 20u);
  EXPECT_EQ(config.problems.size(), 1u);
}

TEST(ConfigTest, CopyNap) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).copy_nap_us, 0u);
  sys.Set("HIPFILE_COPY_NAP_US", "5");
  EXPECT_EQ(ParseConfig(sys).copy_nap_us, 5u);
  EXPECT_EQ(ParamSet(ParseConfig(sys)).ToEngineOptions().copy_nap_us, 5u);
  sys.Set("HIPFILE_COPY_NAP_US", "1001");
  const Config config = ParseConfig(sys);
  EXPECT_EQ(config.copy_nap_us, 0u);
  EXPECT_EQ(config.problems.size(), 1u);
}

TEST(ConfigTest, CopyWait) {
  EnvSys sys;
  EXPECT_FALSE(ParseConfig(sys).copy_wait_word);
  sys.Set("HIPFILE_COPY_WAIT", "word");
  EXPECT_TRUE(ParseConfig(sys).copy_wait_word);
  EXPECT_TRUE(ParamSet(ParseConfig(sys)).ToEngineOptions().copy_wait_words);
  sys.Set("HIPFILE_COPY_WAIT", "stream");
  EXPECT_FALSE(ParseConfig(sys).copy_wait_word);
  sys.Set("HIPFILE_COPY_WAIT", "words");
  const Config config = ParseConfig(sys);
  EXPECT_FALSE(config.copy_wait_word);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_COPY_WAIT"), std::string::npos) << config.problems[0];
}

TEST(ConfigTest, IoThreads) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).io_threads, 0u);
  // Unset: one per hardware thread, from 4 to 64, and what ExecutionMaxIOThreads reports.
  const size_t automatic = AutoIoThreads();
  EXPECT_GE(automatic, 4u);
  EXPECT_LE(automatic, 64u);
  EXPECT_EQ(ParamSet(ParseConfig(sys)).io_threads(), automatic);
  EXPECT_EQ(*ParamSet(ParseConfig(sys)).GetSizeT(hipFileParamExecutionMaxIOThreads), automatic);
  sys.Set("HIPFILE_IO_THREADS", "3");
  EXPECT_EQ(ParseConfig(sys).io_threads, 3u);
  EXPECT_EQ(ParamSet(ParseConfig(sys)).io_threads(), 3u);
  EXPECT_EQ(*ParamSet(ParseConfig(sys)).GetSizeT(hipFileParamExecutionMaxIOThreads), 3u);
  // The engine's helpers per request are within it, and never more than kMaxAutoIoThreads.
  EXPECT_EQ(ParamSet(ParseConfig(sys)).ToEngineOptions().io_threads, 3u);
  sys.Set("HIPFILE_IO_THREADS", "1024");
  EXPECT_EQ(ParamSet(ParseConfig(sys)).ToEngineOptions().io_threads, engine::kMaxAutoIoThreads);
  ExpectRefused("HIPFILE_IO_THREADS", {"0", "1025", "-1", "many", ""}, &Config::io_threads, 0u);
}

// How many devices the CPU runtime presents (process_runtime.cc hands it over).
TEST(ConfigTest, CpuDevices) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).cpu_devices, 1u);
  sys.Set("HIPFILE_CPU_DEVICES", "4");
  Config config = ParseConfig(sys);
  EXPECT_EQ(config.cpu_devices, 4u);
  EXPECT_EQ(config.SourceOf(kEnvCpuDevices), SettingSource::kEnvironment);
  sys.Set("HIPFILE_CPU_DEVICES", "16");
  EXPECT_EQ(ParseConfig(sys).cpu_devices, 16u);
  ExpectRefused("HIPFILE_CPU_DEVICES", {"0", "17", "-1", "two", ""}, &Config::cpu_devices, 1u);
}

TEST(ConfigTest, ExecutionMaxIOThreadsOfZeroIsAutomaticAndLargeValuesAreCapped) {
  EnvSys sys;
  ParamSet params(ParseConfig(sys));
  ASSERT_TRUE(params.SetSizeT(hipFileParamExecutionMaxIOThreads, 0).ok());
  EXPECT_EQ(params.io_threads(), AutoIoThreads());
  ASSERT_TRUE(params.SetSizeT(hipFileParamExecutionMaxIOThreads, 1u << 20).ok());
  EXPECT_EQ(params.io_threads(), kMaxIoThreads);
}

// The batch pool's old setting: the I/O threads when HIPFILE_IO_THREADS is unset.
TEST(ConfigTest, BatchWorkers) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).batch_workers, 0u);
  sys.Set("HIPFILE_BATCH_WORKERS", "4");
  EXPECT_EQ(ParseConfig(sys).batch_workers, 4u);
  EXPECT_EQ(ParseConfig(sys).io_threads, 4u);
  {
    EnvSys both;
    both.Set("HIPFILE_BATCH_WORKERS", "4");
    both.Set("HIPFILE_IO_THREADS", "6");
    EXPECT_EQ(ParseConfig(both).io_threads, 6u);
  }
  sys.Set("HIPFILE_BATCH_WORKERS", "128");
  EXPECT_EQ(ParseConfig(sys).batch_workers, 128u);
  ExpectRefused("HIPFILE_BATCH_WORKERS", {"0", "129", "-1", "four", ""}, &Config::batch_workers,
                0u);
}

TEST(ConfigTest, DirectWrites) {
  EnvSys sys;
  EXPECT_TRUE(ParseConfig(sys).direct_writes);
  EXPECT_TRUE(ParamSet(ParseConfig(sys)).ToEngineOptions().direct_writes);
  sys.Set("HIPFILE_DIRECT_WRITES", "0");
  EXPECT_FALSE(ParseConfig(sys).direct_writes);
  EXPECT_FALSE(ParamSet(ParseConfig(sys)).ToEngineOptions().direct_writes);
  sys.Set("HIPFILE_DIRECT_WRITES", "sometimes");
  const Config config = ParseConfig(sys);
  EXPECT_TRUE(config.direct_writes);
  EXPECT_EQ(config.problems.size(), 1u);
}

TEST(ConfigTest, IoUring) {
  EnvSys sys;
  EXPECT_TRUE(ParseConfig(sys).io_uring);
  sys.Set("HIPFILE_IO_URING", "0");
  EXPECT_FALSE(ParseConfig(sys).io_uring);
  sys.Set("HIPFILE_IO_URING", "on");
  EXPECT_TRUE(ParseConfig(sys).io_uring);
  sys.Set("HIPFILE_IO_URING", "sometimes");
  const Config config = ParseConfig(sys);
  EXPECT_TRUE(config.io_uring);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_IO_URING=\"sometimes\""), std::string::npos);
}

TEST(ConfigTest, CopyKernelAndAsyncStaged) {
  EnvSys sys;
  EXPECT_TRUE(ParseConfig(sys).copy_kernel);
  EXPECT_TRUE(ParseConfig(sys).async_staged);
  sys.Set("HIPFILE_COPY_KERNEL", "false");
  sys.Set("HIPFILE_ASYNC_STAGED", "0");
  Config config = ParseConfig(sys);
  EXPECT_FALSE(config.copy_kernel);
  EXPECT_FALSE(config.async_staged);
  sys.Set("HIPFILE_ASYNC_STAGED", "maybe");
  config = ParseConfig(sys);
  EXPECT_TRUE(config.async_staged);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_STAGED=\"maybe\""), std::string::npos);
}

TEST(ConfigTest, AsyncWaysDecidedAtSubmission) {
  EnvSys sys;
  EXPECT_TRUE(ParseConfig(sys).async_copy_at_submission);
  EXPECT_TRUE(ParseConfig(sys).async_read_at_submission);
  sys.Set("HIPFILE_ASYNC_COPY_AT_SUBMISSION", "0");
  sys.Set("HIPFILE_ASYNC_READ_AT_SUBMISSION", "false");
  Config config = ParseConfig(sys);
  EXPECT_FALSE(config.async_copy_at_submission);
  EXPECT_FALSE(config.async_read_at_submission);
  sys.Set("HIPFILE_ASYNC_READ_AT_SUBMISSION", "often");
  config = ParseConfig(sys);
  EXPECT_TRUE(config.async_read_at_submission);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_READ_AT_SUBMISSION=\"often\""),
            std::string::npos)
      << config.problems[0];
}

TEST(ConfigTest, AsyncAssumeFixed) {
  EnvSys sys;
  EXPECT_FALSE(ParseConfig(sys).async_assume_fixed);
  sys.Set("HIPFILE_ASYNC_ASSUME_FIXED", "1");
  EXPECT_TRUE(ParseConfig(sys).async_assume_fixed);
  sys.Set("HIPFILE_ASYNC_ASSUME_FIXED", "always");
  const Config config = ParseConfig(sys);
  EXPECT_FALSE(config.async_assume_fixed) << "a bad value keeps the default";
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_ASSUME_FIXED=\"always\""), std::string::npos)
      << config.problems[0];
}

TEST(ConfigTest, AsyncAheadStream) {
  EnvSys sys;
  EXPECT_FALSE(ParseConfig(sys).async_ahead_stream);
  sys.Set("HIPFILE_ASYNC_AHEAD_STREAM", "1");
  EXPECT_TRUE(ParseConfig(sys).async_ahead_stream);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncAheadStream), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_AHEAD_STREAM", "sometimes");
  const Config config = ParseConfig(sys);
  EXPECT_FALSE(config.async_ahead_stream);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_AHEAD_STREAM=\"sometimes\""), std::string::npos)
      << config.problems[0];
}

TEST(ConfigTest, AsyncCopyRuns) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).async_copy_runs, AsyncCopyRuns::kWindows);
  sys.Set("HIPFILE_ASYNC_COPY_RUNS", "ahead");
  EXPECT_EQ(ParseConfig(sys).async_copy_runs, AsyncCopyRuns::kAhead);
  sys.Set("HIPFILE_ASYNC_COPY_RUNS", "Windows");
  EXPECT_EQ(ParseConfig(sys).async_copy_runs, AsyncCopyRuns::kWindows);
  sys.Set("HIPFILE_ASYNC_COPY_RUNS", "reads");
  EXPECT_EQ(ParseConfig(sys).async_copy_runs, AsyncCopyRuns::kReads);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncCopyRuns), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_COPY_RUNS", "OFF");
  EXPECT_EQ(ParseConfig(sys).async_copy_runs, AsyncCopyRuns::kOff);
  ExpectRefused("HIPFILE_ASYNC_COPY_RUNS", {"all", ""}, &Config::async_copy_runs,
                AsyncCopyRuns::kWindows);
}

TEST(ConfigTest, AsyncRunTable) {
  EnvSys sys;
  EXPECT_FALSE(ParseConfig(sys).async_run_table_on_device);
  sys.Set("HIPFILE_ASYNC_RUN_TABLE", "DEVICE");
  EXPECT_TRUE(ParseConfig(sys).async_run_table_on_device);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncRunTable), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_RUN_TABLE", "host");
  EXPECT_FALSE(ParseConfig(sys).async_run_table_on_device);
  ExpectRefused("HIPFILE_ASYNC_RUN_TABLE", {"gpu", "1"}, &Config::async_run_table_on_device, false);
}

TEST(ConfigTest, AsyncRunBlocks) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).async_run_blocks, runtime::kCopyTableBlocks) << "the table kernel's";
  sys.Set("HIPFILE_ASYNC_RUN_BLOCKS", "1024");
  EXPECT_EQ(ParseConfig(sys).async_run_blocks, 1024u);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncRunBlocks), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_RUN_BLOCKS", "65535");
  EXPECT_EQ(ParseConfig(sys).async_run_blocks, 65535u);
  ExpectRefused("HIPFILE_ASYNC_RUN_BLOCKS", {"0", "65536", "-1", "many", ""},
                &Config::async_run_blocks, 32u);
}

TEST(ConfigTest, AsyncLargeChunksMb) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).async_large_chunks_mb, 64u);
  sys.Set("HIPFILE_ASYNC_LARGE_CHUNKS_MB", "0");
  EXPECT_EQ(ParseConfig(sys).async_large_chunks_mb, 0u);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncLargeChunksMb), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_LARGE_CHUNKS_MB", "256");
  EXPECT_EQ(ParseConfig(sys).async_large_chunks_mb, 256u);
  sys.Set("HIPFILE_ASYNC_LARGE_CHUNKS_MB", "lots");
  const Config config = ParseConfig(sys);
  EXPECT_EQ(config.async_large_chunks_mb, 64u);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_LARGE_CHUNKS_MB=\"lots\""), std::string::npos)
      << config.problems[0];
}

TEST(ConfigTest, AsyncAheadPartMb) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).async_ahead_part_mb, 8u) << "8 MiB parts by default";
  sys.Set("HIPFILE_ASYNC_AHEAD_PART_MB", "0");
  EXPECT_EQ(ParseConfig(sys).async_ahead_part_mb, 0u);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncAheadPartMb), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_AHEAD_PART_MB", "65536");
  EXPECT_EQ(ParseConfig(sys).async_ahead_part_mb, 65536u);
  ExpectRefused("HIPFILE_ASYNC_AHEAD_PART_MB", {"65537", "-8", "parts", ""},
                &Config::async_ahead_part_mb, 8u);
}

TEST(ConfigTest, AsyncQuietStreams) {
  EnvSys sys;
  EXPECT_EQ(ParseConfig(sys).async_quiet_streams, 4u);
  sys.Set("HIPFILE_ASYNC_QUIET_STREAMS", "16");
  EXPECT_EQ(ParseConfig(sys).async_quiet_streams, 16u);
  EXPECT_EQ(ParseConfig(sys).SourceOf(kEnvAsyncQuietStreams), SettingSource::kEnvironment);
  sys.Set("HIPFILE_ASYNC_QUIET_STREAMS", "0");
  EXPECT_EQ(ParseConfig(sys).async_quiet_streams, 0u);
  sys.Set("HIPFILE_ASYNC_QUIET_STREAMS", "4097");
  Config config = ParseConfig(sys);
  EXPECT_EQ(config.async_quiet_streams, 4u);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_ASYNC_QUIET_STREAMS=\"4097\""), std::string::npos)
      << config.problems[0];
}

TEST(ConfigTest, ForceWithoutAllowKeepsTheCompatibilityPath) {
  EnvSys sys;
  sys.Set("HIPFILE_FORCE_COMPAT_MODE", "true");
  sys.Set("HIPFILE_ALLOW_COMPAT_MODE", "false");
  ::testing::internal::CaptureStderr();
  const Config config = ParseConfig(sys);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(config.force_compat_mode);
  EXPECT_TRUE(config.allow_compat_mode);
  EXPECT_NE(err.find("HIPFILE_FORCE_COMPAT_MODE"), std::string::npos) << err;
}

TEST(ConfigTest, LogLevelAcceptsNamesAndDigits) {
  LogLevel level = LogLevel::kWarn;
  EXPECT_TRUE(ParseLogLevel("0", &level));
  EXPECT_EQ(level, LogLevel::kOff);
  EXPECT_TRUE(ParseLogLevel("4", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("Error", &level));
  EXPECT_EQ(level, LogLevel::kError);
  EXPECT_TRUE(ParseLogLevel("trace", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_FALSE(ParseLogLevel("5", &level));
  EXPECT_FALSE(ParseLogLevel("", &level));
  EXPECT_FALSE(ParseLogLevel("warning", &level));
}

}  // namespace
}  // namespace hipfile::core
