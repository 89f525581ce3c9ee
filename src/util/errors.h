// Names and descriptions of the library's error codes: hipFile op errors and HIP runtime errors.
#pragma once

#include <hipfile.h>

namespace hipfile {

// "hipFileInvalidValue"; "hipFileUnknownError" for values outside the enum.
const char* OpErrorName(hipFileOpError_t e);
// The text hipFileGetOpErrorString returns; "Unknown hipFile error" for values outside the enum.
const char* OpErrorString(hipFileOpError_t e);
// "hipErrorInvalidValue"; "hipErrorUnknown" for values HIP does not define.
const char* GpuErrorName(hipError_t e);
// A short English description, as hipGetErrorString gives.
const char* GpuErrorString(hipError_t e);

}  // namespace hipfile
