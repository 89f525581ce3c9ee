// SPDX-License-Identifier: MIT
// Driver lifecycle and properties: hipFileDriverOpen/Close, hipFileUseCount,
// hipFileDriverGetProperties, hipFileDriverSet*.
#include <hipfile.h>

#include "api/status_map.h"
#include "core/driver.h"

using hipfile::api::OpError;
using hipfile::api::ToError;
using hipfile::core::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverOpen(void) {
  return hipfile::api::GuardError("hipFileDriverOpen",
                                  [&] { return ToError(Driver::Global().Open()); });
}

HIPFILE_API hipFileError_t hipFileDriverClose(void) {
  return hipfile::api::GuardError("hipFileDriverClose",
                                  [&] { return ToError(Driver::Global().Close()); });
}

HIPFILE_API int64_t hipFileUseCount(void) {
  // Only the first call can throw (building the process's Driver); the driver is closed then.
  try {
    return Driver::Global().UseCount();
  } catch (...) {
    (void)hipfile::CurrentExceptionStatus("hipFileUseCount");
    return 0;
  }
}

HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t* props) {
  return hipfile::api::GuardError("hipFileDriverGetProperties", [&] {
    if (props == nullptr) return OpError(hipFileInvalidValue);
    return ToError(Driver::Global().GetProperties(props));
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size) {
  return hipfile::api::GuardError("hipFileDriverSetPollMode", [&] {
    return ToError(Driver::Global().SetPollMode(poll, poll_threshold_size));
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size) {
  return hipfile::api::GuardError("hipFileDriverSetMaxDirectIOSize", [&] {
    return ToError(Driver::Global().SetMaxDirectIoSize(max_direct_io_size));
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size) {
  return hipfile::api::GuardError("hipFileDriverSetMaxCacheSize", [&] {
    return ToError(Driver::Global().SetMaxCacheSize(max_cache_size));
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size) {
  return hipfile::api::GuardError("hipFileDriverSetMaxPinnedMemSize", [&] {
    return ToError(Driver::Global().SetMaxPinnedMemSize(max_pinned_size));
  });
}

}  // extern "C"
