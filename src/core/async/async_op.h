// SPDX-License-Identifier: MIT
// One stream-ordered read or write, as submitted by hipFileReadAsync / hipFileWriteAsync.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>

#include "util/status.h"

namespace hipfile::core {

// The values an operation runs with, once bound.
struct AsyncParams {
  size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
};

// Where a staged operation's bytes are, once its parameters are bound and checked.
struct StagedPlan {
  void* device = nullptr;  // device memory of the transfer's first byte (buffer + offset)
  size_t size = 0;
  off_t file_offset = 0;
};

// A staged operation: its GPU copies run on its own stream, chunk by chunk through pinned
// staging the executor owns, and the workers only move bytes between the file and the staging
// (docs/async.md, "Copies on the operation's stream"). The functions run on workers, one at a
// time.
struct AsyncStaged {
  bool write = false;
  // With the bound parameters: where the bytes are, or the error that ends the operation.
  std::function<Result<StagedPlan>(const AsyncParams&)> begin;
  // Moves `bytes` between pinned `staging` and the file at `offset`: a read fills the staging, a
  // write empties it. The bytes that moved (short at end of file or when an error stopped them),
  // or the error when none did. Makes no call that waits for a stream.
  std::function<Result<size_t>(void* staging, size_t bytes, off_t offset)> move;
  // Once, with the operation's outcome (moved bytes or the error), before its stream is released:
  // returns what *bytes_p receives.
  std::function<ssize_t(const Result<size_t>&)> finish;
};

struct AsyncOp {
  // The caller's variables. Read when the operation runs, unless `fixed_flags` (the stream's
  // HIPFILE_STREAM_FIXED_* flags) say the value was fixed at submission, in which case
  // `submitted` holds it. *bytes_p receives the result.
  size_t* size_p = nullptr;
  off_t* file_offset_p = nullptr;
  off_t* buffer_offset_p = nullptr;
  ssize_t* bytes_p = nullptr;
  const char* entry = "hipFileReadAsync/WriteAsync";  // the C entry point, for refusal lines
  unsigned fixed_flags = 0;
  AsyncParams submitted;  // values seen at submission (size already clamped)

  // Validates the bound parameters against the buffer and file and moves the bytes. Returns what
  // *bytes_p receives: bytes moved, or a negative code. Runs once; it should drop references the
  // caller may want back as soon as the stream moves on (a registered buffer) before returning.
  // Whatever it still holds is destroyed after the stream was released, off the workers.
  std::function<ssize_t(const AsyncParams&)> run;
  // Set where the operation's copies can run on its stream (device memory on a GPU); `run` is
  // then the way taken when the executor cannot stage it (see async_executor.h).
  std::unique_ptr<AsyncStaged> staged;
};

// Binds the parameters the operation runs with into *p: fixed ones from submission, the rest read
// through the caller's pointers now. 0, or the negative code *bytes_p receives: a size larger
// than at submission is refused (-hipFileInvalidValue), as the buffer was checked for the
// submitted size only, and so are negative offsets.
ssize_t BindParams(const AsyncOp& op, AsyncParams* p);

// The parameters the operation runs with: fixed ones from submission, the rest read through the
// caller's pointers now. A size larger than at submission is refused (-hipFileInvalidValue), as
// the buffer was checked for the submitted size only.
ssize_t RunBound(const AsyncOp& op);
// Only inside a catch block: what *bytes_p receives when an operation's work threw (the
// exception is logged): -ENOMEM for exhausted memory, -errno for a refused thread,
// -hipFileInternalError for anything else (util/exception_status.h).
ssize_t CaughtResult() noexcept;
// RunBound, with what it throws turned into CaughtResult.
ssize_t RunBoundNoThrow(const AsyncOp& op) noexcept;

}  // namespace hipfile::core
