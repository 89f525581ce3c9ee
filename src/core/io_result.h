// SPDX-License-Identifier: MIT
// How a finished transfer's result is encoded where hipFile gives it as one number: a
// stream-ordered operation's *bytes_p and a batch event's ret (include/hipfile.h, "Results of
// stream-ordered and batch I/O"). The synchronous calls encode theirs in api/status_map.h
// (-1 and errno for system errors), as hipFileRead documents.
#pragma once

#include <hipfile.h>
#include <sys/types.h>

#include <cstddef>

#include "util/status.h"

namespace hipfile::core {

// Bytes moved, or a negative code: -errno for a system error (errno values lie below
// HIPFILE_BASE_ERR, so the two never meet), -hipFileOpError_t for a library error, and
// -hipFileHipDriverError for a GPU runtime error.
inline ssize_t EncodeResult(const Result<size_t>& moved) {
  if (moved.ok()) return static_cast<ssize_t>(*moved);
  const Status status = moved.status();
  if (status.kind() == Status::Kind::kErrno || status.kind() == Status::Kind::kOp) {
    return -static_cast<ssize_t>(status.code());
  }
  return -static_cast<ssize_t>(hipFileHipDriverError);
}

}  // namespace hipfile::core
