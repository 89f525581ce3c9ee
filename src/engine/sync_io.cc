// SPDX-License-Identifier: MIT
#include "engine/sync_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

#include "engine/grouped_io.h"
#include "engine/io_rule.h"
#include "engine/page_cache_pins.h"
#include "engine/plan.h"
#include "engine/staging_pool.h"
#include "engine/stream_pool.h"
#include "engine/stream_windows.h"
#include "engine/transfer.h"
#include "engine/worker_pool.h"
#include "util/align.h"
#include "util/log.h"
#include "util/trace.h"

namespace hipfile::engine {
namespace {

size_t ResolveIoThreads(size_t requested) {
  if (requested > 0) return requested;
  const size_t hw = std::thread::hardware_concurrency();
  return std::clamp<size_t>(hw, 1, kMaxAutoIoThreads);
}

// kAuto: on a GPU. Where device memory is host memory, reads go straight into it instead (and
// a CPU copy from a mapping would fault on a file truncated meanwhile).
bool ResolvePageCache(PageCacheMode mode, const runtime::GpuRuntime& gpu) {
  return PageCacheEnabled(mode, gpu.DeviceMemoryIsHostMemory());
}

// Staging buffers the pool may hold: the configured pinned bytes, but never more than a quarter
// of the machine's memory. They are pinned when the engine is built, and a huge (valid)
// hipFileParamPropertiesMaxDevicePinnedMemSizeKB must not make the next open pin the machine.
size_t StagingBuffers(const EngineOptions& options, platform::Sys& sys) {
  uint64_t bytes = options.max_staging_bytes;
  const uint64_t cap = sys.PhysicalMemoryBytes() / 4;
  if (cap > 0 && bytes > cap) {
    HF_LOG(kWarn, "pinned staging memory of %llu bytes asked; using %llu (a quarter of memory)",
           static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(cap));
    bytes = cap;
  }
  return static_cast<size_t>(bytes / std::max<size_t>(options.chunk_bytes, 1));
}

PageCachePins::Options PinOptions(const EngineOptions& options, bool page_cache, size_t page,
                                  platform::Sys& sys) {
  PageCachePins::Options o;
  o.pinning = page_cache;
  o.page_size = page;
  o.window_bytes = std::max<size_t>(page, AlignDown(options.page_cache_window_bytes, page));
  o.max_pinned_bytes = options.page_cache_max_pinned_bytes;
  if (o.max_pinned_bytes == 0) o.max_pinned_bytes = sys.PhysicalMemoryBytes() / 4;
  o.pin_after_uses = std::max(options.page_cache_pin_after_uses, 1u);
  o.pin_ahead_windows = options.page_cache_pin_ahead_windows;
  o.pin_aside = options.page_cache_pin_aside;
  return o;
}

RingIoOptions RingOptions(const EngineOptions& options) {
  RingIoOptions o;
  o.enabled = options.io_uring;
  return o;
}

}  // namespace

struct SyncEngine::Impl {
  Impl(platform::Sys& sys, runtime::GpuRuntime& gpu, const EngineOptions& options,
       WorkerPool* shared_pool)
      : staging(gpu, options.chunk_bytes, StagingBuffers(options, sys)),
        streams(gpu, options.copy_wait_words),
        ring(sys, RingOptions(options)),
        context{sys, gpu, staging, streams, ring},
        io_threads(ResolveIoThreads(options.io_threads)),
        page_cache(ResolvePageCache(options.page_cache, gpu)),
        page_size(static_cast<size_t>(std::max(sys.PageSize(), 512L))),
        pins(sys, gpu, PinOptions(options, page_cache, page_size, sys)),
        own_pool(shared_pool != nullptr ? nullptr
                                        : std::make_unique<WorkerPool>(sys, io_threads - 1)),
        workers(shared_pool != nullptr ? *shared_pool : *own_pool, "engine") {
    context.pins = &pins;
    context.copy_spin = std::chrono::microseconds(options.copy_spin_us);
    context.copy_nap = std::chrono::microseconds(options.copy_nap_us);
    if (options.preallocate_staging) {
      const Status reserved = staging.Reserve();
      if (!reserved.ok()) {
        HF_LOG(kWarn,
               "pinning %zu staging buffers of %zu bytes failed (%s); the rest are pinned "
               "on demand, which can stall stream-ordered I/O",
               staging.max_buffers(), options.chunk_bytes, reserved.ToString().c_str());
      }
    }
  }

  // Runs every chunk of `job` on the caller and up to io_threads - 1 workers.
  Result<size_t> Execute(std::shared_ptr<TransferJob> job, PathBytes* paths) {
    const size_t chunks = job->chunk_count();
    if (chunks == 0) return size_t{0};
    const size_t helpers = std::min({io_threads - 1, workers.pool().size(), chunks - 1});
    for (size_t i = 0; i < helpers; ++i) {
      // A helper that cannot be had (no thread, no memory) leaves its share to the others and
      // to the caller, which runs until every chunk is done.
      const Status queued = workers.Submit([this, job] {
        if (!job->Join()) return;  // the caller finished without this worker
        RunParticipant(context, *job);
        job->Leave();
      });
      if (!queued.ok()) break;
    }
    RunParticipant(context, *job);
    job->CloseAndWait();
    // Workers that did not get to join still hold the job; the mapping must not wait for them.
    job->mapped = nullptr;
    if (paths != nullptr) *paths += job->PathsMoved();
    return job->Assemble();
  }

  StagingPool staging;
  StreamPool streams;
  RingIo ring;
  EngineContext context;
  const size_t io_threads;
  const bool page_cache;
  const size_t page_size;
  PageCachePins pins;
  std::unique_ptr<WorkerPool> own_pool;  // when the engine was given none
  // Last: drained first, while what its tasks use still exists.
  TaskGroup workers;
};

SyncEngine::SyncEngine(platform::Sys& sys, runtime::GpuRuntime& gpu, EngineOptions options,
                       WorkerPool* workers, CopyWaitCounts* copy_waits)
    : sys_(sys),
      gpu_(gpu),
      options_(options),
      impl_(std::make_unique<Impl>(sys, gpu, options_, workers)) {
  impl_->context.copy_waits = copy_waits;
}

SyncEngine::~SyncEngine() = default;

size_t SyncEngine::io_threads() const { return impl_->io_threads; }
bool SyncEngine::page_cache_enabled() const { return impl_->page_cache; }

void SyncEngine::ForgetFile(const IoFile& file) { impl_->pins.Forget(file.dev, file.ino); }

size_t SyncEngine::UnpinRetired() { return impl_->pins.UnpinRetired(); }

uint64_t SyncEngine::pinned_page_cache_bytes() const { return impl_->pins.counters().pinned_bytes; }

bool SyncEngine::Staged(const IoMemory& memory) const {
  return memory.type == hipMemoryTypeDevice && !gpu_.DeviceMemoryIsHostMemory();
}

ReadRequestInputs SyncEngine::RequestInputs(const IoFile& file, const IoMemory& memory,
                                            bool allow_compat) const {
  ReadRequestInputs in;
  in.options = &options_;
  in.file = &file;
  in.staged = Staged(memory);
  in.memory_is_staging = memory.staging;
  in.memory_address = reinterpret_cast<uintptr_t>(memory.ptr);
  in.allow_compat = allow_compat;
  in.page_cache = impl_->page_cache;
  in.page_size = impl_->page_size;
  return in;
}

Status SyncEngine::RefuseCompat(const char* op, const PlanRequest& request,
                                const std::vector<PlannedChunk>& plan,
                                const char* no_direct) const {
  const CompatUse use = CompatPathUse(request, plan);
  if (use.reason == CompatReason::kNone) return Status::Ok();
  const char* why = CompatReasonText(use.reason);
  if (use.reason == CompatReason::kNoDirect && no_direct != nullptr) why = no_direct;
  HF_LOG_LIMITED(kError,
                 "%s of %zu bytes at offset %llu refused: bytes [%llu, %llu) could move only by "
                 "the compatibility path (buffered I/O through staging), which "
                 "HIPFILE_ALLOW_COMPAT_MODE / hipFileParamPropertiesAllowCompatMode turned off: "
                 "%s (O_DIRECT alignment: offset %u, memory %u)",
                 op, request.size, static_cast<unsigned long long>(request.offset),
                 static_cast<unsigned long long>(use.range.begin),
                 static_cast<unsigned long long>(use.range.end), why, request.dio_offset_align,
                 request.dio_mem_align);
  return Status::Op(hipFileInternalError);
}

bool SyncEngine::PlanDirectOnlyRead(const IoFile& file, PlanRequest* request) const {
  if (!request->direct_allowed || request->dio_offset_align == 0) return true;  // refused later
  struct stat st = {};
  if (!sys_.Fstat(file.buffered_fd, &st).ok() || !S_ISREG(st.st_mode)) return true;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (request->offset >= file_size) return false;
  if (request->size >= file_size - request->offset) {
    request->size =
        static_cast<size_t>(AlignUp(file_size, request->dio_offset_align) - request->offset);
  }
  return true;
}

bool SyncEngine::LookUpResidency(const IoFile& file, PlanRequest* request,
                                 std::shared_ptr<MappedFile>* mapped) const {
  const bool want_cache = request->page_cache_wanted;
  if ((!want_cache && !request->direct_allowed) || request->size < options_.residency_min_bytes) {
    return true;
  }
  // The file's size bounds the mapping: pages past end of file must never be touched. Bytes
  // past the size read here are not read at all (a file growing meanwhile gives a short count,
  // as if this read came first).
  struct stat st = {};
  if (!sys_.Fstat(file.buffered_fd, &st).ok() || !S_ISREG(st.st_mode)) return true;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (request->offset >= file_size) return false;
  request->size =
      static_cast<size_t>(std::min<uint64_t>(request->size, file_size - request->offset));
  Result<std::shared_ptr<MappedFile>> m = impl_->pins.Map(file.buffered_fd, st);
  if (m.ok() && (*m)->Residency(request->offset, request->size, &request->resident).ok()) {
    request->residency_known = true;
    request->page_cache_allowed = want_cache;
    if (want_cache) *mapped = std::move(*m);
  }
  return true;
}

size_t SyncEngine::DiskBytes(const IoFile& file, const IoMemory& memory, size_t size, off_t offset,
                             bool allow_compat) {
  if (size == 0 || offset < 0 || !impl_->page_cache || !allow_compat) return 0;
  PlanRequest request = MakeReadRequest(RequestInputs(file, memory, allow_compat),
                                        static_cast<uint64_t>(offset), size);
  std::shared_ptr<MappedFile> mapped;
  if (!LookUpResidency(file, &request, &mapped) || !request.residency_known) return 0;
  size_t resident = 0;
  for (const ByteRange& r : request.resident) resident += static_cast<size_t>(r.end - r.begin);
  return request.size > resident ? request.size - resident : 0;
}

std::unique_ptr<StreamWindows> SyncEngine::PlanStreamWindows(const IoFile& file,
                                                             const IoMemory& memory, size_t size,
                                                             off_t offset, bool allow_compat,
                                                             bool look) {
  // Read's decision for the same request: none for memory that is not staged, where the
  // page-cache path is off, or for a direct-only read (no residency lookup: engine/sync_io.h).
  if (size == 0 || !Staged(memory) || !impl_->page_cache || !allow_compat) return nullptr;
  PlanRequest request = MakeReadRequest(RequestInputs(file, memory, allow_compat),
                                        static_cast<uint64_t>(offset), size);
  if (!request.page_cache_wanted) return nullptr;
  std::shared_ptr<MappedFile> mapped;
  if (!LookUpResidency(file, &request, &mapped) || mapped == nullptr) return nullptr;
  std::vector<PlannedChunk> plan = PlanTransfer(request);
  const bool any = std::any_of(plan.begin(), plan.end(), [](const PlannedChunk& c) {
    return c.method == ChunkMethod::kPageCache;
  });
  if (!any) return nullptr;
  return std::make_unique<StreamWindows>(impl_->pins, std::move(mapped), std::move(plan), look);
}

Result<size_t> SyncEngine::Read(const IoFile& file, const IoMemory& memory, size_t size,
                                off_t offset, bool allow_compat, PathBytes* paths) {
  if (size == 0) return size_t{0};
  const TraceRange range("hipFile engine read");
  const bool staged = Staged(memory);
  // Plan-time only: the default (allow_compat) plans and runs as it always did.
  const bool direct_only = !allow_compat && (staged || memory.staging);
  PlanRequest request = MakeReadRequest(RequestInputs(file, memory, allow_compat),
                                        static_cast<uint64_t>(offset), size);
  // Residency decides between the page cache, O_DIRECT and buffered reads. The file's size
  // bounds the mapping: pages past end of file must never be touched. Bytes past the size read
  // here are not read at all (a file growing meanwhile gives a short count, as if this read
  // came first).
  std::shared_ptr<MappedFile> mapped;
  if (direct_only) {
    if (!PlanDirectOnlyRead(file, &request)) return size_t{0};
  } else if (!LookUpResidency(file, &request, &mapped)) {
    return size_t{0};
  }

  std::vector<PlannedChunk> plan = PlanTransfer(request);
  if (direct_only) {
    const char* no_direct = file.direct_fd < 0       ? "the file system has no O_DIRECT"
                            : !options_.direct_reads ? "HIPFILE_DIRECT_READS is off"
                                                     : nullptr;
    HF_RETURN_IF_ERROR(RefuseCompat("read", request, plan, no_direct));
  }
  auto job =
      std::make_shared<TransferJob>(TransferJob::Direction::kRead, file, memory, std::move(plan));
  job->staged = staged;
  job->direct_only = direct_only;
  if (direct_only) job->memory_bytes = size;  // its plan may reach past it, to a block's end
  job->direct_align = std::max<size_t>(file.dio_offset_align, 1);
  job->mapped = std::move(mapped);
  return impl_->Execute(std::move(job), paths);
}

Result<size_t> SyncEngine::ReadCached(const IoFile& file, void* host, size_t size, off_t offset,
                                      bool allow_compat, PathBytes* paths) {
  if (size == 0) return size_t{0};
  if (!allow_compat) return Status::Errno(EAGAIN);  // O_DIRECT only: never from the page cache
  Result<size_t> got = sys_.PreadCached(file.buffered_fd, host, size, offset);
  for (int again = 0; again < 2 && !got.ok() && got.status().IsErrno(EINTR); ++again) {
    got = sys_.PreadCached(file.buffered_fd, host, size, offset);
  }
  if (!got.ok()) {
    const Status s = got.status();
    // Not cached, or no way to ask without waiting: the caller's other way reads it.
    if (s.IsErrno(EAGAIN) || s.IsErrno(EOPNOTSUPP) || s.IsErrno(EINVAL) || s.IsErrno(ENOSYS) ||
        s.IsErrno(EINTR)) {
      return Status::Errno(EAGAIN);
    }
    return got;
  }
  if (paths != nullptr) paths->Add(IoPath::kBuffered, *got);
  return got;
}

Result<size_t> SyncEngine::Write(const IoFile& file, const IoMemory& memory, size_t size,
                                 off_t offset, bool allow_compat, PathBytes* paths) {
  if (size == 0) return size_t{0};
  const TraceRange range("hipFile engine write");
  const bool staged = Staged(memory);
  const bool direct_only = !allow_compat && (staged || memory.staging);
  // Direct pieces never share a page with buffered ones: a buffered write dirtying a page that
  // an O_DIRECT write covers could later be written back over the direct bytes. And none while a
  // page of the file is pinned, nor a pin while they run (PageCachePins::BeginDirectWrite).
  PageCachePins& pins = impl_->pins;
  const bool direct =
      options_.direct_writes && file.direct_fd >= 0 && pins.BeginDirectWrite(file.dev, file.ino);
  struct EndDirect {
    PageCachePins* pins;
    const IoFile& file;
    ~EndDirect() {
      if (pins != nullptr) pins->EndDirectWrite(file.dev, file.ino);
    }
  } end_direct{direct ? &pins : nullptr, file};
  const PlanRequest request = MakeWriteRequest(RequestInputs(file, memory, allow_compat), direct,
                                               static_cast<uint64_t>(offset), size);

  std::vector<PlannedChunk> plan = PlanTransfer(request);
  if (direct_only) {
    const char* no_direct = file.direct_fd < 0 ? "the file system has no O_DIRECT"
                            : !options_.direct_writes
                                ? "HIPFILE_DIRECT_WRITES is off"
                                : "pages of the file are pinned for the page-cache path (an "
                                  "O_DIRECT write must not cover them; deregistering the "
                                  "handle releases them)";
    HF_RETURN_IF_ERROR(RefuseCompat("write", request, plan, no_direct));
  }
  auto job =
      std::make_shared<TransferJob>(TransferJob::Direction::kWrite, file, memory, std::move(plan));
  job->staged = request.staged;
  job->direct_only = direct_only;
  job->direct_align = request.dio_offset_align;
  PathBytes moved;
  Result<size_t> wrote = MadeDurable(file, impl_->Execute(std::move(job), &moved));
  if (wrote.ok() && paths != nullptr) *paths += moved;  // a failed fdatasync: nothing counts
  return wrote;
}

Result<size_t> SyncEngine::MadeDurable(const IoFile& file, Result<size_t> wrote) {
  if (!options_.write_through || !wrote.ok() || *wrote == 0) return wrote;
  // One descriptor flushes the inode's data whichever descriptor wrote it (O_DIRECT bytes too).
  HF_RETURN_IF_ERROR(sys_.Fdatasync(file.buffered_fd));
  return wrote;
}

void SyncEngine::RunMany(const IoRequest* ios, size_t n, Result<size_t>* results,
                         PathBytes* paths) {
  // The group: small staged transfers on the device of the first of them.
  const auto alone = [this, ios, paths](const IoRequest& io) {
    PathBytes* mine = paths != nullptr ? &paths[&io - ios] : nullptr;
    return io.write ? Write(*io.file, io.memory, io.size, io.offset, io.allow_compat, mine)
                    : Read(*io.file, io.memory, io.size, io.offset, io.allow_compat, mine);
  };
  std::vector<IoRequest> group;
  std::vector<size_t> index;  // group[j] is ios[index[j]]
  const size_t max_grouped = std::min(kMaxGroupedBytes, options_.chunk_bytes);
  for (size_t i = 0; i < n; ++i) {
    const IoRequest& io = ios[i];
    const bool groupable = io.size > 0 && io.size <= max_grouped && Staged(io.memory) &&
                           io.allow_compat &&
                           (group.empty() || io.memory.device == group.front().memory.device);
    if (groupable) {
      group.push_back(io);
      index.push_back(i);
      continue;
    }
    results[i] = alone(io);
  }
  if (group.empty()) return;
  if (group.size() == 1) {  // nothing to share: the plain path (and its page-cache lookup)
    results[index.front()] = alone(ios[index.front()]);
    return;
  }
  const TraceRange range("hipFile engine batch group");
  std::vector<Result<size_t>> grouped(group.size(), size_t{0});
  // Not a vector: GCC 12 reports a false free-nonheap-object on a vector of this enum here.
  const auto via = std::make_unique<IoPath[]>(group.size());
  RunGroup(impl_->context, group.data(), group.size(), grouped.data(), via.get());
  // Write-through: one fdatasync per file of the group, after all of its writes.
  std::vector<std::pair<int, Status>> synced;
  for (size_t j = 0; j < group.size(); ++j) {
    const IoRequest& io = group[j];
    if (options_.write_through && io.write && grouped[j].ok() && *grouped[j] > 0) {
      const int fd = io.file->buffered_fd;
      auto it =
          std::find_if(synced.begin(), synced.end(), [fd](const auto& s) { return s.first == fd; });
      if (it == synced.end()) it = synced.insert(synced.end(), {fd, sys_.Fdatasync(fd)});
      if (!it->second.ok()) grouped[j] = it->second;
    }
    if (paths != nullptr && grouped[j].ok()) {
      if (via[j] == IoPath::kIoUring) {
        paths[index[j]].Add(IoPath::kIoUring, *grouped[j]);
      } else {
        paths[index[j]].AddBuffered(Fallback::kNoRing, *grouped[j]);
      }
    }
    results[index[j]] = std::move(grouped[j]);
  }
}

}  // namespace hipfile::engine
