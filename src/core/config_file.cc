// SPDX-License-Identifier: MIT
#include "core/config_file.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/params.h"
#include "util/log.h"

#if defined(HIPFILE_HAVE_NLOHMANN_JSON)
#include <nlohmann/json.hpp>
#endif

namespace hipfile::core {
namespace {

// One error line naming the file, also kept in config->problems (so the log file gets it too).
void Problem(Config* config, const std::string& path, const std::string& what) {
  std::string line = ConfigFileLabel(*config, path) + ": " + what;
  HF_LOG(kError, "%s", line.c_str());
  config->problems.push_back(std::move(line));
}

}  // namespace

#if defined(HIPFILE_HAVE_NLOHMANN_JSON)

namespace {

// What a key sets.
enum class Target {
  kSizeParam,    // a size_t parameter (param), checked as hipFileSetParameterSizeT checks it
  kBoolParam,    // a bool parameter (param)
  kProfileNvtx,  // Config::profile_nvtx (HIPFILE_PROFILE_NVTX overrides it)
  kLogLevel,     // Config::log_level (HIPFILE_LOG_LEVEL)
  kLogDir,       // Config::log_dir (hipFileParamLogDir)
  kStatsLevel,   // Config::stats_level (HIPFILE_STATS_LEVEL)
  kIoThreads,    // Config::io_threads (HIPFILE_IO_THREADS)
  kAllowCompat,  // Config::allow_compat_mode (HIPFILE_ALLOW_COMPAT_MODE)
  kForceCompat,  // Config::force_compat_mode (HIPFILE_FORCE_COMPAT_MODE)
  kNoEffect,     // a cuFile key with nothing behind it here
};

struct Key {
  const char* name;  // "section.key", as cufile.json nests it
  Target target;
  int param;               // for kSizeParam, kBoolParam
  const char* param_name;  // the parameter, for the notes
  // Accepted, and its parameter is reported or kept, but it changes no I/O here
  // (docs/parameters.md): said as a note. For kNoEffect: why.
  const char* no_effect;
};

constexpr const char* kIgnored = "accepted and ignored";

// cuFile's keys for its parameters (its CUfile*ConfigParameter_t), and those it has that mean
// nothing here.
constexpr Key kKeys[] = {
    {"logging.dir", Target::kLogDir, 0, "LogDir", nullptr},
    {"logging.level", Target::kLogLevel, 0, "LoggingLevel", nullptr},
    {"profile.nvtx", Target::kProfileNvtx, 0, "ProfileNvtx", nullptr},
    {"profile.cufile_stats", Target::kStatsLevel, 0, "ProfileStats", nullptr},
    {"execution.max_io_queue_depth", Target::kSizeParam, hipFileParamExecutionMaxIOQueueDepth,
     "ExecutionMaxIOQueueDepth", kIgnored},
    {"execution.max_io_threads", Target::kIoThreads, 0, "ExecutionMaxIOThreads", nullptr},
    {"execution.parallel_io", Target::kBoolParam, hipFileParamExecutionParallelIO,
     "ExecutionParallelIO", kIgnored},
    {"execution.min_io_threshold_size_kb", Target::kSizeParam,
     hipFileParamExecutionMinIOThresholdSizeKB, "ExecutionMinIOThresholdSizeKB", kIgnored},
    {"execution.max_request_parallelism", Target::kSizeParam,
     hipFileParamExecutionMaxRequestParallelism, "ExecutionMaxRequestParallelism", kIgnored},
    {"properties.max_direct_io_size_kb", Target::kSizeParam,
     hipFileParamPropertiesMaxDirectIOSizeKB, "PropertiesMaxDirectIOSizeKB",
     "reported by hipFileDriverGetProperties; I/O does not use it"},
    {"properties.max_device_cache_size_kb", Target::kSizeParam,
     hipFileParamPropertiesMaxDeviceCacheSizeKB, "PropertiesMaxDeviceCacheSizeKB",
     "reported by hipFileDriverGetProperties; there is no GPU bounce-buffer pool"},
    {"properties.per_buffer_cache_size_kb", Target::kSizeParam,
     hipFileParamPropertiesPerBufferCacheSizeKB, "PropertiesPerBufferCacheSizeKB", nullptr},
    {"properties.max_device_pinned_mem_size_kb", Target::kSizeParam,
     hipFileParamPropertiesMaxDevicePinnedMemSizeKB, "PropertiesMaxDevicePinnedMemSizeKB", nullptr},
    {"properties.use_poll_mode", Target::kBoolParam, hipFileParamPropertiesUsePollMode,
     "PropertiesUsePollMode", "reported by hipFileDriverGetProperties; there is no poll mode"},
    {"properties.poll_mode_max_size_kb", Target::kSizeParam, hipFileParamPollthresholdSizeKB,
     "PollthresholdSizeKB", "reported by hipFileDriverGetProperties; there is no poll mode"},
    {"properties.allow_compat_mode", Target::kAllowCompat, 0, "PropertiesAllowCompatMode", nullptr},
    {"properties.force_compat_mode", Target::kForceCompat, 0, "ForceCompatMode", nullptr},
    {"properties.io_batchsize", Target::kSizeParam, hipFileParamPropertiesIOBatchsize,
     "PropertiesIOBatchsize", nullptr},
    {"properties.batch_io_timeout_ms", Target::kSizeParam, hipFileParamPropertiesBatchIOTimeoutMs,
     "PropertiesBatchIOTimeoutMs",
     "reported by hipFileDriverGetProperties; entries never time out"},
    {"properties.allow_system_memory", Target::kBoolParam, hipFileParamPropertiesAllowSystemMemory,
     "PropertiesAllowSystemMemory", kIgnored},
    {"properties.use_pci_p2pdma", Target::kBoolParam, hipFileParamUsePcip2pdma, "UsePcip2pdma",
     kIgnored},
    {"properties.prefer_io_uring", Target::kBoolParam, hipFileParamPreferIOUring, "PreferIOUring",
     "accepted and ignored (HIPFILE_IO_URING decides)"},
    {"properties.force_odirect_mode", Target::kBoolParam, hipFileParamForceOdirectMode,
     "ForceOdirectMode", kIgnored},
    {"properties.skip_topology_detection", Target::kBoolParam, hipFileParamSkipTopologyDetection,
     "SkipTopologyDetection", kIgnored},
    {"properties.stream_memops_bypass", Target::kBoolParam, hipFileParamStreamMemopsBypass,
     "StreamMemopsBypass", kIgnored},
    {"miscellaneous.api_check_aggressive", Target::kBoolParam, hipFileParamFsMiscApiCheckAggressive,
     "FsMiscApiCheckAggressive", kIgnored},
    // cuFile's own machinery: RDMA, its POSIX bounce-buffer pools, I/O priorities.
    {"properties.gds_rdma_write_support", Target::kNoEffect, 0, nullptr, "no RDMA path here"},
    {"properties.rdma_dev_addr_list", Target::kNoEffect, 0, nullptr, "no RDMA path here"},
    {"properties.rdma_load_balancing_policy", Target::kNoEffect, 0, nullptr, "no RDMA path here"},
    {"properties.rdma_dynamic_routing", Target::kNoEffect, 0, nullptr, "no RDMA path here"},
    {"properties.rdma_dynamic_routing_order", Target::kNoEffect, 0, nullptr, "no RDMA path here"},
    {"properties.posix_pool_slab_size_kb", Target::kNoEffect, 0, nullptr,
     "staging is sized by properties.per_buffer_cache_size_kb"},
    {"properties.posix_pool_slab_count", Target::kNoEffect, 0, nullptr,
     "staging is sized by properties.max_device_pinned_mem_size_kb"},
    {"properties.io_priority", Target::kNoEffect, 0, nullptr, "no I/O priorities here"},
};

// Whole sections of cufile.json with nothing behind them here.
constexpr struct {
  const char* name;
  const char* why;
} kNoEffectSections[] = {
    {"fs", "no file-system-specific settings here (Lustre, NFS, GPFS, WekaFS, BeeGFS...)"},
    {"denylist", "no nvidia-fs driver here to keep devices, mounts or file systems from"},
    {"blacklist", "no nvidia-fs driver here to keep devices, mounts or file systems from"},
    {"nvfs", "no nvidia-fs driver here"},
};

const Key* FindKey(const std::string& name) {
  for (const Key& key : kKeys) {
    if (name == key.name) return &key;
  }
  return nullptr;
}

bool KnownSection(const std::string& name) {
  for (const Key& key : kKeys) {
    const std::string full = key.name;
    if (full.compare(0, full.find('.'), name) == 0 && full.find('.') == name.size()) return true;
  }
  return false;
}

void Note(Config* config, const std::string& path, const std::string& what) {
  config->notes.push_back(ConfigFileLabel(*config, path) + ": " + what);
}

using Json = nlohmann::json;

// The value as the file writes it, cut for a log line.
std::string Shown(const Json& value) {
  // Strings the parser took are valid UTF-8; replace, rather than throw, all the same.
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

void BadValue(Config* config, const std::string& path, const Key& key, const Json& value,
              const std::string& expected) {
  Problem(config, path,
          std::string("\"") + key.name + "\" is " + Shown(value) + ", not " + expected +
              "; the key is ignored");
}

// An unsigned integer within [lo, hi] (a JSON number without sign, fraction or exponent).
bool UnsignedIn(const Json& value, uint64_t lo, uint64_t hi, uint64_t* out) {
  if (!value.is_number_unsigned()) return false;
  const uint64_t v = value.get<uint64_t>();
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

void Apply(const Key& key, const Json& value, const std::string& path, Config* config) {
  switch (key.target) {
    case Target::kSizeParam: {
      uint64_t v = 0;
      ParamSet probe{Config{}};
      if (!UnsignedIn(value, 0, SIZE_MAX, &v) ||
          !probe.SetSizeT(key.param, static_cast<size_t>(v)).ok()) {
        BadValue(config, path, key, value,
                 std::string("an unsigned integer in ") + SizeTParamRule(key.param));
        return;
      }
      config->file_sizes.emplace_back(static_cast<hipFileSizeTConfigParameter_t>(key.param),
                                      static_cast<size_t>(v));
      break;
    }
    case Target::kBoolParam:
      if (!value.is_boolean()) {
        BadValue(config, path, key, value, "true or false");
        return;
      }
      config->file_bools.emplace_back(static_cast<hipFileBoolConfigParameter_t>(key.param),
                                      value.get<bool>());
      break;
    case Target::kProfileNvtx:
      if (!value.is_boolean()) {
        BadValue(config, path, key, value, "true or false");
        return;
      }
      config->profile_nvtx = value.get<bool>();
      config->SetSource(kEnvProfileNvtx, SettingSource::kConfigFile);
      break;
    case Target::kAllowCompat:
    case Target::kForceCompat:
      if (!value.is_boolean()) {
        BadValue(config, path, key, value, "true or false");
        return;
      }
      (key.target == Target::kAllowCompat ? config->allow_compat_mode : config->force_compat_mode) =
          value.get<bool>();
      config->SetSource(
          key.target == Target::kAllowCompat ? kEnvAllowCompatMode : kEnvForceCompatMode,
          SettingSource::kConfigFile);
      break;
    case Target::kLogLevel: {
      LogLevel level = LogLevel::kWarn;
      if (!value.is_string() || !ParseLogLevel(value.get<std::string>(), &level)) {
        BadValue(config, path, key, value,
                 "one of \"ERROR\", \"WARN\", \"INFO\", \"DEBUG\", \"TRACE\", \"OFF\" (any case)");
        return;
      }
      config->log_level = level;
      config->SetSource(kEnvLogLevel, SettingSource::kConfigFile);
      break;
    }
    case Target::kLogDir:
      if (!value.is_string() || value.get<std::string>().empty() ||
          value.get<std::string>().size() > kMaxStringParamLength) {
        BadValue(config, path, key, value, "a directory (a non-empty string)");
        return;
      }
      config->log_dir = value.get<std::string>();
      break;
    case Target::kStatsLevel: {
      uint64_t v = 0;
      if (!UnsignedIn(value, 0, 3, &v)) {
        BadValue(config, path, key, value, "a level from 0 to 3");
        return;
      }
      config->stats_level = static_cast<unsigned>(std::min<uint64_t>(v, kMaxStatsLevel));
      config->SetSource(kEnvStatsLevel, SettingSource::kConfigFile);
      break;
    }
    case Target::kIoThreads: {
      uint64_t v = 0;
      if (!UnsignedIn(value, 0, kMaxIoThreads, &v)) {
        BadValue(config, path, key, value, "a number of threads from 0 (automatic) to 1024");
        return;
      }
      config->io_threads = static_cast<unsigned>(v);
      config->SetSource(kEnvIoThreads, SettingSource::kConfigFile);
      break;
    }
    case Target::kNoEffect:
      Note(config, path,
           std::string("\"") + key.name + "\" has no effect here (" + key.no_effect + ")");
      return;
  }
  if (key.no_effect != nullptr) {
    Note(config, path,
         std::string("\"") + key.name + "\" sets hipFileParam" + key.param_name +
             ", which has no effect here (" + key.no_effect + ")");
  }
}

}  // namespace

bool ConfigFileSupported() { return true; }

void ApplyConfigText(const std::string& text, const std::string& path, Config* config) {
  Json document;
  try {
    // cufile.json carries // and /* */ comments.
    document = Json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const Json::exception& e) {
    Problem(config, path, std::string("not JSON (") + e.what() + "); nothing in it is used");
    return;
  }
  if (!document.is_object()) {
    Problem(config, path, "not a JSON object ({...}); nothing in it is used");
    return;
  }
  for (const auto& [section, body] : document.items()) {
    bool no_effect_section = false;
    for (const auto& s : kNoEffectSections) {
      if (section == s.name) {
        Note(config, path, "section \"" + section + "\" has no effect here (" + s.why + ")");
        no_effect_section = true;
      }
    }
    if (no_effect_section) continue;
    if (!KnownSection(section)) {
      Problem(config, path, "unknown key \"" + section + "\"; ignored");
      continue;
    }
    if (!body.is_object()) {
      Problem(config, path,
              "\"" + section + "\" is " + Shown(body) + ", not an object of settings; ignored");
      continue;
    }
    for (const auto& [name, value] : body.items()) {
      const std::string full = section + "." + name;
      const Key* key = FindKey(full);
      if (key == nullptr) {
        Problem(config, path, "unknown key \"" + full + "\"; ignored");
        continue;
      }
      Apply(*key, value, path, config);
    }
  }
}

#else  // no JSON library in this build

bool ConfigFileSupported() { return false; }

void ApplyConfigText(const std::string&, const std::string& path, Config* config) {
  Problem(config, path,
          "this build reads no configuration files (nlohmann-json was not found when it was "
          "built; scripts/setup.sh installs it); nothing in it is used");
}

#endif

void ApplyConfigFile(platform::Sys& sys, const std::string& path, Config* config) {
  Result<std::string> text = sys.ReadTextFile(path.c_str());
  if (!text.ok()) {
    Problem(config, path,
            "cannot be read (" + text.status().ToString() + "); nothing in it is used");
    return;
  }
  ApplyConfigText(*text, path, config);
}

}  // namespace hipfile::core
