// SPDX-License-Identifier: MIT
// The configuration file (HIPFILE_CONFIG): every cufile.json key that means something here, bad
// values and unknown keys reported (never ignored silently), keys with no effect said as notes,
// and the precedence: parameter API > environment > file > default.
#include "core/config_file.h"

#include <gtest/gtest.h>

#include <string>

#include "core/config.h"
#include "core/params.h"
#include "core_test_util.h"

namespace hipfile::core {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ConfigFileSupported()) GTEST_SKIP() << "built without nlohmann-json";
  }
  // The config of an environment whose HIPFILE_CONFIG names a file holding `json`.
  Config Parse(const std::string& json) {
    const std::string path = dir_.File("hipfile.json");
    testing::WriteFileOrDie(path, std::vector<unsigned char>(json.begin(), json.end()));
    sys_.Set("HIPFILE_CONFIG", path);
    return ParseConfig(sys_);
  }
  static bool Mentions(const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& line : lines) {
      if (line.find(what) != std::string::npos) return true;
    }
    return false;
  }
  testing::TempDir dir_;
  EnvSys sys_;
};

// A cufile.json as NVIDIA ships it (shortened), comments included.
constexpr char kCufileJson[] = R"({
    // NOTE : Application can override custom configuration via export CUFILE_ENV_PATH_JSON
    "logging": {
        // "dir": "/home/<xxxx>",
        "level": "ERROR"
    },
    "profile": { "nvtx": false, "cufile_stats": 3 },
    "execution": {
        "max_io_queue_depth": 64,
        "max_io_threads": 6,
        "parallel_io": true,
        "min_io_threshold_size_kb": 4096,
        "max_request_parallelism": 2
    },
    "properties": {
        "max_direct_io_size_kb": 8192,
        "max_device_cache_size_kb": 65536,
        "per_buffer_cache_size_kb": 1024,
        "max_device_pinned_mem_size_kb": 65536,
        "use_poll_mode": true,
        "poll_mode_max_size_kb": 8,
        "allow_compat_mode": false,
        "force_compat_mode": false,
        "io_batchsize": 64,
        "batch_io_timeout_ms": 500,
        "allow_system_memory": true,
        "use_pci_p2pdma": true,
        "prefer_io_uring": true,
        "force_odirect_mode": true,
        "skip_topology_detection": true,
        "stream_memops_bypass": true,
        "gds_rdma_write_support": true,
        "io_priority": "default",
        "rdma_dev_addr_list": [],
        "rdma_load_balancing_policy": "RoundRobin",
        "rdma_dynamic_routing": false,
        "rdma_dynamic_routing_order": ["GPU_MEM_NVLINKS", "GPU_MEM", "SYS_MEM", "P2P"],
        "posix_pool_slab_size_kb": [4, 1024, 16384],
        "posix_pool_slab_count": [128, 64, 64]
    },
    "fs": { "generic": { "posix_unaligned_writes": false }, "lustre": { "posix_gds_min_kb": 0 } },
    "denylist": { "drivers": [], "devices": [], "mounts": [], "filesystems": [] },
    "miscellaneous": { "api_check_aggressive": true }
})";

TEST_F(ConfigFileTest, EveryCufileKeyWithAMeaningIsApplied) {
  const Config config = Parse(kCufileJson);
  EXPECT_TRUE(config.problems.empty()) << ::testing::PrintToString(config.problems);
  EXPECT_EQ(config.log_level, LogLevel::kError);
  EXPECT_EQ(config.stats_level, 2u);  // 3 records what 2 does, as HIPFILE_STATS_LEVEL says
  EXPECT_EQ(config.io_threads, 6u);
  EXPECT_FALSE(config.allow_compat_mode);
  EXPECT_FALSE(config.force_compat_mode);

  const ParamSet params(config);
  EXPECT_EQ(*params.GetSizeT(hipFileParamExecutionMaxIOQueueDepth), 64u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamExecutionMaxIOThreads), 6u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamExecutionMinIOThresholdSizeKB), 4096u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamExecutionMaxRequestParallelism), 2u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesMaxDirectIOSizeKB), 8192u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB), 65536u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesPerBufferCacheSizeKB), 1024u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 65536u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPollthresholdSizeKB), 8u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesIOBatchsize), 64u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesBatchIOTimeoutMs), 500u);
  EXPECT_EQ(*params.GetSizeT(hipFileParamProfileStats), 2u);
  EXPECT_TRUE(*params.GetBool(hipFileParamPropertiesUsePollMode));
  EXPECT_FALSE(*params.GetBool(hipFileParamPropertiesAllowCompatMode));
  EXPECT_FALSE(*params.GetBool(hipFileParamForceCompatMode));
  EXPECT_FALSE(*params.GetBool(hipFileParamProfileNvtx));
  EXPECT_TRUE(*params.GetBool(hipFileParamExecutionParallelIO));
  EXPECT_TRUE(*params.GetBool(hipFileParamPropertiesAllowSystemMemory));
  EXPECT_TRUE(*params.GetBool(hipFileParamUsePcip2pdma));
  EXPECT_TRUE(*params.GetBool(hipFileParamPreferIOUring));
  EXPECT_TRUE(*params.GetBool(hipFileParamForceOdirectMode));
  EXPECT_TRUE(*params.GetBool(hipFileParamSkipTopologyDetection));
  EXPECT_TRUE(*params.GetBool(hipFileParamStreamMemopsBypass));
  EXPECT_TRUE(*params.GetBool(hipFileParamFsMiscApiCheckAggressive));
  EXPECT_EQ(*params.GetString(hipFileParamLoggingLevel), "error");
  // What the engine is given.
  const engine::EngineOptions options = params.ToEngineOptions();
  EXPECT_EQ(options.chunk_bytes, 1024u * 1024);
  EXPECT_EQ(options.max_staging_bytes, 65536u * 1024);

  // cuFile's keys with nothing behind them here are notes, not problems.
  for (const char* key :
       {"\"properties.gds_rdma_write_support\" has no effect", "\"properties.io_priority\"",
        "\"properties.rdma_dev_addr_list\"", "\"properties.rdma_load_balancing_policy\"",
        "\"properties.rdma_dynamic_routing\"", "\"properties.rdma_dynamic_routing_order\"",
        "\"properties.posix_pool_slab_size_kb\"", "\"properties.posix_pool_slab_count\"",
        "section \"fs\" has no effect", "section \"denylist\" has no effect",
        "\"properties.use_poll_mode\" sets hipFileParamPropertiesUsePollMode"}) {
    EXPECT_TRUE(Mentions(config.notes, key)) << key << "\n"
                                             << ::testing::PrintToString(config.notes);
  }
  // Keys that act are not notes (profile.nvtx turns NVTX ranges on: util/trace.h).
  EXPECT_FALSE(Mentions(config.notes, ": \"profile.nvtx\""));
  EXPECT_FALSE(Mentions(config.notes, ": \"properties.max_device_pinned_mem_size_kb\""));
  EXPECT_FALSE(Mentions(config.notes, ": \"execution.max_io_threads\""));
}

TEST_F(ConfigFileTest, LoggingDirAndLevelSetTheLogParameters) {
  const Config config = Parse(R"({"logging": {"dir": "/var/log/gds", "level": "info"}})");
  EXPECT_TRUE(config.problems.empty());
  EXPECT_EQ(config.log_level, LogLevel::kInfo);
  const ParamSet params(config);
  EXPECT_EQ(*params.GetString(hipFileParamLogDir), "/var/log/gds");
  EXPECT_EQ(*params.GetString(hipFileParamEnvLogfilePath), "");
  EXPECT_EQ(params.log_file(), "/var/log/gds/hipfile_" + std::to_string(::getpid()) + ".log");
}

TEST_F(ConfigFileTest, EachBadValueIsOneProblemNamingKeyAndFileAndTheRestApplies) {
  struct Case {
    const char* section;
    const char* key;
    const char* value;
  };
  const Case cases[] = {
      {"logging", "level", "\"loud\""},
      {"logging", "level", "3"},
      {"logging", "dir", "\"\""},
      {"logging", "dir", "7"},
      {"profile", "cufile_stats", "4"},
      {"profile", "cufile_stats", "-1"},
      {"profile", "nvtx", "\"true\""},
      {"execution", "max_io_threads", "1025"},
      {"execution", "max_io_threads", "2.5"},
      {"execution", "max_io_queue_depth", "0"},
      {"properties", "max_direct_io_size_kb", "1001"},  // not a multiple of 4
      {"properties", "per_buffer_cache_size_kb", "0"},
      {"properties", "max_device_pinned_mem_size_kb", "-4096"},
      {"properties", "max_device_pinned_mem_size_kb", "\"1024\""},
      {"properties", "io_batchsize", "129"},
      {"properties", "batch_io_timeout_ms", "4294967296"},
      {"properties", "use_poll_mode", "1"},
      {"properties", "allow_compat_mode", "null"},
      {"properties", "force_compat_mode", "\"yes\""},
  };
  for (const Case& c : cases) {
    // A second problem of its own (an unknown section) shows that one does not hide the other.
    const std::string doc = std::string("{\"") + c.section + "\": {\"" + c.key + "\": " + c.value +
                            "}, \"execution_\": {}}";
    const Config config = Parse(doc);
    const std::string full = std::string(c.section) + "." + c.key;
    ASSERT_EQ(config.problems.size(), 2u) << doc << ::testing::PrintToString(config.problems);
    EXPECT_TRUE(Mentions(config.problems, "HIPFILE_CONFIG " + dir_.File("hipfile.json") + ": \"" +
                                              full + "\" is " + c.value))
        << ::testing::PrintToString(config.problems);
    EXPECT_TRUE(Mentions(config.problems, "unknown key \"execution_\""));
    // Defaults kept.
    EnvSys empty;
    const ParamSet params(config);
    const ParamSet fresh(ParseConfig(empty));
    for (int p = 0; p < static_cast<int>(kSizeTParamCount); ++p) {
      EXPECT_EQ(*params.GetSizeT(p), *fresh.GetSizeT(p)) << full << " param " << p;
    }
    for (int p = 0; p < static_cast<int>(kBoolParamCount); ++p) {
      EXPECT_EQ(*params.GetBool(p), *fresh.GetBool(p)) << full << " param " << p;
    }
    EXPECT_EQ(config.log_level, LogLevel::kWarn) << full;
    EXPECT_TRUE(config.allow_compat_mode) << full;
  }
}

TEST_F(ConfigFileTest, UnknownKeysAreProblemsAndDoNotStopTheOthers) {
  const Config config = Parse(R"({
    "properties": {"max_direct_io_size_kb": 4096, "max_direct_io_size": 1, "allow_compat_mode": false},
    "logging": {"levle": "info"},
    "telemetry": {"on": true}
  })");
  ASSERT_EQ(config.problems.size(), 3u) << ::testing::PrintToString(config.problems);
  EXPECT_TRUE(Mentions(config.problems, "unknown key \"properties.max_direct_io_size\""));
  EXPECT_TRUE(Mentions(config.problems, "unknown key \"logging.levle\""));
  EXPECT_TRUE(Mentions(config.problems, "unknown key \"telemetry\""));
  EXPECT_FALSE(config.allow_compat_mode);
  EXPECT_EQ(*ParamSet(config).GetSizeT(hipFileParamPropertiesMaxDirectIOSizeKB), 4096u);
}

TEST_F(ConfigFileTest, ASectionThatIsNotAnObjectIsAProblem) {
  const Config config = Parse(R"({"properties": 5, "logging": {"level": "debug"}})");
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("\"properties\" is 5, not an object"), std::string::npos);
  EXPECT_EQ(config.log_level, LogLevel::kDebug);
}

TEST_F(ConfigFileTest, AFileThatIsNotJsonAppliesNothing) {
  for (const char* text : {"{\"logging\": {\"level\": \"info\"}", "[1, 2]", "", "level=info"}) {
    const Config config = Parse(text);
    ASSERT_EQ(config.problems.size(), 1u) << text;
    EXPECT_NE(config.problems[0].find("nothing in it is used"), std::string::npos)
        << config.problems[0];
    EXPECT_EQ(config.log_level, LogLevel::kWarn) << text;
  }
}

TEST_F(ConfigFileTest, AMissingOrUnreadableFileIsAProblem) {
  sys_.Set("HIPFILE_CONFIG", dir_.File("absent.json"));
  Config config = ParseConfig(sys_);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("absent.json: cannot be read"), std::string::npos)
      << config.problems[0];
  EXPECT_NE(config.problems[0].find("No such file or directory"), std::string::npos)
      << config.problems[0];

  testing::WriteFileOrDie(dir_.File("a.json"), {'{', '}'});
  sys_.Set("HIPFILE_CONFIG", dir_.File("a.json"));
  sys_.FailNth(testing::SysOp::kReadTextFile, 1, EACCES);
  config = ParseConfig(sys_);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("Permission denied"), std::string::npos) << config.problems[0];

  sys_.Set("HIPFILE_CONFIG", "");
  config = ParseConfig(sys_);
  ASSERT_EQ(config.problems.size(), 1u);
  EXPECT_NE(config.problems[0].find("HIPFILE_CONFIG=\"\""), std::string::npos);
}

TEST_F(ConfigFileTest, TheProblemsAreSaidAtErrorLevel) {
  const LogLevel saved = GetLogLevel();
  SetLogLevel(LogLevel::kWarn);
  ::testing::internal::CaptureStderr();
  (void)Parse(R"({"properties": {"use_poll_mode": "on"}, "nvfs": {}})");
  const std::string err = ::testing::internal::GetCapturedStderr();
  SetLogLevel(saved);
  EXPECT_NE(err.find("hipfile[error]: HIPFILE_CONFIG " + dir_.File("hipfile.json") +
                     ": \"properties.use_poll_mode\" is \"on\", not true or false"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("nvfs"), std::string::npos) << "notes are said later, at info: " << err;
}

// The cuFile drop-in's fallback (src/cufile/cufile_config.cc): its variable when HIPFILE_CONFIG is
// unset, its default file when neither is set and the file opens; HIPFILE_CONFIG wins over both,
// and the lines name what named the file. libhipfile.so has no fallback.
TEST_F(ConfigFileTest, TheDropInsFallbackVariableAndDefaultFile) {
  struct Restore {
    ~Restore() { SetConfigFallback({}); }
  } restore;
  const std::string by_variable = dir_.File("by-variable.json");
  const std::string by_default = dir_.File("cufile.json");
  auto write = [](const std::string& path, const std::string& json) {
    testing::WriteFileOrDie(path, std::vector<unsigned char>(json.begin(), json.end()));
  };
  write(by_variable, R"({"execution": {"max_io_threads": 7}, "bogus": 1})");
  write(by_default, R"({"execution": {"max_io_threads": 9}})");

  sys_.Set("CUFILE_ENV_PATH_JSON", by_variable);
  Config c = ParseConfig(sys_);
  EXPECT_EQ(c.io_threads, 0u) << "libhipfile.so reads no cuFile variable";
  EXPECT_EQ(c.config_path, "");

  SetConfigFallback({"CUFILE_ENV_PATH_JSON", by_default.c_str()});
  c = ParseConfig(sys_);
  EXPECT_EQ(c.io_threads, 7u);
  EXPECT_EQ(c.config_path, by_variable);
  EXPECT_TRUE(Mentions(c.problems, "CUFILE_ENV_PATH_JSON " + by_variable + ": ")) << "bogus";
  EXPECT_EQ(c.SourceOf(kEnvConfig), SettingSource::kDefault);

  sys_.Unset("CUFILE_ENV_PATH_JSON");
  c = ParseConfig(sys_);
  EXPECT_EQ(c.io_threads, 9u);
  EXPECT_EQ(c.config_path, by_default);
  EXPECT_TRUE(c.problems.empty());

  sys_.Set("HIPFILE_CONFIG", by_variable);
  sys_.Set("CUFILE_ENV_PATH_JSON", by_default);
  c = ParseConfig(sys_);
  EXPECT_EQ(c.io_threads, 7u) << "HIPFILE_CONFIG wins";
  EXPECT_TRUE(Mentions(c.problems, "HIPFILE_CONFIG " + by_variable + ": "));

  sys_.Unset("HIPFILE_CONFIG");
  sys_.Unset("CUFILE_ENV_PATH_JSON");
  SetConfigFallback({"CUFILE_ENV_PATH_JSON", "/no/such/cufile.json"});
  c = ParseConfig(sys_);
  EXPECT_EQ(c.config_path, "") << "a default file that does not open is no file";
  EXPECT_TRUE(c.problems.empty());
}

TEST_F(ConfigFileTest, TheEnvironmentWinsOverTheFile) {
  sys_.Set("HIPFILE_LOG_LEVEL", "debug");
  sys_.Set("HIPFILE_IO_THREADS", "3");
  sys_.Set("HIPFILE_ALLOW_COMPAT_MODE", "true");
  sys_.Set("HIPFILE_STATS_LEVEL", "0");
  sys_.Set("HIPFILE_LOGFILE_PATH", "/tmp/x.log");
  const Config config = Parse(R"({
    "logging": {"level": "error", "dir": "/var/log"},
    "execution": {"max_io_threads": 9},
    "profile": {"cufile_stats": 2},
    "properties": {"allow_compat_mode": false, "max_device_pinned_mem_size_kb": 8192}
  })");
  EXPECT_TRUE(config.problems.empty()) << ::testing::PrintToString(config.problems);
  EXPECT_EQ(config.log_level, LogLevel::kDebug);
  EXPECT_EQ(config.io_threads, 3u);
  EXPECT_TRUE(config.allow_compat_mode);
  EXPECT_EQ(config.stats_level, 0u);
  const ParamSet params(config);
  // The log file's path wins over the file's directory.
  EXPECT_EQ(params.log_file(), "/tmp/x.log");
  // What no variable sets comes from the file.
  EXPECT_EQ(*params.GetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 8192u);
}

TEST_F(ConfigFileTest, TheParameterApiWinsOverBoth) {
  sys_.Set("HIPFILE_IO_THREADS", "3");
  const std::string path = dir_.File("hipfile.json");
  const std::string json =
      R"({"execution": {"max_io_threads": 9}, "properties": {"max_device_pinned_mem_size_kb": 8192,
          "use_poll_mode": true}, "logging": {"dir": "/nonexistent-dir"}})";
  testing::WriteFileOrDie(path, std::vector<unsigned char>(json.begin(), json.end()));
  sys_.Set("HIPFILE_CONFIG", path);
  runtime::CpuRuntimeOptions cpu_options;
  std::unique_ptr<runtime::GpuRuntime> gpu = runtime::CreateCpuRuntime(cpu_options);
  Driver driver(sys_, *gpu, ParseConfig(sys_));
  // Before any set: env over file over default.
  EXPECT_EQ(*driver.GetParameterSizeT(hipFileParamExecutionMaxIOThreads), 3u);
  EXPECT_EQ(*driver.GetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 8192u);
  EXPECT_TRUE(*driver.GetParameterBool(hipFileParamPropertiesUsePollMode));
  ASSERT_TRUE(driver.SetParameterSizeT(hipFileParamExecutionMaxIOThreads, 5).ok());
  ASSERT_TRUE(driver.SetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 16384).ok());
  ASSERT_TRUE(driver.SetParameterBool(hipFileParamPropertiesUsePollMode, false).ok());
  ASSERT_TRUE(driver.SetParameterString(hipFileParamLogDir, "").ok());
  ASSERT_TRUE(driver.Open().ok());
  EXPECT_EQ(*driver.GetParameterSizeT(hipFileParamExecutionMaxIOThreads), 5u);
  EXPECT_EQ(*driver.GetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), 16384u);
  EXPECT_FALSE(*driver.GetParameterBool(hipFileParamPropertiesUsePollMode));
  EXPECT_EQ(*driver.GetParameterString(hipFileParamLogDir), "");
  EXPECT_TRUE(driver.Close().ok());
}

}  // namespace
}  // namespace hipfile::core
