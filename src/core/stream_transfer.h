// SPDX-License-Identifier: MIT
// A stream-ordered read or write (hipFileReadAsync / hipFileWriteAsync) from its lookups to the
// engine: the checks made at submission, the operation handed to the AsyncExecutor, and its work
// (StreamTransfer), which runs the transfer through the I/O service when the stream gets there.
// Driver::SubmitAsync makes the lookups (core/driver.h) and calls the two functions below.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>

#include "core/async/async_executor.h"
#include "core/async/async_op.h"
#include "core/io_service.h"
#include "engine/stream_windows.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::core {

// The operation's work: a prepared transfer and the service that runs it.
class StreamTransfer final : public AsyncWork {
 public:
  // `staged`: device memory on a GPU, whose copies the executor makes on the operation's stream.
  // A write counts as in flight with the service from here until it is done with the file
  // (IoService::StreamWriteBegins): reads at submission wait for none of them, they go another
  // way meanwhile.
  StreamTransfer(IoService& service, PreparedIo io, bool staged);
  ~StreamTransfer() override;
  StreamTransfer(const StreamTransfer&) = delete;
  StreamTransfer& operator=(const StreamTransfer&) = delete;

  bool Staged() const override { return staged_; }
  bool Write() const override { return io_.direction == IoDirection::kWrite; }
  // IoService::Execute, encoded (core/io_result.h).
  ssize_t Run(const AsyncParams& params) override;
  // IoService::Check; the statistics of a refusal are recorded here.
  Result<StagedPlan> Begin(const AsyncParams& params) override;
  Result<StagedPlan> Look(const AsyncParams& params) override;
  // The engine moves each chunk between the file and the pinned staging as it would for pinned
  // host memory: its policy (O_DIRECT for cold data, direct writes), its threads, its retry rules,
  // and no GPU call.
  Result<size_t> Move(void* staging, size_t bytes, off_t offset) override;
  // A read's resident pieces, as the engine's synchronous read would copy them from pinned
  // page-cache windows (engine::SyncEngine::PlanStreamWindows, planned at the first call after
  // Begin: a read taken at submission never asks); their bytes count as page_cache.
  engine::ResidentPiece Resident(off_t offset, size_t max) override;
  bool AllPinned() override;
  void CopiedAhead(size_t bytes) override { paths_.Add(engine::IoPath::kPageCache, bytes); }
  // Reads: the engine's residency lookup for the submitted range (engine::SyncEngine::DiskBytes).
  size_t DiskBytes(const AsyncParams& params) override;
  // From the page cache alone (engine::SyncEngine::ReadCached), after Begin; EAGAIN while any
  // stream-ordered write is in flight (it may change the bytes before this read's stream gets
  // there). Its bytes count as buffered.
  Result<size_t> ReadCached(void* host, size_t bytes, off_t offset) override;
  void Unbegin() override;
  // Records the statistics; encodes the result.
  ssize_t Finish(const Result<size_t>& moved) override;

 private:
  // The file and buffer are free for deregistration once the stream goes on; the engine
  // reference stays until the executor destroys the operation (async_executor.h).
  void LetGo();
  void EndWrite();

  IoService& service_;
  PreparedIo io_;
  const bool staged_;
  engine::IoRequest request_;                       // Begin's
  engine::PathBytes paths_;                         // how Move's bytes went, and Resident's
  std::unique_ptr<engine::StreamWindows> windows_;  // a read's resident chunks (Resident's)
  bool windows_planned_ = false;                    // since Begin
  bool begun_ = false;
  bool write_counted_ = false;  // counted in the service's stream writes (EndWrite)
  std::chrono::steady_clock::time_point start_;
};

// What the caller passed, past the handle and buffer, and the values its pointers held at
// submission (the size clamped to the service's cap).
struct StreamSubmission {
  size_t* size_p = nullptr;
  off_t* file_offset_p = nullptr;
  off_t* buffer_offset_p = nullptr;
  ssize_t* bytes_p = nullptr;
  runtime::Stream stream = nullptr;
  AsyncParams submitted;
  // HIPFILE_STREAM_FIXED_* of this operation alone (Driver::SubmitAsync): those values are
  // `submitted`'s, and their pointers are not kept.
  unsigned fixed_flags = 0;
};

// Refuses (logged) a stream being captured into a graph, which cannot record stream-ordered file
// I/O, with hipErrorStreamCaptureUnsupported, or with the runtime's error when it cannot say;
// asked before any other question of the stream (docs/async.md, "Streams being captured").
// `entry` names the C entry point.
Status RefuseCapturingStream(runtime::GpuRuntime& gpu, runtime::Stream stream, const char* entry);

// The submission's checks (spec §1.10): offsets and range as hipFileRead checks them, the stream
// not being captured (RefuseCapturingStream), and the stream on the buffer's device.
// hipFileInvalidValue (logged) or the runtime's error when it cannot say the stream's device.
Status CheckStreamSubmission(const IoService& service, runtime::GpuRuntime& gpu,
                             const PreparedIo& io, const StreamSubmission& s);
// Queues the operation on s.stream (CheckStreamSubmission passed): *s.bytes_p is 0 until it
// completes. `stage`: whether device memory takes the staged way (HIPFILE_ASYNC_STAGED on a
// runtime with device memory of its own).
Status SubmitStreamOrdered(IoService& service, AsyncExecutor& executor, bool stage, PreparedIo io,
                           const StreamSubmission& s);

}  // namespace hipfile::core
