// SPDX-License-Identifier: MIT
// One stream-ordered read or write, as submitted by hipFileReadAsync / hipFileWriteAsync: the
// caller's variables, and the work that moves its bytes once the stream gets there.
#pragma once

#include <errno.h>
#include <hipfile.h>
#include <sys/types.h>

#include <cstddef>
#include <limits>
#include <memory>

#include "core/async/async_stage_stats.h"
#include "engine/stream_windows.h"
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

// What an operation does with its bound parameters: StreamTransfer (core/stream_transfer.h) over
// the I/O service in the library, test doubles in the executor's tests. The executor calls it
// on its workers, one call at a time per operation, either way (async_executor.h):
// - Run moves the bytes, copies included, and returns what *bytes_p receives;
// - or, where Staged() (device memory on a GPU), the executor makes the GPU copies on the
//   operation's own stream through pinned staging of its own, and calls Begin once, Move per
//   chunk and Finish once.
// Neither way throws out of the executor: what a call throws fails the operation.
class AsyncWork {
 public:
  virtual ~AsyncWork() = default;
  virtual bool Staged() const { return false; }
  virtual bool Write() const = 0;
  // Validates the bound parameters against the buffer and file and moves the bytes. Returns what
  // *bytes_p receives: bytes moved, or a negative code (core/io_result.h). It should drop
  // references the caller may want back as soon as the stream moves on (a registered buffer)
  // before returning; whatever it still holds is destroyed after the stream was released, off
  // the workers.
  virtual ssize_t Run(const AsyncParams& params) = 0;
  // Staged: where the bytes are, or the error that ends the operation.
  virtual Result<StagedPlan> Begin(const AsyncParams& params) {
    (void)params;
    return Status::Op(hipFileInternalError);
  }
  // Staged reads, at submission: Begin with the values seen then, which the stream may still
  // change, so a refusal is not recorded (the operation is not refused: the stream binds its
  // values when it gets there). Undone by Unbegin. Begin by default.
  virtual Result<StagedPlan> Look(const AsyncParams& params) { return Begin(params); }
  // Staged reads: `bytes` the stream copies on from device memory it filled from pinned page-cache
  // windows before it reached the read (AsyncExecutor's reads copied ahead): counted as Resident
  // counts its pieces. Nothing by default.
  virtual void CopiedAhead(size_t bytes) { (void)bytes; }
  // Staged: moves `bytes` between pinned `staging` and the file at `offset` (a read fills the
  // staging, a write empties it): the bytes that moved (short at end of file or when an error
  // stopped them), or the error when none did. Makes no GPU call, so it never waits for a stream.
  virtual Result<size_t> Move(void* staging, size_t bytes, off_t offset) {
    (void)staging;
    (void)bytes;
    (void)offset;
    return Status::Op(hipFileInternalError);
  }
  // Staged reads: the piece at file `offset` (at most `max` bytes) that the stream may copy
  // straight from a pinned page-cache window, and how far to stage otherwise
  // (engine::StreamWindows::At); none by default. Offsets asked for never go back. Makes no GPU
  // call.
  virtual engine::ResidentPiece Resident(off_t offset, size_t max) {
    (void)offset;
    (void)max;
    return {};
  }
  // Staged reads, after Look: whether pinned page-cache windows hold every byte of the plan
  // Look returned, now - a look that counts no read of them, pins nothing and counts no bytes
  // (AsyncExecutor::PlanAhead without a budget). May throw (out of memory). False by default.
  virtual bool AllPinned() { return false; }
  // Staged reads, after Begin: up to `bytes` at file `offset` into ordinary host memory, from the
  // page cache alone (never waiting for the disk): the bytes that moved (short at end of file
  // or where the rest is not cached), EAGAIN where they cannot be had now, or the error. A read
  // at submission (AsyncExecutor::ReadAtSubmission). Makes no GPU call. None by default.
  virtual Result<size_t> ReadCached(void* host, size_t bytes, off_t offset) {
    (void)host;
    (void)bytes;
    (void)offset;
    return Status::Errno(EAGAIN);
  }
  // Staged reads, at submission: of the bytes `params` names, how many a read now would take
  // from the disk (engine::SyncEngine::DiskBytes): a hint for the chunk size, 0 where nothing
  // is known. Looks up residency (a few system calls); no GPU call.
  virtual size_t DiskBytes(const AsyncParams& params) {
    (void)params;
    return 0;
  }
  // Staged: undoes Begin (and what Resident counted), so that Begin may be called again: the
  // operation goes the stream's way after all.
  virtual void Unbegin() {}
  // Staged: once, with the outcome (moved bytes or the error), before the stream is released:
  // returns what *bytes_p receives.
  virtual ssize_t Finish(const Result<size_t>& moved) {
    (void)moved;
    return -static_cast<ssize_t>(hipFileInternalError);
  }
};

// Every HIPFILE_STREAM_FIXED_* flag: all of an operation's values are taken at submission.
inline constexpr unsigned kAllFixed = HIPFILE_STREAM_FIXED_BUF_OFFSET |
                                      HIPFILE_STREAM_FIXED_FILE_OFFSET |
                                      HIPFILE_STREAM_FIXED_FILE_SIZE;

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
  // The size cap (IoService::max_rw_count, set at submission): a size read at execution is
  // clamped to it, as hipFileRead clamps. No cap unless set.
  size_t max_rw_count = std::numeric_limits<size_t>::max();
  std::unique_ptr<AsyncWork> work;
  // Its round trip's stamps (core/async/async_stage_stats.h), when timing is on; else null.
  std::shared_ptr<AsyncStamps> stamps;
};

// Binds the parameters the operation runs with into *p: fixed ones from submission, the rest read
// through the caller's pointers now, the size clamped to op.max_rw_count. 0, or the negative code
// *bytes_p receives: a size larger than at submission is refused (-hipFileInvalidValue), as the
// buffer was checked for the submitted size only, and so are negative offsets.
ssize_t BindParams(const AsyncOp& op, AsyncParams* p);

// BindParams, then op.work->Run, with what it throws turned into CaughtResult.
ssize_t RunBoundNoThrow(const AsyncOp& op) noexcept;
// Only inside a catch block: what *bytes_p receives when an operation's work threw (the
// exception is logged): -ENOMEM for exhausted memory, -errno for a refused thread,
// -hipFileInternalError for anything else (util/exception_status.h).
ssize_t CaughtResult() noexcept;

}  // namespace hipfile::core
