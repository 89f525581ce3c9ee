// SPDX-License-Identifier: MIT
#include "api/status_map.h"

#include <errno.h>

#include "util/log.h"

namespace hipfile::api {

hipFileError_t ToError(Status status) {
  switch (status.kind()) {
    case Status::Kind::kOk:
      return Success();
    case Status::Kind::kOp:
      return OpError(static_cast<hipFileOpError_t>(status.code()));
    case Status::Kind::kGpu:
      return hipFileError_t{hipFileHipDriverError, static_cast<hipError_t>(status.code())};
    case Status::Kind::kErrno:
      break;
  }
  if (status.code() == ENOMEM) return hipFileError_t{hipFileHipDriverError, hipErrorOutOfMemory};
  // No std::string here: this also reports exhaustion.
  HF_LOG(kInfo, "system call failed: errno %d; reported as hipFileInternalError", status.code());
  errno = status.code();
  return OpError(hipFileInternalError);
}

ssize_t ToSsize(const Result<size_t>& result) {
  if (result.ok()) return static_cast<ssize_t>(*result);
  const Status status = result.status();
  switch (status.kind()) {
    case Status::Kind::kErrno:
      errno = status.code();
      return -1;
    case Status::Kind::kOp:
      return -static_cast<ssize_t>(status.code());
    case Status::Kind::kGpu:
      // -hipErrorInvalidValue would be -1, which callers read as "see errno".
      if (status.code() == hipErrorInvalidValue)
        return -static_cast<ssize_t>(hipFileHipDriverError);
      return -static_cast<ssize_t>(status.code());
    case Status::Kind::kOk:
      break;
  }
  return 0;
}

}  // namespace hipfile::api
