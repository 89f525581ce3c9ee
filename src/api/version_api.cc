// SPDX-License-Identifier: MIT
// hipFileGetVersion.
#include <hipfile.h>

extern "C" {

HIPFILE_API hipFileError_t hipFileGetVersion(unsigned* major, unsigned* minor, unsigned* patch) {
  if (major != nullptr) *major = HIPFILE_VERSION_MAJOR;
  if (minor != nullptr) *minor = HIPFILE_VERSION_MINOR;
  if (patch != nullptr) *patch = HIPFILE_VERSION_PATCH;
  return hipFileError_t{hipFileSuccess, hipSuccess};
}

}  // extern "C"
