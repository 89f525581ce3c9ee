// SPDX-License-Identifier: MIT
#include "config_report.h"

#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace hipfile_check {

namespace {

// The variable whose value is a parameter's default (docs/parameters.md), or nullptr: named
// beside the parameter's source.
struct ParamSource {
  const char* variable;
  const char* fallback_variable;  // read when `variable` is unset
};

template <class Enum>
struct ParamInfo {
  Enum param;
  const char* name;
  ParamSource source;
};

const ParamInfo<hipFileSizeTConfigParameter_t> kSizeParams[] = {
    {hipFileParamProfileStats, "hipFileParamProfileStats", {"HIPFILE_STATS_LEVEL", nullptr}},
    {hipFileParamExecutionMaxIOQueueDepth, "hipFileParamExecutionMaxIOQueueDepth", {}},
    {hipFileParamExecutionMaxIOThreads,
     "hipFileParamExecutionMaxIOThreads",
     {"HIPFILE_IO_THREADS", "HIPFILE_BATCH_WORKERS"}},
    {hipFileParamExecutionMinIOThresholdSizeKB, "hipFileParamExecutionMinIOThresholdSizeKB", {}},
    {hipFileParamExecutionMaxRequestParallelism, "hipFileParamExecutionMaxRequestParallelism", {}},
    {hipFileParamPropertiesMaxDirectIOSizeKB, "hipFileParamPropertiesMaxDirectIOSizeKB", {}},
    {hipFileParamPropertiesMaxDeviceCacheSizeKB, "hipFileParamPropertiesMaxDeviceCacheSizeKB", {}},
    {hipFileParamPropertiesPerBufferCacheSizeKB, "hipFileParamPropertiesPerBufferCacheSizeKB", {}},
    {hipFileParamPropertiesMaxDevicePinnedMemSizeKB,
     "hipFileParamPropertiesMaxDevicePinnedMemSizeKB",
     {}},
    {hipFileParamPropertiesIOBatchsize, "hipFileParamPropertiesIOBatchsize", {}},
    {hipFileParamPollthresholdSizeKB, "hipFileParamPollthresholdSizeKB", {}},
    {hipFileParamPropertiesBatchIOTimeoutMs, "hipFileParamPropertiesBatchIOTimeoutMs", {}},
};

const ParamInfo<hipFileBoolConfigParameter_t> kBoolParams[] = {
    {hipFileParamPropertiesUsePollMode, "hipFileParamPropertiesUsePollMode", {}},
    {hipFileParamPropertiesAllowCompatMode,
     "hipFileParamPropertiesAllowCompatMode",
     {"HIPFILE_ALLOW_COMPAT_MODE", nullptr}},
    {hipFileParamForceCompatMode,
     "hipFileParamForceCompatMode",
     {"HIPFILE_FORCE_COMPAT_MODE", nullptr}},
    {hipFileParamFsMiscApiCheckAggressive, "hipFileParamFsMiscApiCheckAggressive", {}},
    {hipFileParamExecutionParallelIO, "hipFileParamExecutionParallelIO", {}},
    {hipFileParamProfileNvtx, "hipFileParamProfileNvtx", {"HIPFILE_PROFILE_NVTX", nullptr}},
    {hipFileParamPropertiesAllowSystemMemory, "hipFileParamPropertiesAllowSystemMemory", {}},
    {hipFileParamUsePcip2pdma, "hipFileParamUsePcip2pdma", {}},
    {hipFileParamPreferIOUring, "hipFileParamPreferIOUring", {}},
    {hipFileParamForceOdirectMode, "hipFileParamForceOdirectMode", {}},
    {hipFileParamSkipTopologyDetection, "hipFileParamSkipTopologyDetection", {}},
    {hipFileParamStreamMemopsBypass, "hipFileParamStreamMemopsBypass", {}},
};

const ParamInfo<hipFileStringConfigParameter_t> kStringParams[] = {
    {hipFileParamLoggingLevel, "hipFileParamLoggingLevel", {"HIPFILE_LOG_LEVEL", nullptr}},
    {hipFileParamEnvLogfilePath, "hipFileParamEnvLogfilePath", {"HIPFILE_LOGFILE_PATH", nullptr}},
    {hipFileParamLogDir, "hipFileParamLogDir", {}},
};

std::string ErrorText(const hipFileError_t& e) {
  return std::string(hipFileExtOpErrorName(e.err)) + " (" + hipFileGetOpErrorString(e.err) + ")";
}

Source FromLibrary(hipFileExtSettingSource_t s) {
  switch (s) {
    case hipFileExtSourceEnvironment:
      return Source::kEnvironment;
    case hipFileExtSourceConfigFile:
      return Source::kConfigFile;
    case hipFileExtSourceApi:
      return Source::kApi;
    default:
      return Source::kDefault;
  }
}

bool KnownVariable(const std::string& name) {
  for (unsigned i = 0; const char* v = hipFileExtVariableName(i); ++i) {
    if (name == v) return true;
  }
  return false;
}

}  // namespace

const char* SourceName(Source s) {
  switch (s) {
    case Source::kDefault:
      return hipFileExtSourceName(hipFileExtSourceDefault);
    case Source::kEnvironment:
      return hipFileExtSourceName(hipFileExtSourceEnvironment);
    case Source::kConfigFile:
      return hipFileExtSourceName(hipFileExtSourceConfigFile);
    case Source::kApi:
      return hipFileExtSourceName(hipFileExtSourceApi);
  }
  return "default";
}

Config ReadConfig() {
  Config c;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "HIPFILE_", 8) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    EnvVar v;
    v.name.assign(*e, static_cast<size_t>(eq - *e));
    v.value = eq + 1;
    v.known = KnownVariable(v.name);
    hipFileExtSettingSource_t source = hipFileExtSourceDefault;
    if (!v.known) {
      v.note = "not a variable this library version reads (docs/environment.md)";
    } else if (hipFileExtGetVariableSource(v.name.c_str(), &source).err == hipFileSuccess) {
      v.source = FromLibrary(source);
      // Set, yet not what the setting took: the library refused the value (its error line says
      // why) and kept the file's or the default.
      if (v.source != Source::kEnvironment) {
        v.note = std::string("refused by the library; the value in use is the ") +
                 (v.source == Source::kConfigFile ? "file's" : "default");
      }
    }
    if (v.name == "HIPFILE_CONFIG") {
      c.config_file = v.value;
      if (v.note.empty()) v.note = "a configuration file; the values it set say \"file\" below";
    }
    c.environment.push_back(std::move(v));
  }
  std::sort(c.environment.begin(), c.environment.end(),
            [](const EnvVar& a, const EnvVar& b) { return a.name < b.name; });

  // One parameter: its value as the API reads it, else the error, and where it came from.
  const auto add = [&](const auto& info, const char* type, const auto& read,
                       const auto& source_of) {
    Parameter p;
    p.name = info.name;
    p.type = type;
    const hipFileError_t e = read(info.param, &p.value);
    if (e.err != hipFileSuccess) {
      p.value.clear();
      p.error = ErrorText(e);
    }
    hipFileExtSettingSource_t source = hipFileExtSourceDefault;
    const hipFileError_t se = source_of(info.param, &source);
    if (se.err != hipFileSuccess && p.error.empty()) p.error = ErrorText(se);
    p.source = FromLibrary(source);
    if (info.source.variable != nullptr) {
      // The variable that would set it: HIPFILE_BATCH_WORKERS stands in for HIPFILE_IO_THREADS
      // where only it is set.
      p.source_variable = info.source.variable;
      if (info.source.fallback_variable != nullptr &&
          std::getenv(info.source.variable) == nullptr &&
          std::getenv(info.source.fallback_variable) != nullptr) {
        p.source_variable = info.source.fallback_variable;
      }
    }
    if (p.source == Source::kEnvironment) {
      p.source_detail = p.source_variable;
    } else if (p.source == Source::kConfigFile) {
      p.source_detail = "HIPFILE_CONFIG";
    } else if (p.source == Source::kDefault && !p.source_variable.empty()) {
      p.source_detail = p.source_variable +
                        (std::getenv(p.source_variable.c_str()) != nullptr ? " refused" : " unset");
    }
    c.parameters.push_back(std::move(p));
  };
  for (const auto& info : kSizeParams) {
    add(
        info, "size_t",
        [](hipFileSizeTConfigParameter_t param, std::string* out) {
          size_t value = 0;
          const hipFileError_t e = hipFileGetParameterSizeT(param, &value);
          *out = std::to_string(value);
          return e;
        },
        hipFileExtGetParameterSizeTSource);
  }
  for (const auto& info : kBoolParams) {
    add(
        info, "bool",
        [](hipFileBoolConfigParameter_t param, std::string* out) {
          bool value = false;
          const hipFileError_t e = hipFileGetParameterBool(param, &value);
          *out = value ? "true" : "false";
          return e;
        },
        hipFileExtGetParameterBoolSource);
  }
  for (const auto& info : kStringParams) {
    add(
        info, "string",
        [](hipFileStringConfigParameter_t param, std::string* out) {
          char value[4096] = {0};  // the longest a string parameter is: 4095 bytes and a NUL
          const hipFileError_t e = hipFileGetParameterString(param, value, sizeof value);
          *out = value;
          return e;
        },
        hipFileExtGetParameterStringSource);
  }
  return c;
}

bool BoolParameter(const Config& c, const std::string& name, bool fallback) {
  for (const Parameter& p : c.parameters) {
    if (p.name == name && p.error.empty()) return p.value == "true";
  }
  return fallback;
}

}  // namespace hipfile_check
