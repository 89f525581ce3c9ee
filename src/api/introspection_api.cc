// SPDX-License-Identifier: MIT
// hipfile_ext.h's introspection: how this library was built, where each setting's value came
// from, and the way a file's bytes would go - what tools (hipfile-check) would otherwise restate.
// None of them opens the driver.
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <cstring>

#include "api/status_map.h"
#include "core/config.h"
#include "core/driver.h"
#include "core/process_runtime.h"
#include "engine/io_rule.h"

using hipfile::Result;
using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::Driver;
using hipfile::core::ParamKind;
using hipfile::core::SettingSource;
namespace engine = hipfile::engine;

static_assert(hipFileExtSourceDefault == static_cast<int>(SettingSource::kDefault) &&
                  hipFileExtSourceEnvironment == static_cast<int>(SettingSource::kEnvironment) &&
                  hipFileExtSourceConfigFile == static_cast<int>(SettingSource::kConfigFile) &&
                  hipFileExtSourceApi == static_cast<int>(SettingSource::kApi),
              "hipFileExtSettingSource_t and core::SettingSource differ");
static_assert(hipFileExtIoReadWarm == static_cast<int>(engine::IoCase::kReadWarm) &&
                  hipFileExtIoReadWarmUnpinned ==
                      static_cast<int>(engine::IoCase::kReadWarmUnpinned) &&
                  hipFileExtIoReadCold == static_cast<int>(engine::IoCase::kReadCold) &&
                  hipFileExtIoReadUnaligned == static_cast<int>(engine::IoCase::kReadUnaligned) &&
                  hipFileExtIoReadSmall == static_cast<int>(engine::IoCase::kReadSmall) &&
                  hipFileExtIoBatchSmall == static_cast<int>(engine::IoCase::kBatchSmall) &&
                  hipFileExtIoWriteAligned == static_cast<int>(engine::IoCase::kWriteAligned) &&
                  hipFileExtIoWriteUnaligned == static_cast<int>(engine::IoCase::kWriteUnaligned) &&
                  HIPFILE_EXT_IO_CASE_COUNT == engine::kIoCaseCount &&
                  HIPFILE_EXT_IO_CASE_COUNT <= HIPFILE_EXT_MAX_IO_CASES,
              "hipFileExtIoCase_t and engine::IoCase differ");

namespace {

// The packages this build found (src/CMakeLists.txt defines these).
constexpr unsigned kBuildFeatures = 0
#if defined(HIPFILE_HAVE_IO_URING)
                                    | HIPFILE_EXT_FEATURE_IO_URING
#endif
#if defined(HIPFILE_HAVE_NVTX)
                                    | HIPFILE_EXT_FEATURE_NVTX
#endif
#if defined(HIPFILE_HAVE_NLOHMANN_JSON)
                                    | HIPFILE_EXT_FEATURE_CONFIG_FILE
#endif
    ;

hipFileError_t ParameterSource(const char* name, ParamKind kind, int param,
                               hipFileExtSettingSource_t* source) {
  return hipfile::api::GuardError(name, [&] {
    if (source == nullptr) return OpError(hipFileInvalidValue);
    const Result<SettingSource> found = Driver::Global().GetParameterSource(kind, param);
    if (!found.ok()) return ToError(found.status());
    *source = static_cast<hipFileExtSettingSource_t>(*found);
    return Success();
  });
}

// By reference: copying the argument as an Enum would load it as one (as params_api.cc).
template <class Enum>
int AsInt(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "enums are int-sized");
  int raw;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

}  // namespace

extern "C" {

HIPFILE_API unsigned hipFileExtBuildFeatures(void) { return kBuildFeatures; }

HIPFILE_API const char* hipFileExtBuildFeatureName(unsigned feature) {
  switch (feature) {
    case HIPFILE_EXT_FEATURE_IO_URING:
      return "io_uring";
    case HIPFILE_EXT_FEATURE_NVTX:
      return "nvtx";
    case HIPFILE_EXT_FEATURE_CONFIG_FILE:
      return "config_file";
    default:
      return "unknown";
  }
}

HIPFILE_API const char* hipFileExtSourceName(int source) {
  switch (source) {
    case hipFileExtSourceDefault:
      return "default";
    case hipFileExtSourceEnvironment:
      return "environment";
    case hipFileExtSourceConfigFile:
      return "file";
    case hipFileExtSourceApi:
      return "api";
    default:
      return "unknown";
  }
}

HIPFILE_API hipFileError_t hipFileExtGetParameterSizeTSource(hipFileSizeTConfigParameter_t param,
                                                             hipFileExtSettingSource_t* source) {
  return ParameterSource("hipFileExtGetParameterSizeTSource", ParamKind::kSizeT, AsInt(param),
                         source);
}

HIPFILE_API hipFileError_t hipFileExtGetParameterBoolSource(hipFileBoolConfigParameter_t param,
                                                            hipFileExtSettingSource_t* source) {
  return ParameterSource("hipFileExtGetParameterBoolSource", ParamKind::kBool, AsInt(param),
                         source);
}

HIPFILE_API hipFileError_t hipFileExtGetParameterStringSource(hipFileStringConfigParameter_t param,
                                                              hipFileExtSettingSource_t* source) {
  return ParameterSource("hipFileExtGetParameterStringSource", ParamKind::kString, AsInt(param),
                         source);
}

HIPFILE_API const char* hipFileExtVariableName(unsigned index) {
  return index < hipfile::core::kEnvVariableCount ? hipfile::core::kEnvVariables[index] : nullptr;
}

HIPFILE_API hipFileError_t hipFileExtGetVariableSource(const char* name,
                                                       hipFileExtSettingSource_t* source) {
  return hipfile::api::GuardError("hipFileExtGetVariableSource", [&] {
    if (name == nullptr || source == nullptr) return OpError(hipFileInvalidValue);
    const char* known = nullptr;
    for (size_t i = 0; i < hipfile::core::kEnvVariableCount; ++i) {
      if (std::strcmp(name, hipfile::core::kEnvVariables[i]) == 0)
        known = hipfile::core::kEnvVariables[i];
    }
    if (known == nullptr) return OpError(hipFileInvalidValue);
    SettingSource found = SettingSource::kDefault;
    if (std::strcmp(known, hipfile::core::kEnvRuntime) == 0) {
      // Read where the runtime is chosen, not by the Config.
      if (hipfile::ProcessRuntimeFromEnvironment()) found = SettingSource::kEnvironment;
    } else {
      found = hipfile::core::ProcessConfig().SourceOf(known);
    }
    *source = static_cast<hipFileExtSettingSource_t>(found);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtGetIoRule(int fd, hipFileExtIoRule_t* rule) {
  return hipfile::api::GuardError("hipFileExtGetIoRule", [&] {
    if (rule == nullptr) return OpError(hipFileInvalidValue);
    const Result<Driver::IoRuleAnswer> answer = Driver::Global().DescribeIoRule(fd);
    if (!answer.ok()) return ToError(answer.status());
    const engine::IoRuleInputs& in = answer->inputs;
    *rule = hipFileExtIoRule_t{};
    rule->o_direct = in.file.direct_fd >= 0;
    rule->dio_mem_align = in.file.dio_mem_align;
    rule->dio_offset_align = in.file.dio_offset_align;
    rule->staged = in.staged;
    rule->compat_allowed = in.allow_compat;
    rule->page_cache = in.page_cache;
    rule->pin_after = std::max(in.options.page_cache_pin_after_uses, 1u);
    rule->io_uring = in.options.io_uring && in.ring;
    rule->residency_min_bytes = in.options.residency_min_bytes;
    rule->direct_min_bytes = engine::PlanRequest{}.direct_min_bytes;  // the engine keeps it
    rule->grouped_max_bytes = answer->rule.grouped_max_bytes;
    for (size_t i = 0; i < engine::kIoCaseCount; ++i) {
      const engine::IoWay& way = answer->rule.ways[i];
      rule->ways[i].path = static_cast<int32_t>(way.path);
      rule->ways[i].fallback = static_cast<int32_t>(way.why);
      rule->ways[i].o_direct = way.o_direct;
      rule->ways[i].refused = way.refused;
    }
    return Success();
  });
}

HIPFILE_API const char* hipFileExtIoCaseName(int io_case) {
  if (io_case < 0 || io_case >= HIPFILE_EXT_IO_CASE_COUNT) return "unknown";
  return engine::IoCaseName(static_cast<engine::IoCase>(io_case));
}

}  // extern "C"
