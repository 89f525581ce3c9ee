// SPDX-License-Identifier: MIT
// Batch I/O: hipFileBatchIO*. Semantics and design: docs/batch.md.
#include <hipfile.h>

#include "api/status_map.h"
#include "core/batch/batch_manager.h"
#include "util/log.h"

using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::BatchManager;

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* batch_idp, unsigned max_nr) {
  return hipfile::api::GuardError("hipFileBatchIOSetUp", [&] {
    if (batch_idp == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileBatchIOSetUp: batch_idp is NULL");
      return OpError(hipFileInvalidValue);
    }
    const hipfile::Result<hipFileBatchHandle_t> batch = BatchManager::Global().SetUp(max_nr);
    if (!batch.ok()) return ToError(batch.status());
    *batch_idp = *batch;
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t* iocbp, unsigned /*flags*/) {
  return hipfile::api::GuardError("hipFileBatchIOSubmit", [&] {
    return ToError(BatchManager::Global().Submit(batch_idp, nr, iocbp));
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned* nr, hipFileIOEvents_t* iocbp,
                                                   struct timespec* timeout) {
  return hipfile::api::GuardError("hipFileBatchIOGetStatus", [&] {
    return ToError(BatchManager::Global().GetStatus(batch_idp, min_nr, nr, iocbp, timeout));
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp) {
  return hipfile::api::GuardError(
      "hipFileBatchIOCancel", [&] { return ToError(BatchManager::Global().Cancel(batch_idp)); });
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp) {
  hipfile::api::GuardVoid("hipFileBatchIODestroy",
                          [&] { BatchManager::Global().Destroy(batch_idp); });
}

}  // extern "C"
