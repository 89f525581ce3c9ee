// SPDX-License-Identifier: MIT
#include "core/config.h"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <thread>
#include <utility>

#include "core/config_file.h"
#include "core/log_file.h"
#include "platform/env.h"

namespace hipfile::core {
namespace {

void Problem(Config* config, const char* name, const char* value, const char* expected,
             const std::string& used) {
  std::string line =
      std::string(name) + "=\"" + value + "\" is not " + expected + "; using " + used;
  HF_LOG(kError, "%s", line.c_str());
  config->problems.push_back(std::move(line));
}

void ReadBool(platform::Sys& sys, const char* name, bool* out, Config* config) {
  const char* value = sys.Getenv(name);
  if (value == nullptr) return;
  const std::optional<bool> parsed = platform::ParseBool(value);
  if (parsed) {
    *out = *parsed;
    config->SetSource(name, SettingSource::kEnvironment);
    return;
  }
  Problem(config, name, value, "a boolean (true/false, 1/0, yes/no, on/off)",
          *out ? "true" : "false");
}

// An unsigned decimal within [lo, hi] into *out; anything else is reported, naming what *out
// keeps (`keeps`, or its value when null).
template <class T>
void ReadNumber(platform::Sys& sys, const char* name, uint64_t lo, uint64_t hi,
                const char* expected, const char* keeps, T* out, Config* config) {
  const char* value = sys.Getenv(name);
  if (value == nullptr) return;
  const std::optional<uint64_t> parsed = platform::ParseUnsigned(value);
  if (parsed && *parsed >= lo && *parsed <= hi) {
    *out = static_cast<T>(*parsed);
    config->SetSource(name, SettingSource::kEnvironment);
    return;
  }
  Problem(config, name, value, expected, keeps != nullptr ? keeps : std::to_string(*out));
}

// One of `choices` (any case) into *out; anything else is reported, naming `keeps`.
template <class T, size_t N>
void ReadChoice(platform::Sys& sys, const char* name, const std::pair<const char*, T> (&choices)[N],
                const char* expected, const char* keeps, T* out, Config* config) {
  const char* value = sys.Getenv(name);
  if (value == nullptr) return;
  const auto* found = std::find_if(std::begin(choices), std::end(choices),
                                   [&](const auto& c) { return strcasecmp(value, c.first) == 0; });
  if (found != std::end(choices)) {
    *out = found->second;
    config->SetSource(name, SettingSource::kEnvironment);
    return;
  }
  Problem(config, name, value, expected, keeps);
}

}  // namespace

const char* const kEnvVariables[] = {
    kEnvAllowCompatMode,
    kEnvForceCompatMode,
    kEnvProfileNvtx,
    kEnvUnsupportedFileSystems,
    kEnvStatsLevel,
    kEnvLogLevel,
    kEnvLogfilePath,
    kEnvConfig,
    kEnvRuntime,
    kEnvPageCache,
    kEnvPageCachePinAfter,
    kEnvPageCacheMaxPinnedMb,
    kEnvCopySpinUs,
    kEnvCopyNapUs,
    kEnvDirectWrites,
    kEnvWriteThrough,
    kEnvCopyKernel,
    kEnvAsyncStaged,
    kEnvIoUring,
    kEnvIoThreads,
    kEnvBatchWorkers,
    kEnvPageCachePinAhead,
    kEnvPageCachePinAside,
    kEnvCpuDevices,
    kEnvAsyncRunIdleKb,
    kEnvAsyncCopyAtSubmission,
    kEnvCopyWait,
    kEnvAsyncReadAtSubmission,
    kEnvAsyncStageTimes,
    kEnvAsyncQuietStreams,
    kEnvAsyncLargeChunksMb,
    kEnvAsyncAheadStream,
    kEnvAsyncCopyRuns,
    kEnvAsyncRunTable,
    kEnvAsyncRunBlocks,
    kEnvAsyncAheadPartMb,
    kEnvAsyncAssumeFixed,
};
const size_t kEnvVariableCount = sizeof kEnvVariables / sizeof kEnvVariables[0];

SettingSource Config::SourceOf(const char* variable) const {
  for (const auto& [name, source] : sources) {
    if (std::strcmp(name, variable) == 0) return source;
  }
  return SettingSource::kDefault;
}

void Config::SetSource(const char* variable, SettingSource source) {
  for (auto& entry : sources) {
    if (std::strcmp(entry.first, variable) == 0) {
      entry.second = source;
      return;
    }
  }
  sources.emplace_back(variable, source);
}

bool ParseLogLevel(const std::string& text, LogLevel* level) {
  static constexpr struct {
    const char* name;
    LogLevel level;
  } kLevels[] = {
      {"off", LogLevel::kOff},     {"error", LogLevel::kError},
      {"warn", LogLevel::kWarn},   {"info", LogLevel::kInfo},
      {"debug", LogLevel::kDebug}, {"trace", LogLevel::kDebug}};  // cuFile's most verbose level
  for (const auto& entry : kLevels) {
    if (strcasecmp(text.c_str(), entry.name) == 0) {
      *level = entry.level;
      return true;
    }
  }
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') {
    *level = static_cast<LogLevel>(text[0] - '0');
    return true;
  }
  return false;
}

size_t AutoIoThreads() { return std::clamp<size_t>(std::thread::hardware_concurrency(), 4, 64); }

size_t IoThreadsOf(const Config& config) {
  return config.io_threads != 0 ? config.io_threads : AutoIoThreads();
}

namespace {

std::atomic<const char*> fallback_variable{nullptr};
std::atomic<const char*> fallback_default_path{nullptr};

// The configuration file's path and, in *named_by, what named it: HIPFILE_CONFIG, else the
// fallback's variable, else (named_by "") the fallback's default file when it opens. nullptr
// when there is none.
const char* FindConfigFile(platform::Sys& sys, const char** named_by) {
  *named_by = kEnvConfig;
  if (const char* path = sys.Getenv(kEnvConfig)) return path;
  const ConfigFallback fallback = GetConfigFallback();
  if (fallback.variable != nullptr) {
    *named_by = fallback.variable;
    if (const char* path = sys.Getenv(fallback.variable)) return path;
  }
  if (fallback.default_path == nullptr) return nullptr;
  Result<int> fd = sys.Open(fallback.default_path, O_RDONLY | O_CLOEXEC, 0);
  if (!fd.ok()) return nullptr;
  (void)sys.Close(*fd);
  *named_by = "";
  return fallback.default_path;
}

}  // namespace

void SetConfigFallback(const ConfigFallback& fallback) {
  fallback_variable.store(fallback.variable);
  fallback_default_path.store(fallback.default_path);
}

ConfigFallback GetConfigFallback() {
  return ConfigFallback{fallback_variable.load(), fallback_default_path.load()};
}

std::string ConfigFileLabel(const Config& config, const std::string& path) {
  return config.config_named_by.empty() ? path : config.config_named_by + " " + path;
}

Config ParseConfig(platform::Sys& sys) {
  Config config;
  // The configuration file first: every variable set below wins over its key.
  const char* named_by = kEnvConfig;
  if (const char* path = FindConfigFile(sys, &named_by)) {
    config.config_path = path;
    config.config_named_by = named_by;
    if (config.config_path.empty()) {
      Problem(&config, named_by, path, "a path", "no configuration file");
    } else {
      if (std::strcmp(named_by, kEnvConfig) == 0)
        config.SetSource(kEnvConfig, SettingSource::kEnvironment);
      ApplyConfigFile(sys, config.config_path, &config);
    }
  }
  // The log level first, so that problems with the other variables are reported at it.
  if (const char* value = sys.Getenv(kEnvLogLevel)) {
    if (ParseLogLevel(value, &config.log_level)) {
      config.SetSource(kEnvLogLevel, SettingSource::kEnvironment);
    } else {
      Problem(&config, kEnvLogLevel, value, "one of off, error, warn, info, debug, 0..4",
              LogLevelName(config.log_level));
    }
  }
  ReadBool(sys, kEnvAllowCompatMode, &config.allow_compat_mode, &config);
  ReadBool(sys, kEnvForceCompatMode, &config.force_compat_mode, &config);
  ReadBool(sys, kEnvProfileNvtx, &config.profile_nvtx, &config);
  ReadBool(sys, kEnvUnsupportedFileSystems, &config.unsupported_file_systems, &config);
  ReadBool(sys, kEnvIoUring, &config.io_uring, &config);
  ReadBool(sys, kEnvCopyKernel, &config.copy_kernel, &config);
  ReadBool(sys, kEnvAsyncStaged, &config.async_staged, &config);
  ReadNumber(sys, kEnvAsyncRunIdleKb, 0, 1u << 20, "a size in KiB from 0 to 1048576", nullptr,
             &config.async_run_idle_kb, &config);
  ReadBool(sys, kEnvAsyncCopyAtSubmission, &config.async_copy_at_submission, &config);
  ReadBool(sys, kEnvAsyncReadAtSubmission, &config.async_read_at_submission, &config);
  ReadBool(sys, kEnvAsyncAssumeFixed, &config.async_assume_fixed, &config);
  ReadBool(sys, kEnvAsyncAheadStream, &config.async_ahead_stream, &config);
  static constexpr std::pair<const char*, AsyncCopyRuns> kCopyRuns[] = {
      {"windows", AsyncCopyRuns::kWindows},
      {"ahead", AsyncCopyRuns::kAhead},
      {"reads", AsyncCopyRuns::kReads},
      {"off", AsyncCopyRuns::kOff}};
  ReadChoice(sys, kEnvAsyncCopyRuns, kCopyRuns, "one of windows, ahead, reads, off", "windows",
             &config.async_copy_runs, &config);
  static constexpr std::pair<const char*, bool> kRunTable[] = {{"device", true}, {"host", false}};
  ReadChoice(sys, kEnvAsyncRunTable, kRunTable, "host or device", "host",
             &config.async_run_table_on_device, &config);
  ReadNumber(sys, kEnvAsyncRunBlocks, 1, 65535, "a number of blocks from 1 to 65535", nullptr,
             &config.async_run_blocks, &config);
  ReadNumber(sys, kEnvAsyncLargeChunksMb, 0, 1u << 20, "a size in MiB from 0 to 1048576", nullptr,
             &config.async_large_chunks_mb, &config);
  ReadNumber(sys, kEnvAsyncAheadPartMb, 0, 1u << 16, "a size in MiB from 0 to 65536", nullptr,
             &config.async_ahead_part_mb, &config);
  ReadNumber(sys, kEnvAsyncQuietStreams, 0, 4096, "a number from 0 to 4096", nullptr,
             &config.async_quiet_streams, &config);
  ReadBool(sys, kEnvAsyncStageTimes, &config.async_stage_times, &config);
  if (const char* value = sys.Getenv(kEnvStatsLevel)) {
    const std::optional<uint64_t> parsed = platform::ParseUnsigned(value);
    if (parsed) {
      config.stats_level = static_cast<unsigned>(std::min<uint64_t>(*parsed, kMaxStatsLevel));
      config.SetSource(kEnvStatsLevel, SettingSource::kEnvironment);
    } else {
      Problem(&config, kEnvStatsLevel, value, "an unsigned decimal number",
              std::to_string(config.stats_level));
    }
  }
  static constexpr std::pair<const char*, engine::PageCacheMode> kPageCacheModes[] = {
      {"auto", engine::PageCacheMode::kAuto},
      {"on", engine::PageCacheMode::kOn},
      {"off", engine::PageCacheMode::kOff}};
  ReadChoice(sys, kEnvPageCache, kPageCacheModes, "one of auto, on, off", "auto",
             &config.page_cache, &config);
  ReadNumber(sys, kEnvPageCachePinAfter, 1, 1000, "a number from 1 to 1000", nullptr,
             &config.page_cache_pin_after, &config);
  ReadNumber(sys, kEnvPageCachePinAhead, 0, 1024, "a number of windows from 0 to 1024", nullptr,
             &config.page_cache_pin_ahead, &config);
  ReadBool(sys, kEnvPageCachePinAside, &config.page_cache_pin_aside, &config);
  ReadNumber(sys, kEnvPageCacheMaxPinnedMb, 0, uint64_t{1} << 40, "a size in MiB", "0 (automatic)",
             &config.page_cache_max_pinned_mb, &config);
  ReadNumber(sys, kEnvCopySpinUs, 0, 1000000, "microseconds from 0 to 1000000", nullptr,
             &config.copy_spin_us, &config);
  ReadNumber(sys, kEnvCopyNapUs, 0, 1000, "microseconds from 0 to 1000", nullptr,
             &config.copy_nap_us, &config);
  static constexpr std::pair<const char*, bool> kCopyWaits[] = {{"stream", false}, {"word", true}};
  ReadChoice(sys, kEnvCopyWait, kCopyWaits, "one of stream, word", "stream", &config.copy_wait_word,
             &config);
  ReadBool(sys, kEnvDirectWrites, &config.direct_writes, &config);
  ReadBool(sys, kEnvWriteThrough, &config.write_through, &config);
  ReadNumber(sys, kEnvIoThreads, 1, static_cast<unsigned>(kMaxIoThreads),
             "a number of threads from 1 to 1024", "automatic", &config.io_threads, &config);
  ReadNumber(sys, kEnvCpuDevices, 1, kMaxCpuDevices, "a number of devices from 1 to 16", nullptr,
             &config.cpu_devices, &config);
  ReadNumber(sys, kEnvBatchWorkers, 1, 128, "a number of threads from 1 to 128", "automatic",
             &config.batch_workers, &config);
  if (const char* value = sys.Getenv(kEnvLogfilePath)) {
    if (*value == '\0') {
      Problem(&config, kEnvLogfilePath, value, "a path", "stderr");
    } else {
      config.log_file_path = value;
      config.SetSource(kEnvLogfilePath, SettingSource::kEnvironment);
    }
  }
  if (config.batch_workers != 0 && config.io_threads == 0) {
    HF_LOG(kInfo, "%s=%u: the I/O threads, which batch shares now (%s sets them)", kEnvBatchWorkers,
           config.batch_workers, kEnvIoThreads);
    config.io_threads = config.batch_workers;
    config.io_threads_from_batch_workers = true;
  }
  if (config.force_compat_mode && !config.allow_compat_mode) {
    // Printed whatever the log level (as AMD's library does): the variables contradict each other.
    Log(LogLevel::kWarn,
        "%s=true and %s=false would disable all I/O paths; keeping the compatibility path enabled",
        kEnvForceCompatMode, kEnvAllowCompatMode);
    config.allow_compat_mode = true;
  }
  return config;
}

const Config& ProcessConfig() {
  // Leaked on purpose: read from threads that may outlive static destruction.
  static const Config* config = [] {
    // Apply the level before parsing so that parse problems honour it too.
    const char* value = platform::RealSys().Getenv(kEnvLogLevel);
    LogLevel level = LogLevel::kWarn;
    if (value != nullptr && ParseLogLevel(value, &level)) SetLogLevel(level);
    auto* c = new Config(ParseConfig(platform::RealSys()));
    SetLogLevel(c->log_level);
    // The log file before anything else is said, so that it holds the runtime's choice and the
    // configuration's problems (said on stderr while it was parsed) too.
    const std::string log_file = LogFilePathFor(c->log_file_path, c->log_dir, ::getpid());
    if (!log_file.empty() && UseLogFile(platform::RealSys(), log_file)) {
      for (const std::string& problem : c->problems) Log(LogLevel::kError, "%s", problem.c_str());
    }
    if (!c->config_path.empty()) {
      HF_LOG(kInfo, "configuration file %s read; %zu problem(s) with the configuration",
             c->config_path.c_str(), c->problems.size());
    }
    for (const std::string& note : c->notes) HF_LOG(kInfo, "%s", note.c_str());
    return c;
  }();
  return *config;
}

}  // namespace hipfile::core
