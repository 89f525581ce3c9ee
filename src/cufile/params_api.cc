// SPDX-License-Identifier: MIT
// cuFile's parameter calls over hipFile's: cuFileGet/SetParameterSizeT, Bool and String. The
// three enums list the same parameters in the same order (tests/unit/cufile checks each value).
// cuFileGetParameterMinMaxValue, which hipFile's API lacks, reports the core's own range.
#include <cufile/cufile.h>
#include <hipfile.h>

#include "core/params.h"
#include "cufile/error_map.h"

using hipfile::cufile::ToCuFile;

namespace {

static_assert(static_cast<int>(CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS) ==
              hipFileParamPropertiesBatchIOTimeoutMs);
static_assert(static_cast<int>(CUFILE_PARAM_STREAM_MEMOPS_BYPASS) ==
              hipFileParamStreamMemopsBypass);
static_assert(static_cast<int>(CUFILE_PARAM_LOG_DIR) == hipFileParamLogDir);

hipFileSizeTConfigParameter_t Hip(CUFileSizeTConfigParameter_t p) {
  return static_cast<hipFileSizeTConfigParameter_t>(p);
}
hipFileBoolConfigParameter_t Hip(CUFileBoolConfigParameter_t p) {
  return static_cast<hipFileBoolConfigParameter_t>(p);
}
hipFileStringConfigParameter_t Hip(CUFileStringConfigParameter_t p) {
  return static_cast<hipFileStringConfigParameter_t>(p);
}

}  // namespace

extern "C" {

CUFILE_API CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param,
                                                 size_t* value) {
  return ToCuFile(hipFileGetParameterSizeT(Hip(param), value));
}

CUFILE_API CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool* value) {
  return ToCuFile(hipFileGetParameterBool(Hip(param), value));
}

CUFILE_API CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param,
                                                  char* desc_str, int len) {
  return ToCuFile(hipFileGetParameterString(Hip(param), desc_str, len));
}

// The range cuFileSetParameterSizeT accepts. Like the getters, it needs no open driver.
CUFILE_API CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param,
                                                       size_t* min_value, size_t* max_value) {
  const bool known = min_value != nullptr && max_value != nullptr &&
                     hipfile::core::SizeTParamRange(static_cast<int>(param), min_value, max_value);
  return ToCuFile(hipFileError_t{known ? hipFileSuccess : hipFileInvalidValue, hipSuccess});
}

CUFILE_API CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t value) {
  return ToCuFile(hipFileSetParameterSizeT(Hip(param), value));
}

CUFILE_API CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value) {
  return ToCuFile(hipFileSetParameterBool(Hip(param), value));
}

CUFILE_API CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param,
                                                  const char* desc_str) {
  return ToCuFile(hipFileSetParameterString(Hip(param), desc_str));
}

}  // extern "C"
