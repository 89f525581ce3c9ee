// SPDX-License-Identifier: MIT
// cuFile's batch calls over hipFile's: cuFileBatchIOSetUp, Submit, GetStatus, Cancel, Destroy.
// Entries and events are copied member by member into hipFile's structs (the same members), on
// the stack: a batch holds at most core::kMaxBatchIoCount entries.
#include <cufile/cufile.h>
#include <hipfile.h>

#include "core/params.h"
#include "cufile/error_map.h"

using hipfile::core::kMaxBatchIoCount;
using hipfile::cufile::CuFileEventResult;
using hipfile::cufile::ToCuFile;

namespace {

static_assert(static_cast<int>(CUFILE_READ) == hipFileBatchRead);
static_assert(static_cast<int>(CUFILE_WRITE) == hipFileBatchWrite);
static_assert(static_cast<int>(CUFILE_BATCH) == hipFileBatch);
static_assert(static_cast<int>(CUFILE_WAITING) == hipFileWaiting &&
              static_cast<int>(CUFILE_PENDING) == hipFilePending &&
              static_cast<int>(CUFILE_INVALID) == hipFileInvalid &&
              static_cast<int>(CUFILE_CANCELED) == hipFileCanceled &&
              static_cast<int>(CUFILE_COMPLETE) == hipFileComplete &&
              static_cast<int>(CUFILE_TIMEOUT) == hipFileTimeout &&
              static_cast<int>(CUFILE_FAILED) == hipFileFailed);

CUfileError_t InvalidValue() { return ToCuFile({hipFileInvalidValue, hipSuccess}); }

}  // namespace

extern "C" {

CUFILE_API CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t* batch_idp, unsigned nr) {
  return ToCuFile(hipFileBatchIOSetUp(batch_idp, nr));
}

CUFILE_API CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t batch_idp, unsigned nr,
                                             CUfileIOParams_t* iocbp, unsigned int flags) {
  if (nr > kMaxBatchIoCount) return InvalidValue();
  if (iocbp == nullptr) return ToCuFile(hipFileBatchIOSubmit(batch_idp, nr, nullptr, flags));
  hipFileIOParams_t entries[kMaxBatchIoCount];
  for (unsigned i = 0; i < nr; ++i) {
    const CUfileIOParams_t& in = iocbp[i];
    hipFileIOParams_t& out = entries[i];
    out = hipFileIOParams_t{};
    out.mode = static_cast<hipFileBatchMode_t>(in.mode);
    out.u.batch.devPtr_base = in.u.batch.devPtr_base;
    out.u.batch.file_offset = in.u.batch.file_offset;
    out.u.batch.devPtr_offset = in.u.batch.devPtr_offset;
    out.u.batch.size = in.u.batch.size;
    out.fh = in.fh;
    out.opcode = static_cast<hipFileOpcode_t>(in.opcode);
    out.cookie = in.cookie;
  }
  return ToCuFile(hipFileBatchIOSubmit(batch_idp, nr, entries, flags));
}

CUFILE_API CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t batch_idp, unsigned min_nr,
                                                unsigned* nr, CUfileIOEvents_t* iocbp,
                                                struct timespec* timeout) {
  if (nr == nullptr || iocbp == nullptr) {
    return ToCuFile(hipFileBatchIOGetStatus(batch_idp, min_nr, nr, nullptr, timeout));
  }
  hipFileIOEvents_t events[kMaxBatchIoCount];
  // No batch holds more entries, so no more events can be asked for.
  unsigned count = *nr < kMaxBatchIoCount ? *nr : static_cast<unsigned>(kMaxBatchIoCount);
  const hipFileError_t status = hipFileBatchIOGetStatus(batch_idp, min_nr, &count, events, timeout);
  if (status.err == hipFileSuccess) {
    for (unsigned i = 0; i < count; ++i) {
      iocbp[i].cookie = events[i].cookie;
      iocbp[i].status = static_cast<CUfileStatus_t>(events[i].status);
      iocbp[i].ret = static_cast<size_t>(CuFileEventResult(static_cast<ssize_t>(events[i].ret)));
    }
    *nr = count;
  }
  return ToCuFile(status);
}

CUFILE_API CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t batch_idp) {
  return ToCuFile(hipFileBatchIOCancel(batch_idp));
}

CUFILE_API void cuFileBatchIODestroy(CUfileBatchHandle_t batch_idp) {
  hipFileBatchIODestroy(batch_idp);
}

}  // extern "C"
