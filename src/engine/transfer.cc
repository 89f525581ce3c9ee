// SPDX-License-Identifier: MIT
#include "engine/transfer.h"

#include <errno.h>

#include <algorithm>
#include <utility>

#include "engine/copy_wait.h"
#include "engine/retry.h"
#include "util/align.h"
#include "util/errors.h"
#include "util/exception_status.h"
#include "util/log.h"

namespace hipfile::engine {

TransferJob::TransferJob(Direction direction, const IoFile& file, const IoMemory& memory,
                         std::vector<PlannedChunk> chunks)
    : direction_(direction),
      file_(file),
      memory_(memory),
      chunks_(std::move(chunks)),
      outcomes_(chunks_.size()) {}

bool TransferJob::Take(size_t* k) {
  const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
  if (i >= chunks_.size() || i > stop_.load(std::memory_order_relaxed)) return false;
  *k = i;
  return true;
}

void TransferJob::Record(size_t k, size_t bytes, Status status) {
  Outcome& o = outcomes_[k];
  o.bytes = bytes;
  o.status = std::move(status);
  o.done = true;
  const Status& s = o.status;
  if (s.ok() && bytes == chunks_[k].size) return;
  size_t stop = stop_.load(std::memory_order_relaxed);
  while (k < stop && !stop_.compare_exchange_weak(stop, k, std::memory_order_relaxed)) {
  }
}

void TransferJob::Fail(Status status) {
  stop_.store(0, std::memory_order_relaxed);
  next_.store(chunks_.size(), std::memory_order_relaxed);
  MutexLock lock(mu_);
  if (failed_.ok()) failed_ = status;
}

bool TransferJob::Join() {
  MutexLock lock(mu_);
  if (closed_) return false;
  ++active_;
  return true;
}

void TransferJob::Leave() {
  MutexLock lock(mu_);
  if (--active_ == 0) idle_.NotifyAll();
}

void TransferJob::CloseAndWait() {
  MutexLock lock(mu_);
  closed_ = true;
  while (active_ != 0) idle_.Wait(mu_);
}

template <typename F>
void TransferJob::ForCounted(F f) const {
  for (size_t k = 0; k < outcomes_.size(); ++k) {
    const Outcome& o = outcomes_[k];
    if (!o.done) break;
    f(k, o.bytes);
    if (!o.status.ok() || o.bytes < chunks_[k].size) break;  // an error, or end of file
  }
}

Result<size_t> TransferJob::Assemble() const {
  size_t total = 0;
  Status error;
  ForCounted([&](size_t k, size_t bytes) {
    total += bytes;
    if (!outcomes_[k].status.ok()) error = outcomes_[k].status;
  });
  if (error.ok()) {
    MutexLock lock(mu_);  // uncontended: no participant is left (CloseAndWait)
    error = failed_;
  }
  if (total > 0 || error.ok()) return total;
  return error;
}

PathBytes TransferJob::PathsMoved() const {
  PathBytes paths;
  const bool host = !staged && !memory_.staging;
  ForCounted([&](size_t k, size_t bytes) {
    const Outcome& o = outcomes_[k];
    if (host) return paths.Add(IoPath::kHost, bytes);
    if (o.pinned) return paths.Add(IoPath::kPageCache, bytes);
    const size_t direct = std::min(o.direct, bytes);
    paths.Add(IoPath::kDirect, direct);
    if (bytes == direct) return;
    Fallback why = o.fell != Fallback::kNone ? o.fell : chunks_[k].why;
    if (why == Fallback::kNone) why = Fallback::kDirectRefused;  // planned direct, went buffered
    paths.AddBuffered(why, bytes - direct);
  });
  return paths;
}

Resources::~Resources() {
  if (lane_.stream != nullptr) context_.streams.Release(device_, lane_);
  context_.staging.Release(&lease_);
}

Status Resources::EnsureLease(size_t want) {
  if (lease_.count > 0) return Status::Ok();
  return context_.staging.Acquire(want, &lease_);
}

Status Resources::EnsureStream(int device) {
  if (lane_.stream != nullptr) return Status::Ok();
  Result<Lane> lane = context_.streams.Acquire(device);
  if (!lane.ok()) return lane.status();
  lane_ = *lane;
  device_ = device;
  return Status::Ok();
}

Status Resources::Wait() const {
  return WaitForLane(context_.gpu, context_.sys, lane_,
                     {context_.copy_spin, context_.copy_nap, context_.copy_waits});
}

namespace {

constexpr size_t kNoBuffer = ~size_t{0};

// A copy waited for at once, on the participant's own non-blocking stream.
Status CopyNow(EngineContext& cx, Resources& res, int device, void* dst, const void* src,
               size_t size, hipMemcpyKind kind) {
  HF_RETURN_IF_ERROR(res.EnsureStream(device));
  HF_RETURN_IF_ERROR(Status::FromGpu(cx.gpu.MemcpyAsync(dst, src, size, kind, res.stream())));
  return res.Wait();
}

// O_DIRECT refused a direct-only job's chunk at run time: the job's error, logged. Buffered I/O
// would be the compatibility path, which is off.
Status DirectRefused(const char* op, off_t offset) {
  HF_LOG_LIMITED(kError,
                 "O_DIRECT %s refused at offset %llu (EINVAL), and the compatibility path is off "
                 "(HIPFILE_ALLOW_COMPAT_MODE): no buffered fallback",
                 op, static_cast<unsigned long long>(offset));
  return Status::Op(hipFileInternalError);
}

// Reads `size` bytes at `pos` within chunk `c` into `dst` by the chunk's method. O_DIRECT
// refusing the request (EINVAL: the file system or this range does not take it after all) falls
// back to the buffered descriptor for the rest of the piece, and stops direct I/O for the rest of
// the request; a direct-only job fails instead.
Transfer ReadChunk(EngineContext& cx, TransferJob& job, size_t k, const PlannedChunk& c, size_t pos,
                   size_t size, char* dst) {
  const off_t offset = static_cast<off_t>(c.offset + pos);
  Transfer t;
  if (c.method == ChunkMethod::kDirect && job.direct_ok.load(std::memory_order_relaxed)) {
    t = PreadDirect(cx.sys, job.file().direct_fd, dst, size, offset, job.direct_align);
    job.NoteDirect(k, t.bytes);
    if (t.status.ok() || !t.status.IsErrno(EINVAL)) return t;
    if (job.direct_only) {
      return Transfer{t.bytes, DirectRefused("read", offset + static_cast<off_t>(t.bytes))};
    }
    // A fallback that costs speed: said once per process (the request after it tries again).
    HF_LOG_ONCE(kWarn,
                "O_DIRECT read refused (EINVAL) at offset %llu of descriptor %d; that request "
                "reads the rest buffered through staging (said once)",
                static_cast<unsigned long long>(offset + t.bytes), job.file().direct_fd);
    job.direct_ok.store(false, std::memory_order_relaxed);
    t.status = Status::Ok();
  }
  if (c.method == ChunkMethod::kDirect) job.NoteFallback(k, Fallback::kDirectRefused);
  const Transfer rest = PreadFull(cx.sys, job.file().buffered_fd, dst + t.bytes, size - t.bytes,
                                  offset + static_cast<off_t>(t.bytes));
  return Transfer{t.bytes + rest.bytes, rest.status};
}

// A read of `c` at `pos` cut to the job's memory_bytes: bytes past it neither count nor are copied.
Transfer Limited(const TransferJob& job, const PlannedChunk& c, size_t pos, Transfer t) {
  const size_t at = c.memory_offset + pos;
  t.bytes = at >= job.memory_bytes ? 0 : std::min(t.bytes, job.memory_bytes - at);
  return t;
}

Transfer WriteChunk(EngineContext& cx, TransferJob& job, size_t k, const PlannedChunk& c,
                    const char* src) {
  const off_t offset = static_cast<off_t>(c.offset);
  Transfer t;
  if (c.method == ChunkMethod::kDirect && job.direct_ok.load(std::memory_order_relaxed)) {
    t = PwriteFull(cx.sys, job.file().direct_fd, src, c.size, offset);
    job.NoteDirect(k, t.bytes);
    if (t.status.ok() || !t.status.IsErrno(EINVAL)) return t;
    if (job.direct_only) {
      return Transfer{t.bytes, DirectRefused("write", offset + static_cast<off_t>(t.bytes))};
    }
    HF_LOG_ONCE(kWarn,
                "O_DIRECT write refused (EINVAL) at offset %llu of descriptor %d; that request "
                "writes the rest buffered through staging (said once)",
                static_cast<unsigned long long>(c.offset + t.bytes), job.file().direct_fd);
    job.direct_ok.store(false, std::memory_order_relaxed);
    t.status = Status::Ok();
  }
  if (c.method == ChunkMethod::kDirect) job.NoteFallback(k, Fallback::kDirectRefused);
  const Transfer rest = PwriteFull(cx.sys, job.file().buffered_fd, src + t.bytes, c.size - t.bytes,
                                   offset + static_cast<off_t>(t.bytes));
  return Transfer{t.bytes + rest.bytes, rest.status};
}

// Reads into device memory: a piece of chunk k is read into one staging buffer (or found in a
// pinned page-cache window) while the copy of the previous piece runs on the stream. At most
// one copy is in flight, waited for before the next is queued, so a buffer is never refilled
// while being copied from, and bytes count only once their copy finished. A chunk is one piece,
// except a page-cache chunk without a pinned window: it is read through staging, cut to buffers.
class StagedReader {
 public:
  StagedReader(EngineContext& cx, TransferJob& job) : cx_(cx), job_(job), res_(cx) {}

  void Run() {
    size_t k = 0;
    while (job_.Take(&k)) RunChunk(k);
    WaitPending();
  }

 private:
  struct Pending {
    bool active = false;
    size_t chunk = 0;
    size_t pos = 0;  // of the piece within the chunk; bytes before it are confirmed
    size_t bytes = 0;
    bool last = true;    // the chunk's outcome is recorded when this piece completes
    Status read_status;  // what the read of the piece said after its bytes
    std::shared_ptr<const PinnedWindow> window;  // held until the copy from it finished
    size_t buffer = kNoBuffer;
  };

  void RunChunk(size_t k) {
    PlannedChunk c = job_.chunk(k);
    if (c.method == ChunkMethod::kPageCache && job_.mapped != nullptr) {
      if (auto window = cx_.pins->Pin(job_.mapped, c.offset)) {
        job_.NotePinned(k);
        Pending next;
        next.chunk = k;
        next.bytes = c.size;
        next.window = std::move(window);
        const char* src = next.window->At(c.offset);
        Queue(std::move(next), src);
        return;
      }
    }
    if (job_.direct_only && c.method == ChunkMethod::kPageCache) {
      // No window (not wholly resident, pinning refused or over its cap): O_DIRECT reads cached
      // pages coherently, where the chunk keeps its alignment.
      if (job_.file().direct_fd < 0 || !IsAligned(c.offset, job_.direct_align) ||
          !IsAligned(c.size, job_.direct_align)) {
        HF_LOG_LIMITED(kError,
                       "read of bytes [%llu, %llu) refused: no page-cache window could be pinned "
                       "for them and O_DIRECT cannot take them (no O_DIRECT, or not aligned to "
                       "%zu), and the compatibility path is off (HIPFILE_ALLOW_COMPAT_MODE)",
                       static_cast<unsigned long long>(c.offset),
                       static_cast<unsigned long long>(c.offset + c.size), job_.direct_align);
        return job_.Record(k, 0, Status::Op(hipFileInternalError));
      }
      c.method = ChunkMethod::kDirect;
    }
    if (c.method == ChunkMethod::kPageCache) job_.NoteFallback(k, Fallback::kNotPinned);
    const Status leased = res_.EnsureLease();
    if (!leased.ok()) return job_.Record(k, 0, leased);
    const size_t piece_max = cx_.staging.buffer_bytes();
    for (size_t pos = 0; pos < c.size;) {
      Pending next;
      next.chunk = k;
      next.pos = pos;
      next.buffer = pending_.active && pending_.buffer == 0 ? 1 : 0;
      if (next.buffer >= res_.buffers()) {  // one buffer, and the pending copy reads it
        WaitPending();
        next.buffer = 0;
      }
      if (failed_ == k) return;  // a copy of an earlier piece failed, and was recorded
      const size_t want = std::min(piece_max, c.size - pos);
      const Transfer t =
          Limited(job_, c, pos, ReadChunk(cx_, job_, k, c, pos, want, res_.buffer(next.buffer)));
      if (t.bytes == 0) {
        WaitPending();
        if (failed_ != k) job_.Record(k, pos, t.status);
        return;
      }
      next.bytes = t.bytes;
      next.read_status = t.status;
      pos += t.bytes;
      next.last = pos == c.size || !t.status.ok() || t.bytes < want;
      Queue(next, res_.buffer(next.buffer));
      if (next.last || failed_ == k) return;
    }
  }

  // Waits for the copy in flight, then queues `next`'s copy from `src`. A request of one piece
  // has nothing to overlap: it copies and waits at once. Copies never use the synchronous
  // Memcpy: that is ordered with the legacy default stream, which may be stalled waiting for
  // this very transfer (stream-ordered I/O), and would deadlock.
  void Queue(Pending next, const char* src) {
    const PlannedChunk& c = job_.chunk(next.chunk);
    if (job_.chunk_count() == 1 && next.pos == 0 && next.last && !pending_.active) {
      char* dst = static_cast<char*>(job_.memory().ptr) + c.memory_offset;
      const Status s =
          CopyNow(cx_, res_, job_.memory().device, dst, src, next.bytes, hipMemcpyHostToDevice);
      if (!s.ok()) return Fail(next, s);
      return job_.Record(next.chunk, next.bytes, next.read_status);
    }
    Status s = res_.EnsureStream(job_.memory().device);
    WaitPending();
    if (failed_ == next.chunk) return;
    if (s.ok()) {
      char* dst = static_cast<char*>(job_.memory().ptr) + c.memory_offset + next.pos;
      s = Status::FromGpu(
          cx_.gpu.MemcpyAsync(dst, src, next.bytes, hipMemcpyHostToDevice, res_.stream()));
    }
    if (!s.ok()) return Fail(next, s);
    next.active = true;
    pending_ = std::move(next);
  }

  void Fail(const Pending& p, Status s) {
    failed_ = p.chunk;
    job_.Record(p.chunk, p.pos, s);
  }

  void WaitPending() {
    if (!pending_.active) return;
    pending_.active = false;
    const Status waited = res_.Wait();
    pending_.window = nullptr;
    if (!waited.ok()) return Fail(pending_, waited);
    if (pending_.last) {
      job_.Record(pending_.chunk, pending_.pos + pending_.bytes, pending_.read_status);
    }
  }

  EngineContext& cx_;
  TransferJob& job_;
  Resources res_;
  Pending pending_;
  size_t failed_ = kNoBuffer;  // the chunk whose failure was recorded mid-way
};

// Writes from device memory: the copy of chunk k into one staging buffer runs while chunk k-1
// is written from the other. A byte counts once pwrite confirmed it.
class StagedWriter {
 public:
  StagedWriter(EngineContext& cx, TransferJob& job) : cx_(cx), job_(job), res_(cx) {}

  void Run() {
    if (job_.chunk_count() == 1) return RunSingle();
    for (;;) {
      size_t k = 0;
      const bool took = job_.Take(&k);
      size_t buffer = kNoBuffer;
      if (took) buffer = QueueCopy(k);
      if (staged_ != kNoBuffer) WriteStaged();
      if (buffer != kNoBuffer) {
        const Status waited = res_.Wait();
        if (!waited.ok()) {
          job_.Record(k, 0, waited);
        } else {
          staged_ = buffer;
          staged_chunk_ = k;
        }
      }
      if (!took && staged_ == kNoBuffer) return;
    }
  }

 private:
  // One chunk: nothing to overlap, so a synchronous copy and no stream.
  void RunSingle() {
    size_t k = 0;
    if (!job_.Take(&k)) return;
    const Status leased = res_.EnsureLease();
    if (!leased.ok()) return job_.Record(k, 0, leased);
    const PlannedChunk& c = job_.chunk(k);
    const char* src = static_cast<const char*>(job_.memory().ptr) + c.memory_offset;
    const Status copied = CopyNow(cx_, res_, job_.memory().device, res_.buffer(0), src, c.size,
                                  hipMemcpyDeviceToHost);
    if (!copied.ok()) return job_.Record(k, 0, copied);
    const Transfer t = WriteChunk(cx_, job_, k, c, res_.buffer(0));
    job_.Record(k, t.bytes, t.status);
  }

  // Queues the copy of chunk k into a free buffer; the buffer, or kNoBuffer after recording
  // the failure.
  size_t QueueCopy(size_t k) {
    Status s = res_.EnsureLease();
    if (s.ok()) s = res_.EnsureStream(job_.memory().device);
    if (!s.ok()) {
      job_.Record(k, 0, s);
      return kNoBuffer;
    }
    size_t buffer = staged_ == 0 ? 1 : 0;
    if (buffer >= res_.buffers()) {  // one buffer, holding the chunk not yet written
      WriteStaged();
      buffer = 0;
    }
    const PlannedChunk& c = job_.chunk(k);
    const char* src = static_cast<const char*>(job_.memory().ptr) + c.memory_offset;
    const hipError_t e =
        cx_.gpu.MemcpyAsync(res_.buffer(buffer), src, c.size, hipMemcpyDeviceToHost, res_.stream());
    if (e != hipSuccess) {
      job_.Record(k, 0, Status::Gpu(e));
      return kNoBuffer;
    }
    return buffer;
  }

  void WriteStaged() {
    if (job_.Stopped(staged_chunk_)) {  // an earlier chunk failed: writing this one is wrong
      staged_ = kNoBuffer;
      return;
    }
    const PlannedChunk& c = job_.chunk(staged_chunk_);
    const Transfer t = WriteChunk(cx_, job_, staged_chunk_, c, res_.buffer(staged_));
    job_.Record(staged_chunk_, t.bytes, t.status);
    staged_ = kNoBuffer;
  }

  EngineContext& cx_;
  TransferJob& job_;
  Resources res_;
  size_t staged_ = kNoBuffer;  // buffer holding a copied chunk not yet written
  size_t staged_chunk_ = 0;
};

// Pinned host memory: the file is read into or written from it directly.
void RunUnstaged(EngineContext& cx, TransferJob& job) {
  size_t k = 0;
  while (job.Take(&k)) {
    const PlannedChunk& c = job.chunk(k);
    char* mem = static_cast<char*>(job.memory().ptr) + c.memory_offset;
    const Transfer t = job.direction() == TransferJob::Direction::kRead
                           ? Limited(job, c, 0, ReadChunk(cx, job, k, c, 0, c.size, mem))
                           : WriteChunk(cx, job, k, c, mem);
    job.Record(k, t.bytes, t.status);
  }
}

}  // namespace

void RunParticipant(EngineContext& context, TransferJob& job) {
  try {
    if (!job.staged) return RunUnstaged(context, job);
    if (job.direction() == TransferJob::Direction::kRead) {
      StagedReader(context, job).Run();
    } else {
      StagedWriter(context, job).Run();
    }
  } catch (...) {
    // Its resources were released on the way out; the other participants stop at their next
    // chunk.
    job.Fail(CurrentExceptionStatus("engine transfer"));
  }
}

}  // namespace hipfile::engine
