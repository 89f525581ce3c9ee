// SPDX-License-Identifier: MIT
// TransferJob: one request in flight — its plan, each chunk's outcome, and the threads working
// on it (the caller and any engine workers that join).
//
// Participants take chunks in file order from a shared counter and run them with their own
// staging lease and stream, so reading one chunk overlaps copying the previous one. A chunk that
// fails or comes up short (end of file) stops the job: no chunk after it is started, and the
// result counts only the bytes before it (POSIX: bytes moved contiguously from the start; the
// error only when nothing moved).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/copy_wait.h"
#include "engine/io_path.h"
#include "engine/page_cache_pins.h"
#include "engine/plan.h"
#include "engine/ring_io.h"
#include "engine/staging_pool.h"
#include "engine/stream_pool.h"
#include "engine/sync_io.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

// What participants share: the engine's system, GPU and pools.
struct EngineContext {
  platform::Sys& sys;
  runtime::GpuRuntime& gpu;
  StagingPool& staging;
  StreamPool& streams;
  // Runs the system calls of a group at once (engine/grouped_io.h); it falls back to one after
  // another by itself where io_uring is off or refused.
  RingIo& ring;
  PageCachePins* pins = nullptr;
  // How long a wait for a copy polls before it sleeps (engine/copy_wait.h).
  std::chrono::microseconds copy_spin{20};
  // How long it sleeps between two polls (0: none).
  std::chrono::microseconds copy_nap{0};
  // Told of each such wait (the statistics); null: none.
  CopyWaitCounts* copy_waits = nullptr;
};

// One participant's staging lease and copy lane, taken when first needed and given back at the
// end. Used by the chunk participants here and by the groups of engine/grouped_io.h.
class Resources {
 public:
  explicit Resources(EngineContext& context) : context_(context) {}
  ~Resources();
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;

  // Up to `want` staging buffers (StagingPool::Acquire), unless some are held already.
  Status EnsureLease(size_t want = StagingPool::kMaxPerLease);
  Status EnsureStream(int device);
  size_t buffers() const { return lease_.count; }
  char* buffer(size_t i) const { return static_cast<char*>(lease_.buffers[i]); }
  runtime::Stream stream() const { return lane_.stream; }
  // Waits for the copies queued on the stream (engine/copy_wait.h).
  Status Wait() const;

 private:
  EngineContext& context_;
  StagingPool::Lease lease_;
  Lane lane_;
  int device_ = 0;
};

class TransferJob {
 public:
  enum class Direction { kRead, kWrite };

  TransferJob(Direction direction, const IoFile& file, const IoMemory& memory,
              std::vector<PlannedChunk> chunks);

  Direction direction() const { return direction_; }
  const IoFile& file() const { return file_; }
  const IoMemory& memory() const { return memory_; }
  const PlannedChunk& chunk(size_t k) const { return chunks_[k]; }
  size_t chunk_count() const { return chunks_.size(); }
  // Whether bytes pass through staging (device memory) or move straight to and from memory.
  bool staged = true;
  // O_DIRECT alignment of offsets and sizes for kDirect chunks.
  size_t direct_align = 512;
  // The mapping whose pinned windows kPageCache chunks are copied from; without it, or without
  // a pinned window, such a chunk is read through staging.
  std::shared_ptr<MappedFile> mapped;

  // The next chunk to run, in file order; false when none is left or the job stopped before it.
  bool Take(size_t* k);
  // Whether the job stopped before chunk k: its bytes would not be counted, so it must not run.
  bool Stopped(size_t k) const { return k > stop_.load(std::memory_order_relaxed); }
  // A chunk's outcome: `bytes` moved from its start, then `status`. Once per taken chunk.
  void Record(size_t k, size_t bytes, Status status);
  // How chunk k's bytes moved, for the statistics (PathsMoved); by its taker, before Record:
  // `n` more of its first bytes went by O_DIRECT; it was copied from a pinned page-cache window;
  // it went buffered other than planned, and why.
  void NoteDirect(size_t k, size_t n) { outcomes_[k].direct += n; }
  void NotePinned(size_t k) { outcomes_[k].pinned = true; }
  void NoteFallback(size_t k, Fallback why) { outcomes_[k].fell = why; }
  // A participant threw (out of memory) with a chunk in hand: no chunk is taken from now on, and
  // the result is `status` unless bytes before the failed chunk moved (then that count, as for
  // any error). The first failure is kept.
  void Fail(Status status);
  // The compatibility path is off and the bytes meet staging: a kDirect chunk that O_DIRECT
  // refuses fails rather than going buffered, and a kPageCache chunk without a pinned window is
  // read with O_DIRECT or fails.
  bool direct_only = false;
  // Bytes of memory the job may fill from its start: a direct-only read planned to the end of
  // the block holding end of file counts (and copies) no byte past the size asked, should the
  // file have grown meanwhile.
  size_t memory_bytes = std::numeric_limits<size_t>::max();
  // Set once a method failed in a way that will not get better for this request.
  std::atomic<bool> direct_ok{true};

  // Worker side: Join before touching the job (false: the caller has finished, go away), Leave
  // after. Caller side: CloseAndWait after its own share; then no participant is left.
  bool Join();
  void Leave();
  void CloseAndWait();

  // The POSIX result, once CloseAndWait returned.
  Result<size_t> Assemble() const;
  // The bytes that result counts, by path, once CloseAndWait returned.
  PathBytes PathsMoved() const;

 private:
  struct Outcome {
    size_t bytes = 0;
    Status status;
    bool done = false;
    size_t direct = 0;
    bool pinned = false;
    Fallback fell = Fallback::kNone;
  };
  // The bytes of each chunk the result counts, in order, until it stops: f(k, bytes).
  template <typename F>
  void ForCounted(F f) const;

  const Direction direction_;
  const IoFile file_;
  const IoMemory memory_;
  const std::vector<PlannedChunk> chunks_;
  std::vector<Outcome> outcomes_;  // element k written only by the taker of chunk k
  std::atomic<size_t> next_{0};
  std::atomic<size_t> stop_{std::numeric_limits<size_t>::max()};  // first chunk that ended it

  mutable Mutex mu_;
  CondVar idle_;
  int active_ GUARDED_BY(mu_) = 0;
  Status failed_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
};

// Runs chunks of `job` until none is left. Used by the caller and by every worker that joined.
void RunParticipant(EngineContext& context, TransferJob& job);

}  // namespace hipfile::engine
