// Batch I/O: hipFileBatchIO*.
//
// Not implemented yet: the batch queue over the engine is later work. Until then every call
// reports {hipFileInternalError, hipSuccess} (as AMD's stub did) and hipFileBatchIODestroy does
// nothing; each logs at debug level.
#include <hipfile.h>

#include "api/status_map.h"
#include "util/log.h"

using hipfile::api::OpError;

namespace {

hipFileError_t NotImplemented(const char* function) {
  HF_LOG(kDebug, "%s: batch I/O is not implemented yet", function);
  return OpError(hipFileInternalError);
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* /*batch_idp*/,
                                               unsigned /*max_nr*/) {
  return NotImplemented("hipFileBatchIOSetUp");
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t /*batch_idp*/,
                                                unsigned /*nr*/, hipFileIOParams_t* /*iocbp*/,
                                                unsigned /*flags*/) {
  return NotImplemented("hipFileBatchIOSubmit");
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t /*batch_idp*/,
                                                   unsigned /*min_nr*/, unsigned* /*nr*/,
                                                   hipFileIOEvents_t* /*iocbp*/,
                                                   struct timespec* /*timeout*/) {
  return NotImplemented("hipFileBatchIOGetStatus");
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t /*batch_idp*/) {
  return NotImplemented("hipFileBatchIOCancel");
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t /*batch_idp*/) {
  HF_LOG(kDebug, "hipFileBatchIODestroy: batch I/O is not implemented yet");
}

}  // extern "C"
