// hipFileGetOpErrorString.
#include <hipfile.h>

#include "util/errors.h"

extern "C" {

HIPFILE_API const char* hipFileGetOpErrorString(hipFileOpError_t status) {
  return hipfile::OpErrorString(status);
}

}  // extern "C"
