// SPDX-License-Identifier: MIT
// The parameter API: hipFileGet/SetParameterSizeT/Bool/String. The enum arguments are read as
// integers, so values outside the enums reach the range checks instead of undefined behaviour.
#include <hipfile.h>

#include <cstring>
#include <string>

#include "api/status_map.h"
#include "core/driver.h"
#include "util/log.h"

using hipfile::Result;
using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::Driver;

namespace {

// By reference: copying the argument as an Enum would load it as one.
template <class Enum>
int AsInt(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "enums are int-sized");
  int raw;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t* value) {
  return hipfile::api::GuardError("hipFileGetParameterSizeT", [&] {
    if (value == nullptr) return OpError(hipFileInvalidValue);
    const Result<size_t> result = Driver::Global().GetParameterSizeT(AsInt(param));
    if (!result.ok()) return ToError(result.status());
    *value = *result;
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param,
                                                   bool* value) {
  return hipfile::api::GuardError("hipFileGetParameterBool", [&] {
    if (value == nullptr) return OpError(hipFileInvalidValue);
    const Result<bool> result = Driver::Global().GetParameterBool(AsInt(param));
    if (!result.ok()) return ToError(result.status());
    *value = *result;
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char* desc_str, int len) {
  return hipfile::api::GuardError("hipFileGetParameterString", [&] {
    if (desc_str == nullptr || len <= 0) return OpError(hipFileInvalidValue);
    const Result<std::string> result = Driver::Global().GetParameterString(AsInt(param));
    if (!result.ok()) return ToError(result.status());
    // The value and its terminator must fit.
    if (result->size() >= static_cast<size_t>(len)) return OpError(hipFileInvalidValue);
    std::memcpy(desc_str, result->c_str(), result->size() + 1);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t value) {
  return hipfile::api::GuardError("hipFileSetParameterSizeT", [&] {
    return ToError(Driver::Global().SetParameterSizeT(AsInt(param), value));
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value) {
  return hipfile::api::GuardError("hipFileSetParameterBool", [&] {
    return ToError(Driver::Global().SetParameterBool(AsInt(param), value));
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char* desc_str) {
  return hipfile::api::GuardError("hipFileSetParameterString", [&] {
    if (desc_str == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileSetParameterString: desc_str is NULL");
      return OpError(hipFileInvalidValue);
    }
    return ToError(Driver::Global().SetParameterString(AsInt(param), desc_str));
  });
}

}  // extern "C"
