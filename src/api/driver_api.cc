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

HIPFILE_API hipFileError_t hipFileDriverOpen(void) { return ToError(Driver::Global().Open()); }

HIPFILE_API hipFileError_t hipFileDriverClose(void) { return ToError(Driver::Global().Close()); }

HIPFILE_API int64_t hipFileUseCount(void) { return Driver::Global().UseCount(); }

HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t* props) {
  if (props == nullptr) return OpError(hipFileInvalidValue);
  return ToError(Driver::Global().GetProperties(props));
}

HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size) {
  return ToError(Driver::Global().SetPollMode(poll, poll_threshold_size));
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size) {
  return ToError(Driver::Global().SetMaxDirectIoSize(max_direct_io_size));
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size) {
  return ToError(Driver::Global().SetMaxCacheSize(max_cache_size));
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size) {
  return ToError(Driver::Global().SetMaxPinnedMemSize(max_pinned_size));
}

}  // extern "C"
