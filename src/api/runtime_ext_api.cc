// SPDX-License-Identifier: MIT
// hipfile_ext.h: which GPU runtime the process uses, and why.
#include <hipfile_ext.h>

#include "core/process_runtime.h"
#include "util/exception_status.h"

extern "C" {

// Choosing the runtime is the first thing a process does with the library; if that runs out of
// memory, the call says so instead of throwing, and the next call chooses again.
HIPFILE_API const char* hipFileExtRuntimeName(void) {
  try {
    return hipfile::ProcessRuntime().Name();
  } catch (...) {
    (void)hipfile::CurrentExceptionStatus("hipFileExtRuntimeName");
    return "unavailable";
  }
}

HIPFILE_API const char* hipFileExtRuntimeReason(void) {
  try {
    return hipfile::ProcessRuntimeReason().c_str();
  } catch (...) {
    (void)hipfile::CurrentExceptionStatus("hipFileExtRuntimeReason");
    return "the runtime could not be chosen: out of memory";
  }
}

}  // extern "C"
