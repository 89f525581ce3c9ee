// One stream-ordered read or write, as submitted by hipFileReadAsync / hipFileWriteAsync.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>

namespace hipfile::core {

// The values an operation runs with, once bound.
struct AsyncParams {
  size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
};

struct AsyncOp {
  // The caller's variables. Read when the operation runs, unless `fixed_flags` (the stream's
  // HIPFILE_STREAM_FIXED_* flags) say the value was fixed at submission, in which case
  // `submitted` holds it. *bytes_p receives the result.
  size_t* size_p = nullptr;
  off_t* file_offset_p = nullptr;
  off_t* buffer_offset_p = nullptr;
  ssize_t* bytes_p = nullptr;
  unsigned fixed_flags = 0;
  AsyncParams submitted;  // values seen at submission (size already clamped)

  // Validates the bound parameters against the buffer and file and moves the bytes. Returns what
  // *bytes_p receives: bytes moved, or a negative code. Runs once; it should drop references the
  // caller may want back as soon as the stream moves on (a registered buffer) before returning.
  // Whatever it still holds is destroyed after the stream was released, off the workers.
  std::function<ssize_t(const AsyncParams&)> run;
};

// The parameters the operation runs with: fixed ones from submission, the rest read through the
// caller's pointers now. A size larger than at submission is refused (-hipFileInvalidValue), as
// the buffer was checked for the submitted size only.
ssize_t RunBound(const AsyncOp& op);

}  // namespace hipfile::core
