// SPDX-License-Identifier: MIT
// IoService: the one home of a transfer once its handle and buffer were looked up. The sync,
// stream-ordered and batch paths all call it by name for the rest of hipFile's rules (spec §1.8:
// offsets, the buffer's range, the size cap, the compatibility switch), the engine's execution
// and the statistics:
//
//   hipFileRead         -> Driver::Read -> Driver::Prepare -> IoService::Execute -> SyncEngine
//   hipFileReadAsync    -> Driver::SubmitAsync -> Driver::Prepare -> SubmitStreamOrdered
//                          (core/stream_transfer.h) -> AsyncExecutor -> StreamTransfer
//                          -> IoService::Execute, or Begin/Move/Finish for staged copies
//   hipFileBatchIOSubmit -> BatchManager -> BatchContext -> BatchManager::RunEntries
//                          -> IoService::ExecuteMany -> SyncEngine::RunMany
//
// docs/architecture.md draws the whole picture. The Driver owns the service and keeps the
// lifecycle, the registries and the parameters. Thread-safe: it holds no state of its own past
// its construction (the statistics are thread-safe).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include "core/buffer_registry.h"
#include "core/file.h"
#include "core/stats.h"
#include "engine/sync_io.h"
#include "util/status.h"

namespace hipfile::core {

// One transfer after its handle and buffer were looked up (rules 1-2 of spec §1.8;
// Driver::Prepare). It holds references that keep the file, a registered buffer and the engine
// alive until it is dropped, so an operation in flight survives deregistration and driver close.
struct PreparedIo {
  IoDirection direction = IoDirection::kRead;
  const void* buffer_base = nullptr;
  std::shared_ptr<File> file;
  std::shared_ptr<Buffer> registered;  // null for unregistered memory
  Buffer buffer;                       // what the transfer may touch
  std::shared_ptr<engine::SyncEngine> engine;
  bool allow_compat = false;
  // The C entry point the transfer serves ("hipFileRead", ...), first in the lines that say why
  // a check refused it; null where the caller logs refusals itself (batch entries, by index).
  const char* entry = nullptr;
};

class IoService {
 public:
  // page_size sets the size cap (MaxRwCount); stats must outlive the service.
  IoService(long page_size, Stats& stats);

  // The most one call moves, on every path: Linux's MAX_RW_COUNT for this page size.
  size_t max_rw_count() const { return max_rw_count_; }

  // Rules 3-6 of spec §1.8 for bound values: negative offsets -> Status::Errno(EINVAL); the range
  // must fit the buffer (hipFileInvalidValue); size clamped to max_rw_count(). Rule 6 (the
  // compatibility switch) travels in the request's allow_compat: the engine refuses, with
  // hipFileInternalError, what only the compatibility path could move. Refusals are logged (warn)
  // under the entry point. The engine's request, or the error.
  Result<engine::IoRequest> Check(const PreparedIo& io, size_t size, off_t file_offset,
                                  off_t buffer_offset) const;
  // Rules 3-4 alone - offsets not negative, the range inside the buffer - refusals logged as
  // Check logs them: what a stream-ordered submission checks before its values are bound.
  bool RangeValid(const PreparedIo& io, size_t size, off_t file_offset, off_t buffer_offset) const;
  // Check, then the engine moves the bytes; records the statistics.
  Result<size_t> Execute(const PreparedIo& io, size_t size, off_t file_offset, off_t buffer_offset);
  // Execute for n transfers at once (batch entries), writing results[i] for calls[i]: the same
  // rules and statistics per transfer; the engine runs those that passed together
  // (SyncEngine::RunMany), so small ones share one staging buffer and one copy wait.
  struct IoCall {
    const PreparedIo* io = nullptr;
    size_t size = 0;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
  };
  // With `paths`, paths[i] gets how calls[i]'s bytes went.
  void ExecuteMany(const IoCall* calls, size_t n, Result<size_t>* results,
                   engine::PathBytes* paths = nullptr);

  // The statistics of one transfer: request null when it failed its rules (no time recorded
  // then). Into `tally` when given (added to the statistics when the tally is flushed), else at
  // once; `end` is when it finished (now when not given).
  // `paths`: how the engine says the bytes went.
  void Record(const PreparedIo& io, const engine::IoRequest* request, const Result<size_t>& moved,
              std::chrono::steady_clock::time_point start, IoTally* tally = nullptr,
              std::optional<std::chrono::steady_clock::time_point> end = std::nullopt,
              const engine::PathBytes* paths = nullptr);
  // A transfer refused before its handle and buffer were found (rules 1-2).
  void RecordRefused(IoDirection direction);

  // Stream-ordered writes submitted and not yet done with the file (core/stream_transfer.h
  // counts them): while any is, no stream-ordered read takes its bytes at submission, since the
  // write may change them before the read's stream gets there (docs/async.md, "Small reads at
  // submission").
  void StreamWriteBegins() { stream_writes_.fetch_add(1, std::memory_order_acq_rel); }
  void StreamWriteEnds() { stream_writes_.fetch_sub(1, std::memory_order_acq_rel); }
  bool StreamWritesInFlight() const { return stream_writes_.load(std::memory_order_acquire) != 0; }

 private:
  const size_t max_rw_count_;
  Stats& stats_;
  std::atomic<size_t> stream_writes_{0};
};

}  // namespace hipfile::core
