// SPDX-License-Identifier: MIT
// hipFileGetOpErrorString.
#include <hipfile.h>
#include <hipfile_ext.h>

#include <cstring>

#include "util/errors.h"

extern "C" {

HIPFILE_API const char* hipFileGetOpErrorString(hipFileOpError_t status) {
  // Read as an integer: C callers pass any int (HIPFILE_ERRSTR passes abs() of a result), and a
  // value outside the enumerators' range must not be loaded as the enum in C++.
  int raw;
  static_assert(sizeof raw == sizeof status, "enum is int-sized");
  std::memcpy(&raw, &status, sizeof raw);
  return hipfile::OpErrorString(raw);
}

HIPFILE_API const char* hipFileExtOpErrorName(int err) { return hipfile::OpErrorName(err); }

}  // extern "C"
