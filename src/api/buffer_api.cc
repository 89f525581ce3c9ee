// SPDX-License-Identifier: MIT
// Buffers: hipFileBufRegister / hipFileBufDeregister.
#include <hipfile.h>

#include "api/status_map.h"
#include "core/driver.h"
#include "util/log.h"

using hipfile::api::OpError;
using hipfile::api::ToError;
using hipfile::core::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileBufRegister(const void* buffer_base, size_t length, int flags) {
  // NULL is the driver's to refuse: it opens first (spec §1.3, §1.7).
  return hipfile::api::GuardError("hipFileBufRegister", [&] {
    return ToError(Driver::Global().RegisterBuffer(buffer_base, length, flags));
  });
}

HIPFILE_API hipFileError_t hipFileBufDeregister(const void* buffer_base) {
  return hipfile::api::GuardError("hipFileBufDeregister", [&] {
    if (buffer_base == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileBufDeregister: buffer_base is NULL");
      return OpError(hipFileInvalidValue);
    }
    return ToError(Driver::Global().DeregisterBuffer(buffer_base));
  });
}

}  // extern "C"
