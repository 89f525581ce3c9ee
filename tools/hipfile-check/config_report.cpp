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

// The variables this library version reads (docs/environment.md; src/core/config.h,
// src/core/process_runtime.cc). Others are listed too, marked as not read.
const char* const kKnownVariables[] = {
    "HIPFILE_ALLOW_COMPAT_MODE",
    "HIPFILE_FORCE_COMPAT_MODE",
    "HIPFILE_UNSUPPORTED_FILE_SYSTEMS",
    "HIPFILE_STATS_LEVEL",
    "HIPFILE_LOG_LEVEL",
    "HIPFILE_RUNTIME",
    "HIPFILE_PAGE_CACHE",
    "HIPFILE_PAGE_CACHE_PIN_AFTER",
    "HIPFILE_PAGE_CACHE_MAX_PINNED_MB",
    "HIPFILE_COPY_SPIN_US",
    "HIPFILE_COPY_NAP_US",
    "HIPFILE_DIRECT_WRITES",
    "HIPFILE_WRITE_THROUGH",
    "HIPFILE_COPY_KERNEL",
    "HIPFILE_ASYNC_STAGED",
    "HIPFILE_IO_URING",
    "HIPFILE_IO_THREADS",
    "HIPFILE_BATCH_WORKERS",
    "HIPFILE_CONFIG",
};

// The variable whose value is a parameter's default (docs/parameters.md), or nullptr.
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
    {hipFileParamProfileNvtx, "hipFileParamProfileNvtx", {}},
    {hipFileParamPropertiesAllowSystemMemory, "hipFileParamPropertiesAllowSystemMemory", {}},
    {hipFileParamUsePcip2pdma, "hipFileParamUsePcip2pdma", {}},
    {hipFileParamPreferIOUring, "hipFileParamPreferIOUring", {}},
    {hipFileParamForceOdirectMode, "hipFileParamForceOdirectMode", {}},
    {hipFileParamSkipTopologyDetection, "hipFileParamSkipTopologyDetection", {}},
    {hipFileParamStreamMemopsBypass, "hipFileParamStreamMemopsBypass", {}},
};

const ParamInfo<hipFileStringConfigParameter_t> kStringParams[] = {
    {hipFileParamLoggingLevel, "hipFileParamLoggingLevel", {"HIPFILE_LOG_LEVEL", nullptr}},
    {hipFileParamEnvLogfilePath, "hipFileParamEnvLogfilePath", {}},
    {hipFileParamLogDir, "hipFileParamLogDir", {}},
};

std::string ErrorText(const hipFileError_t& e) {
  return std::string(hipFileExtOpErrorName(e.err)) + " (" + hipFileGetOpErrorString(e.err) + ")";
}

// Where a parameter's value came from. Nothing in this process set a parameter, so it is the
// environment's where its variable is set, else the default. A configuration file (HIPFILE_CONFIG)
// becomes one more case here once the library says which values it took from one.
void AttributeSource(const ParamSource& s, Parameter* p) {
  for (const char* v : {s.variable, s.fallback_variable}) {
    if (v != nullptr && std::getenv(v) != nullptr) {
      p->source = Source::kEnvironment;
      p->source_variable = v;
      return;
    }
  }
  p->source = Source::kDefault;
  if (s.variable != nullptr) p->source_variable = s.variable;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The library's boolean spellings (docs/environment.md): anything else is its default.
bool EnvBool(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr) return fallback;
  const std::string s = Lower(v);
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return fallback;
}

}  // namespace

const char* SourceName(Source s) {
  switch (s) {
    case Source::kDefault:
      return "default";
    case Source::kEnvironment:
      return "environment";
    case Source::kConfigFile:
      return "config file";
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
    v.known = std::any_of(std::begin(kKnownVariables), std::end(kKnownVariables),
                          [&](const char* k) { return v.name == k; });
    if (!v.known) v.note = "not a variable this library version reads (docs/environment.md)";
    if (v.name == "HIPFILE_CONFIG") {
      c.config_file = v.value;
      v.note = "a configuration file; hipfile-check cannot yet tell which values came from it";
    }
    c.environment.push_back(std::move(v));
  }
  std::sort(c.environment.begin(), c.environment.end(),
            [](const EnvVar& a, const EnvVar& b) { return a.name < b.name; });

  // One parameter: its value as the API reads it, else the error, and where it came from.
  const auto add = [&](const auto& info, const char* type, const auto& read) {
    Parameter p;
    p.name = info.name;
    p.type = type;
    const hipFileError_t e = read(info.param, &p.value);
    if (e.err != hipFileSuccess) {
      p.value.clear();
      p.error = ErrorText(e);
    }
    AttributeSource(info.source, &p);
    c.parameters.push_back(std::move(p));
  };
  for (const auto& info : kSizeParams) {
    add(info, "size_t", [](hipFileSizeTConfigParameter_t param, std::string* out) {
      size_t value = 0;
      const hipFileError_t e = hipFileGetParameterSizeT(param, &value);
      *out = std::to_string(value);
      return e;
    });
  }
  for (const auto& info : kBoolParams) {
    add(info, "bool", [](hipFileBoolConfigParameter_t param, std::string* out) {
      bool value = false;
      const hipFileError_t e = hipFileGetParameterBool(param, &value);
      *out = value ? "true" : "false";
      return e;
    });
  }
  for (const auto& info : kStringParams) {
    add(info, "string", [](hipFileStringConfigParameter_t param, std::string* out) {
      char value[4096] = {0};  // the longest a string parameter is: 4095 bytes and a NUL
      const hipFileError_t e = hipFileGetParameterString(param, value, sizeof value);
      *out = value;
      return e;
    });
  }
  return c;
}

void ReadPathSettings(ReadPathInputs* in) {
  if (const char* v = std::getenv("HIPFILE_PAGE_CACHE")) {
    const std::string s = Lower(v);
    in->page_cache = s == "on"    ? PageCacheSetting::kOn
                     : s == "off" ? PageCacheSetting::kOff
                                  : PageCacheSetting::kAuto;
  }
  if (const char* v = std::getenv("HIPFILE_PAGE_CACHE_PIN_AFTER")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (std::isdigit(static_cast<unsigned char>(*v)) && *end == '\0' && n >= 1 && n <= 1000) {
      in->pin_after = static_cast<unsigned>(n);
    }
  }
  in->io_uring = EnvBool("HIPFILE_IO_URING", true);
}

bool BoolParameter(const Config& c, const std::string& name, bool fallback) {
  for (const Parameter& p : c.parameters) {
    if (p.name == name && p.error.empty()) return p.value == "true";
  }
  return fallback;
}

}  // namespace hipfile_check
