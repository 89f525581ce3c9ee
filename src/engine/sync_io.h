// SPDX-License-Identifier: MIT
// The synchronous data path: moves bytes between a file and GPU or pinned host memory.
//
// Each request is planned (engine/plan.h) into chunks, each moved one of three ways: copied by
// the GPU from pinned windows of the page cache (resident data read again; engine/
// page_cache_pins.h), read with O_DIRECT (the aligned body of cold data), or pread/pwrite through
// pinned staging buffers (everything else). Chunks run on the calling thread and on the engine's
// worker threads (engine/transfer.h), each with two staging buffers so reading and copying
// overlap. Where device memory is host memory (the CPU runtime), file data moves straight into
// it, as into pinned host memory.
//
// allow_compat false (HIPFILE_ALLOW_COMPAT_MODE off): a request whose bytes meet staging - device
// memory, or memory that is a staging buffer - moves by the page cache's pinned windows and
// O_DIRECT only (engine/plan.h). One that would need buffered I/O through staging, by its plan or
// when O_DIRECT refuses it at run time, fails with hipFileInternalError and an error line that
// says why; a refused plan moves nothing. Host memory is never refused: the syscalls move its
// bytes straight into it.
//
// Result conventions (POSIX): the number of bytes moved; fewer than asked only at end of file
// (reads) or when an error stopped the transfer after some bytes had moved. An error before any
// byte moved is returned as the Status (errno kept intact, GPU errors as Status::Gpu). EINTR and
// EAGAIN are retried; short transfers are continued. A write is counted only once pwrite said
// its bytes reached the file.
#pragma once

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/io_path.h"
#include "engine/plan.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::engine {

// The descriptors of one registered file.
struct IoFile {
  int buffered_fd = -1;           // always valid; goes through the page cache
  int direct_fd = -1;             // an O_DIRECT descriptor, or -1
  uint32_t dio_mem_align = 0;     // O_DIRECT alignment of memory, 0 without direct_fd
  uint32_t dio_offset_align = 0;  // O_DIRECT alignment of offsets and sizes, 0 without direct_fd
  dev_t dev = 0;                  // the file's identity, for ForgetFile
  ino_t ino = 0;
};

// The memory side of one transfer, already advanced by the caller's buffer offset.
struct IoMemory {
  void* ptr = nullptr;
  hipMemoryType type = hipMemoryTypeDevice;  // hipMemoryTypeDevice or hipMemoryTypeHost (pinned)
  int device = 0;                            // the device owning ptr
  // ptr is a staging buffer of the caller's (a stream's staging slot): buffered bytes into it are
  // the compatibility path, as they are into the engine's staging.
  bool staging = false;
};

// One transfer of SyncEngine::RunMany.
struct IoRequest {
  bool write = false;
  const IoFile* file = nullptr;
  IoMemory memory;
  size_t size = 0;
  off_t offset = 0;
  bool allow_compat = true;  // false: no buffered I/O through staging (HIPFILE_ALLOW_COMPAT_MODE)
};

// When reads of resident data are copied by the GPU straight from pinned page-cache windows.
//   kAuto: on a GPU; off where device memory is host memory (the CPU runtime reads into it
//     directly, and its copies from a mapping would raise SIGBUS on a file truncated meanwhile;
//     a DMA engine reads pinned pages, which outlive a truncation).
//   kOn: always (tests of the path on the CPU runtime).
//   kOff: never.
enum class PageCacheMode { kAuto, kOn, kOff };

struct EngineOptions {
  size_t chunk_bytes = 8u << 20;  // size of one staging buffer
  // Cap on pinned staging memory held by the pool: the transfers' share of the pinned staging
  // limit, which the Driver splits with stream-ordered staging (engine/stream_staging.h).
  size_t max_staging_bytes = 256u << 20;
  // Pin all staging memory when the engine is built rather than on first use: pinning while a
  // stream waits on a stream-ordered operation would deadlock on CUDA (see staging_pool.h).
  bool preallocate_staging = true;
  // Threads that work on one request, the caller included (the Driver: the I/O thread budget,
  // hipFileParamExecutionMaxIOThreads, at most kMaxAutoIoThreads). 0: the machine's hardware
  // threads, at most kMaxAutoIoThreads. Helpers come from the engine's WorkerPool, so a request
  // gets fewer while the pool's threads are busy.
  size_t io_threads = 0;
  PageCacheMode page_cache = PageCacheMode::kAuto;
  // O_DIRECT for the aligned body of cold reads, where the file has a direct descriptor.
  bool direct_reads = true;
  // O_DIRECT for the aligned body of writes, where the file has a direct descriptor and no pinned
  // page-cache window (an O_DIRECT write cannot drop a pinned page from the cache). The bytes go
  // from staging to the disk without dirtying the page cache: on the H200 an 8 GiB write + fsync
  // ran at 2.02 GiB/s and 0.16 cores this way, 1.17 GiB/s and 3.4 cores buffered. The cost: the
  // written data is not left in the page cache for readers.
  bool direct_writes = true;
  // Each write that moved bytes is followed by fdatasync of its file, and reported done only
  // once that returned (its error is the write's): durable writes, at the disk's flush cost.
  bool write_through = false;
  // Reads smaller than this skip the residency lookup (mmap + mincore) and are read buffered.
  size_t residency_min_bytes = 1u << 20;
  // Largest page-cache window pinned at once; resident spans shorter than the minimum are read
  // buffered (pinning costs more than it saves).
  size_t page_cache_window_bytes = 64u << 20;
  size_t page_cache_min_bytes = 1u << 20;
  // How long a wait for a copy polls the stream before sleeping on an event (engine/
  // copy_wait.h): copies shorter than this are waited for at the cost of a spinning core.
  unsigned copy_spin_us = 20;
  // Microseconds slept (Sys::Nap) between two polls of that wait; 0 polls back to back.
  unsigned copy_nap_us = 0;
  // Copy waits poll a word the lane's stream writes instead of the stream (engine/copy_wait.h),
  // on devices with stream memory operations.
  bool copy_wait_words = false;
  // The system calls of a group of small transfers (RunMany) go to the kernel in one io_uring
  // submission (engine/ring_io.h) where it is available; false: one after another.
  bool io_uring = true;
  // Cap on pinned page-cache windows; 0: a quarter of the machine's memory.
  uint64_t page_cache_max_pinned_bytes = 0;
  // A window is pinned on its n-th read (1: the first); earlier reads go through staging.
  unsigned page_cache_pin_after_uses = 2;
  // Pin-ahead (engine/page_cache_pins.h): windows pinned ahead of a sequential reader; 0: off.
  unsigned page_cache_pin_ahead_windows = 0;
  // Pins made from a context of the runtime's own (engine/page_cache_pins.h, "Pinning aside").
  bool page_cache_pin_aside = false;
};

inline constexpr size_t kMaxAutoIoThreads = 16;

class WorkerPool;
class CopyWaitCounts;      // engine/copy_wait.h
class MappedFile;          // engine/page_cache_pins.h
class StreamWindows;       // engine/stream_windows.h
struct ReadRequestInputs;  // engine/io_rule.h

class SyncEngine {
 public:
  // sys, gpu, workers and copy_waits must outlive the engine. Helpers for a request's chunks are
  // queued on `workers` (the Driver's I/O threads); without one the engine starts io_threads - 1
  // of its own. Each wait for the engine's copies is told to `copy_waits` (engine/copy_wait.h).
  SyncEngine(platform::Sys& sys, runtime::GpuRuntime& gpu, EngineOptions options,
             WorkerPool* workers = nullptr, CopyWaitCounts* copy_waits = nullptr);
  ~SyncEngine();
  SyncEngine(const SyncEngine&) = delete;
  SyncEngine& operator=(const SyncEngine&) = delete;

  // Reads up to `size` bytes at `offset` into memory. With `paths`, adds the bytes the result
  // counts by the path each took (engine/io_path.h).
  Result<size_t> Read(const IoFile& file, const IoMemory& memory, size_t size, off_t offset,
                      bool allow_compat = true, PathBytes* paths = nullptr);
  // Of `size` bytes at `offset` (clamped to the file), how many a read now would find out of the
  // page cache: the disk's share, by the same residency lookup as Read (fstat, mmap, mincore; no
  // GPU call). 0 where Read would look nothing up (the page-cache path off, a small read, a
  // direct-only read) or the lookup fails: no sign of the disk.
  size_t DiskBytes(const IoFile& file, const IoMemory& memory, size_t size, off_t offset,
                   bool allow_compat);
  // A staged stream-ordered read of `size` bytes at `offset` into device `memory` (docs/async.md,
  // "Staged reads of resident data"): the plan Read would make for it, for the operation's
  // stream to copy its resident chunks from pinned page-cache windows as it gets to them. Null
  // where Read would copy none from windows: memory that is not staged, the page-cache path off,
  // a direct-only or small read, nothing resident. Looks up residency (fstat, mmap, mincore); no
  // GPU call. `look`: windows that only look (StreamWindows' `look`).
  std::unique_ptr<StreamWindows> PlanStreamWindows(const IoFile& file, const IoMemory& memory,
                                                   size_t size, off_t offset, bool allow_compat,
                                                   bool look = false);
  // Reads up to `size` bytes at `offset` into ordinary host memory from the page cache alone, never
  // waiting for the disk (a stream-ordered read at submission, docs/async.md): the bytes (short
  // at end of file, or where the rest is not cached), or EAGAIN when none of them is cached or
  // the file system cannot say. Refused (EAGAIN) where buffered reads are not allowed
  // (`allow_compat` false). `paths` counts the bytes as buffered.
  Result<size_t> ReadCached(const IoFile& file, void* host, size_t size, off_t offset,
                            bool allow_compat, PathBytes* paths = nullptr);
  // Writes `size` bytes at `offset` from memory; `paths` as for Read.
  Result<size_t> Write(const IoFile& file, const IoMemory& memory, size_t size, off_t offset,
                       bool allow_compat = true, PathBytes* paths = nullptr);

  // Runs n transfers at once, writing results[i] for ios[i] as Read / Write would. Small staged
  // ones (at most kMaxGroupedBytes) of one device move as a group (engine/grouped_io.h): one
  // staging buffer, one lane, one wait for all their copies; their reads and writes are buffered
  // whatever direct_writes says, so a request that does not allow_compat is never grouped. The
  // others run one after another.
  // With `paths`, paths[i] gets transfer i's bytes by path, as Read / Write give them.
  void RunMany(const IoRequest* ios, size_t n, Result<size_t>* results, PathBytes* paths = nullptr);
  static constexpr size_t kMaxGroupedBytes = 256u << 10;

  // Forgets the file's mapping and retires its pinned windows (handle deregistration). No GPU
  // call.
  void ForgetFile(const IoFile& file);
  // Unpins retired windows no request is using. On CUDA this waits for every stream of the
  // device (an implicit synchronization): call it only where no stream-ordered operation can be
  // in flight.
  size_t UnpinRetired();
  // Pinned page-cache bytes (retired windows included) and windows pinned so far.
  uint64_t pinned_page_cache_bytes() const;

  const EngineOptions& options() const { return options_; }
  // Threads per request (options().io_threads resolved) and whether the page-cache path is on.
  size_t io_threads() const;
  bool page_cache_enabled() const;

 private:
  // A write's result once write_through made it durable: its fdatasync's error if that failed.
  Result<size_t> MadeDurable(const IoFile& file, Result<size_t> wrote);
  // Whether bytes pass through staging: device memory the CPU cannot touch.
  bool Staged(const IoMemory& memory) const;
  // What MakeReadRequest / MakeWriteRequest (engine/io_rule.h) build this engine's requests from.
  ReadRequestInputs RequestInputs(const IoFile& file, const IoMemory& memory,
                                  bool allow_compat) const;
  // A read's residency (request->page_cache_wanted or O_DIRECT allowed, and at least
  // residency_min_bytes): the request cut at end of file, its resident ranges, and the file's
  // mapping where the page-cache path is wanted. False when the read starts at or past end of
  // file. Leaves the request as it is where nothing is looked up.
  bool LookUpResidency(const IoFile& file, PlanRequest* request,
                       std::shared_ptr<MappedFile>* mapped) const;
  // A direct-only read's file side (no residency lookup: no window is pinned, as a pinned page
  // of the file would keep every later write of it off O_DIRECT, and O_DIRECT reads cached
  // pages coherently): a read reaching end of file is planned to the end of the block holding
  // it, which O_DIRECT reads short, where a tail cut at the file's size would need buffered I/O.
  // False when the read starts at or past end of file.
  bool PlanDirectOnlyRead(const IoFile& file, PlanRequest* request) const;
  // The refusal of a plan that would take the compatibility path (allow_compat false), logged;
  // Ok when the plan has none. `no_direct`: why the request may not use O_DIRECT, if it may not.
  Status RefuseCompat(const char* op, const PlanRequest& request,
                      const std::vector<PlannedChunk>& plan, const char* no_direct) const;

  struct Impl;
  platform::Sys& sys_;
  runtime::GpuRuntime& gpu_;
  EngineOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hipfile::engine
