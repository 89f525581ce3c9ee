// SPDX-License-Identifier: MIT
// Names and descriptions of the library's error codes: hipFile op errors and HIP runtime errors.
#pragma once

#include <hipfile.h>

namespace hipfile {

// Op errors are taken as int: callers may hold any value (a C caller's int, a negated result), and
// in C++ an enum value outside the enumerators' range is undefined behaviour.
// "hipFileInvalidValue"; "hipFileUnknownError" for values outside the enum.
const char* OpErrorName(int e);
// The text hipFileGetOpErrorString returns; "Unknown hipFile error" for values outside the enum.
const char* OpErrorString(int e);
// "hipErrorInvalidValue"; "hipErrorUnknown" for values HIP does not define.
const char* GpuErrorName(hipError_t e);
// A short English description, as hipGetErrorString gives.
const char* GpuErrorString(hipError_t e);
// The same for a value read as an int: what a C caller passes may lie outside the enumerators'
// range, and loading it as the enum in C++ would be undefined.
const char* GpuErrorNameOf(int e);
const char* GpuErrorStringOf(int e);

}  // namespace hipfile
