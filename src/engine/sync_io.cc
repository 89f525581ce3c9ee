#include "engine/sync_io.h"

#include <algorithm>

#include "engine/retry.h"
#include "engine/staging_pool.h"
#include "engine/stream_pool.h"

namespace hipfile::engine {

// The O_DIRECT body (direct_fd) is the pipelined engine's job; this path always uses the
// buffered descriptor, which is correct for any offset, size and memory alignment.

struct SyncEngine::Impl {
  Impl(runtime::GpuRuntime& gpu, const EngineOptions& options)
      : staging(gpu, options.chunk_bytes,
                options.max_staging_bytes / std::max<size_t>(options.chunk_bytes, 1)),
        streams(gpu) {}

  StagingPool staging;
  StreamPool streams;
};

namespace {

// Staging buffers and a stream held by one staged transfer. Copies on the stream must be
// finished before it is destroyed.
class StagingSession {
 public:
  StagingSession(StagingPool& pool, StreamPool& streams) : pool_(pool), streams_(streams) {}
  ~StagingSession() {
    if (stream_ != nullptr) streams_.Release(device_, stream_);
    pool_.Release(&lease_);
  }

  Status Start(int device) {
    HF_RETURN_IF_ERROR(pool_.Acquire(StagingPool::kMaxPerLease, &lease_));
    Result<runtime::Stream> stream = streams_.Acquire(device);
    if (!stream.ok()) return stream.status();
    stream_ = *stream;
    device_ = device;
    return Status::Ok();
  }

  size_t count() const { return lease_.count; }
  void* buffer(size_t chunk_index) const { return lease_.buffers[chunk_index % lease_.count]; }
  runtime::Stream stream() const { return stream_; }

 private:
  StagingPool& pool_;
  StreamPool& streams_;
  StagingPool::Lease lease_;
  runtime::Stream stream_ = nullptr;
  int device_ = 0;
};

// Bytes confirmed at the destination, and the first error met.
struct Progress {
  size_t done = 0;
  Status error;

  void Fail(Status s) {
    if (error.ok()) error = s;
  }
  Result<size_t> Finish() const {
    if (done > 0 || error.ok()) return done;
    return error;
  }
};

hipMemcpyKind ToDeviceKind(hipMemoryType type) {
  return type == hipMemoryTypeDevice ? hipMemcpyHostToDevice : hipMemcpyDefault;
}
hipMemcpyKind FromDeviceKind(hipMemoryType type) {
  return type == hipMemoryTypeDevice ? hipMemcpyDeviceToHost : hipMemcpyDefault;
}

}  // namespace

SyncEngine::SyncEngine(platform::Sys& sys, runtime::GpuRuntime& gpu, EngineOptions options)
    : sys_(sys), gpu_(gpu), options_(options), impl_(std::make_unique<Impl>(gpu, options_)) {}

SyncEngine::~SyncEngine() = default;

// Reads chunk k into staging buffer k % 2 while the copy of chunk k-1 runs on the stream. At most
// one copy is in flight: it is waited for before the next is queued, so the buffer a pread fills
// is never being copied from, and a byte counts only once its copy finished.
Result<size_t> SyncEngine::Read(const IoFile& file, const IoMemory& memory, size_t size,
                                off_t offset) {
  if (size == 0) return size_t{0};
  if (memory.type == hipMemoryTypeHost) {
    const Transfer t = PreadFull(sys_, file.buffered_fd, memory.ptr, size, offset);
    if (t.bytes > 0 || t.status.ok()) return t.bytes;
    return t.status;
  }

  StagingSession session(impl_->staging, impl_->streams);
  HF_RETURN_IF_ERROR(session.Start(memory.device));
  const size_t chunk = options_.chunk_bytes;
  char* const dst = static_cast<char*>(memory.ptr);
  Progress progress;
  size_t issued = 0;   // bytes read and queued for copying
  size_t pending = 0;  // bytes of the copy in flight
  auto wait_pending = [&]() {
    if (pending == 0) return true;
    const hipError_t e = gpu_.StreamSynchronize(session.stream());
    if (e != hipSuccess) {
      progress.Fail(Status::Gpu(e));
      pending = 0;
      return false;
    }
    progress.done += pending;
    pending = 0;
    return true;
  };

  for (size_t k = 0; issued < size; ++k) {
    if (session.count() == 1 && !wait_pending()) break;
    const size_t want = std::min(chunk, size - issued);
    const Transfer t = PreadFull(sys_, file.buffered_fd, session.buffer(k), want,
                                 offset + static_cast<off_t>(issued));
    if (t.bytes > 0) {
      if (!wait_pending()) break;
      const hipError_t e = gpu_.MemcpyAsync(dst + issued, session.buffer(k), t.bytes,
                                            ToDeviceKind(memory.type), session.stream());
      if (e != hipSuccess) {
        progress.Fail(Status::Gpu(e));
        break;
      }
      pending = t.bytes;
      issued += t.bytes;
    }
    if (!t.status.ok()) {
      progress.Fail(t.status);
      break;
    }
    if (t.bytes < want) break;  // end of file
  }
  wait_pending();
  return progress.Finish();
}

// Copies chunk k+1 from the device into the other staging buffer while chunk k is written. A
// byte counts once pwrite confirmed it.
Result<size_t> SyncEngine::Write(const IoFile& file, const IoMemory& memory, size_t size,
                                 off_t offset) {
  if (size == 0) return size_t{0};
  if (memory.type == hipMemoryTypeHost) {
    const Transfer t = PwriteFull(sys_, file.buffered_fd, memory.ptr, size, offset);
    if (t.bytes > 0 || t.status.ok()) return t.bytes;
    return t.status;
  }

  StagingSession session(impl_->staging, impl_->streams);
  HF_RETURN_IF_ERROR(session.Start(memory.device));
  const size_t chunk = options_.chunk_bytes;
  const char* const src = static_cast<const char*>(memory.ptr);
  const size_t chunks = (size + chunk - 1) / chunk;
  auto chunk_bytes = [&](size_t k) { return std::min(chunk, size - k * chunk); };
  auto queue_copy = [&](size_t k) {
    return gpu_.MemcpyAsync(session.buffer(k), src + k * chunk, chunk_bytes(k),
                            FromDeviceKind(memory.type), session.stream());
  };
  Progress progress;
  bool pending = false;  // a copy is in flight on the stream

  hipError_t e = queue_copy(0);
  if (e != hipSuccess) return Status::Gpu(e);
  pending = true;
  for (size_t k = 0; k < chunks; ++k) {
    if (pending) {
      pending = false;
      e = gpu_.StreamSynchronize(session.stream());
      if (e != hipSuccess) {
        progress.Fail(Status::Gpu(e));
        break;
      }
    }
    const bool overlap = session.count() > 1 && k + 1 < chunks;
    if (overlap) {
      e = queue_copy(k + 1);
      if (e != hipSuccess) {
        progress.Fail(Status::Gpu(e));
        // Chunk k is staged already; write it before stopping.
      } else {
        pending = true;
      }
    }
    const Transfer t = PwriteFull(sys_, file.buffered_fd, session.buffer(k), chunk_bytes(k),
                                  offset + static_cast<off_t>(k * chunk));
    progress.done += t.bytes;
    if (!t.status.ok()) {
      progress.Fail(t.status);
      break;
    }
    if (!progress.error.ok()) break;
    if (!overlap && k + 1 < chunks) {
      e = queue_copy(k + 1);
      if (e != hipSuccess) {
        progress.Fail(Status::Gpu(e));
        break;
      }
      pending = true;
    }
  }
  // Buffers go back to the pool only when no copy writes into them.
  // Its error, if any, changes nothing: those bytes were never counted.
  if (pending) (void)gpu_.StreamSynchronize(session.stream());
  return progress.Finish();
}

}  // namespace hipfile::engine
