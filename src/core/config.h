// Config: the environment, read once. Every variable is documented in docs/environment.md.
#pragma once

#include <string>
#include <vector>

#include "engine/sync_io.h"
#include "platform/sys.h"
#include "util/log.h"

namespace hipfile::core {

// Variable names.
// Enables the compatibility (bounce-buffer) path; the only path this library has without kernel
// GPU-direct support, so "false" makes I/O fail.
inline constexpr char kEnvAllowCompatMode[] = "HIPFILE_ALLOW_COMPAT_MODE";
// Disables the GPU-direct path.
inline constexpr char kEnvForceCompatMode[] = "HIPFILE_FORCE_COMPAT_MODE";
// Lifts the ext4(data=ordered)/xfs restriction of the GPU-direct path.
inline constexpr char kEnvUnsupportedFileSystems[] = "HIPFILE_UNSUPPORTED_FILE_SYSTEMS";
// 0 = no statistics, 1 = basic, 2 = detailed (same as 1); larger values are clamped to 2.
inline constexpr char kEnvStatsLevel[] = "HIPFILE_STATS_LEVEL";
// auto | on | off: the engine's page-cache path (pinning resident file pages and copying from
// them). auto is off for now: pinning during I/O can stall stream-ordered operations on CUDA.
inline constexpr char kEnvPageCache[] = "HIPFILE_PAGE_CACHE";
// off|error|warn|info|debug or 0..4.
inline constexpr char kEnvLogLevel[] = "HIPFILE_LOG_LEVEL";

inline constexpr unsigned kMaxStatsLevel = 2;

struct Config {
  bool allow_compat_mode = true;
  bool force_compat_mode = false;
  bool unsupported_file_systems = false;
  unsigned stats_level = 1;
  LogLevel log_level = LogLevel::kWarn;
  engine::PageCacheMode page_cache = engine::PageCacheMode::kAuto;
  // One line per variable whose value could not be parsed (its default was used instead).
  std::vector<std::string> problems;
};

// Reads the variables through sys.Getenv. Each unparsable value is logged at error level and
// listed in Config::problems. FORCE=true with ALLOW=false prints a warning to stderr and keeps
// the compatibility path enabled (so that some path remains).
Config ParseConfig(platform::Sys& sys);

// "off", "error", "warn", "info", "debug" (case-insensitive; cuFile's "trace" means debug) or
// "0".."4". false when not one of those.
bool ParseLogLevel(const std::string& text, LogLevel* level);

// The process's configuration: parsed from the real environment on first use, which also applies
// its log level (SetLogLevel). Never destroyed.
const Config& ProcessConfig();

}  // namespace hipfile::core
