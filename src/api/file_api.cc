// SPDX-License-Identifier: MIT
// File handles: hipFileHandleRegister / hipFileHandleDeregister.
#include <hipfile.h>

#include <cstring>

#include "api/status_map.h"
#include "core/driver.h"
#include "util/log.h"

using hipfile::Result;
using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t* fh, hipFileDescr_t* descr) {
  return hipfile::api::GuardError("hipFileHandleRegister", [&] {
    if (fh == nullptr || descr == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: %s is NULL", fh == nullptr ? "fh" : "descr");
      return OpError(hipFileInvalidValue);
    }
    // Read as an integer: a value outside the enum is not undefined behaviour here.
    int type;
    static_assert(sizeof type == sizeof descr->type, "enum is int-sized");
    std::memcpy(&type, &descr->type, sizeof type);
    if (type != hipFileHandleTypeOpaqueFD) {
      HF_LOG_LIMITED(kWarn,
                     "hipFileHandleRegister: descr->type %d unsupported (only "
                     "hipFileHandleTypeOpaqueFD, %d)",
                     type, static_cast<int>(hipFileHandleTypeOpaqueFD));
      return OpError(hipFileIONotSupported);
    }
    const Result<void*> handle = Driver::Global().RegisterHandle(descr->handle.fd);
    if (!handle.ok()) return ToError(handle.status());
    *fh = *handle;
    return Success();
  });
}

HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh) {
  hipfile::api::GuardVoid("hipFileHandleDeregister", [&] {
    if (fh == nullptr) return;
    Driver::Global().DeregisterHandle(fh);
  });
}

}  // extern "C"
