// SPDX-License-Identifier: MIT
#include "core/async/async_op.h"

#include <hipfile.h>

#include <algorithm>

#include "core/io_result.h"
#include "util/exception_status.h"
#include "util/log.h"

namespace hipfile::core {

ssize_t BindParams(const AsyncOp& op, AsyncParams* p) {
  p->size = (op.fixed_flags & HIPFILE_STREAM_FIXED_FILE_SIZE) ? op.submitted.size : *op.size_p;
  p->file_offset = (op.fixed_flags & HIPFILE_STREAM_FIXED_FILE_OFFSET) ? op.submitted.file_offset
                                                                       : *op.file_offset_p;
  p->buffer_offset = (op.fixed_flags & HIPFILE_STREAM_FIXED_BUF_OFFSET) ? op.submitted.buffer_offset
                                                                        : *op.buffer_offset_p;
  p->size = std::min(p->size, op.max_rw_count);
  if (p->size > op.submitted.size) {
    HF_LOG_LIMITED(kWarn,
                   "%s: size %zu at execution larger than the %zu submitted (the buffer was "
                   "checked for that)",
                   op.entry, p->size, op.submitted.size);
    return -static_cast<ssize_t>(hipFileInvalidValue);
  }
  if (p->file_offset < 0 || p->buffer_offset < 0) {
    HF_LOG_LIMITED(kWarn, "%s: at execution, %s %lld is negative", op.entry,
                   p->file_offset < 0 ? "file_offset" : "buffer_offset",
                   static_cast<long long>(p->file_offset < 0 ? p->file_offset : p->buffer_offset));
    return -static_cast<ssize_t>(hipFileInvalidValue);
  }
  return 0;
}

ssize_t CaughtResult() noexcept {
  return EncodeResult(CurrentExceptionStatus("stream-ordered operation"));
}

ssize_t RunBoundNoThrow(const AsyncOp& op) noexcept {
  try {
    AsyncParams p;
    if (const ssize_t refused = BindParams(op, &p); refused != 0) return refused;
    return op.work->Run(p);
  } catch (...) {
    return CaughtResult();
  }
}

}  // namespace hipfile::core
