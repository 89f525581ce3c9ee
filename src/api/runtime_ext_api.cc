// SPDX-License-Identifier: MIT
// hipfile_ext.h: which GPU runtime the process uses, and why.
#include <hipfile_ext.h>

#include "core/process_runtime.h"

extern "C" {

HIPFILE_API const char* hipFileExtRuntimeName(void) { return hipfile::ProcessRuntime().Name(); }

HIPFILE_API const char* hipFileExtRuntimeReason(void) {
  return hipfile::ProcessRuntimeReason().c_str();
}

}  // extern "C"
