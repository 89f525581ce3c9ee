// SPDX-License-Identifier: MIT
#include "core/driver.h"

#include <errno.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>
#include <vector>

#include "core/log_file.h"
#include "core/process_runtime.h"
#include "core/stats_region.h"
#include "core/stream_transfer.h"
#include "util/errors.h"
#include "util/log.h"
#include "util/trace.h"

namespace hipfile::core {
namespace {

const char* SyncEntry(IoDirection direction) {
  return direction == IoDirection::kRead ? "hipFileRead" : "hipFileWrite";
}

}  // namespace

Driver::Driver(platform::Sys& sys, runtime::GpuRuntime& gpu, const Config& config)
    : sys_(sys),
      gpu_(gpu),
      // The engine's way copies on the library's streams, which deadlock behind stream-ordered
      // operations waiting on shared hardware queues: refused wherever copies happen.
      async_staged_(config.async_staged || !gpu.DeviceMemoryIsHostMemory()),
      refused_unstaged_(!config.async_staged && !gpu.DeviceMemoryIsHostMemory()),
      async_stage_times_(config.async_stage_times),
      async_run_idle_bytes_(size_t{config.async_run_idle_kb} * 1024),
      async_copy_at_submission_(config.async_copy_at_submission),
      async_read_at_submission_(config.async_read_at_submission),
      async_assumed_fixed_(config.async_assume_fixed ? kAllFixed : 0),
      async_ahead_stream_(config.async_ahead_stream),
      async_copy_runs_(config.async_copy_runs),
      async_run_table_on_device_(config.async_run_table_on_device),
      async_large_chunks_from_(size_t{config.async_large_chunks_mb} << 20),
      async_ahead_part_bytes_(size_t{config.async_ahead_part_mb} << 20),
      async_choose_ahead_way_(config.SourceOf(kEnvAsyncAheadPartMb) == SettingSource::kDefault),
      async_quiet_streams_(config.async_quiet_streams),
      io_pool_(sys, IoThreadsOf(config)),
      async_pool_(sys, IoThreadsOf(config), "async"),
      service_(sys.PageSize(), stats_),
      next_(config),
      in_use_(config) {
  stats_.set_level(next_.stats_level());
  async_stage_stats_.set_enabled(async_stage_times_ || next_.stats_level() >= 2);
}

Driver::~Driver() = default;

Driver& Driver::Global() {
  // Leaked on purpose: exit with registrations or I/O outstanding must not run destructors that
  // close descriptors or free memory under other threads.
  static Driver* driver = [] {
    const Config& config = ProcessConfig();  // first, so its log level applies to what follows
    auto* made = new Driver(platform::RealSys(), ProcessRuntime(), config);
    made->runtime_reason_ = ProcessRuntimeReason();
    // Statistics go to the published region from the start (before any thread counts), where
    // hipfile-stats reads them. At level 0 too, as AMD's do: a tool then reports level 0 and
    // zeros rather than no statistics, and the I/O path pays what it pays at level 0 anyway (one
    // relaxed load of the level per transfer).
    // Never freed, and held here so that it stays reachable (leak checkers).
    static StatsRegion* const region = PublishProcessStats(made->sys(), config.stats_level);
    if (region != nullptr) {
      made->stats().MoveCountersTo(region->mutable_counters());
      // A child forked without exec counts for itself, not into its parent's region.
      pthread_atfork(nullptr, nullptr, [] { Driver::Global().stats().MoveCountersHome(); });
    }
    return made;
  }();
  return *driver;
}

Status Driver::InitializeLocked() {
  // A runtime that cannot work (HIPFILE_RUNTIME=cuda without a usable GPU) is refused here, where
  // the caller asked for it, rather than by every call after.
  int devices = 0;
  const hipError_t counted = gpu_.GetDeviceCount(&devices);
  if (counted != hipSuccess || devices <= 0) {
    HF_LOG(kError,
           "hipFileDriverOpen: the %s runtime has no usable device (%s)%s%s; the driver stays "
           "closed",
           gpu_.Name(), counted != hipSuccess ? GpuErrorName(counted) : "0 devices",
           runtime_reason_.empty() ? "" : ": ", runtime_reason_.c_str());
    return Status::Op(hipFileDriverError);
  }
  if (refused_unstaged_) {
    HF_LOG(kError,
           "HIPFILE_ASYNC_STAGED=false is refused on the %s runtime: copies on the engine's "
           "streams deadlock behind stream-ordered operations waiting on shared hardware queues "
           "(docs/async.md); stream-ordered I/O stays staged",
           gpu_.Name());
  }
  in_use_ = next_;
  in_use_.ResolveForOpen();
  stats_.set_level(in_use_.stats_level());
  async_stage_stats_.set_enabled(async_stage_times_ || in_use_.stats_level() >= 2);
  // Each device's uuid, for tools reading the statistics from outside (hipfile-stats), which
  // cannot ask the GPU runtime of this process: asked here, on the caller's thread, once per open.
  for (int d = 0; d < std::min(devices, HIPFILE_MAX_GPUS); ++d) {
    char uuid[HIPFILE_GPU_UUID_LEN] = {};
    if (gpu_.GetDeviceUuid(d, uuid) == hipSuccess) stats_.PublishUuid(d, uuid);
  }
  SetLogLevel(in_use_.log_level());
  SetTracing(in_use_.profile_nvtx());
  // hipFileParamEnvLogfilePath / LogDir; a file that cannot be opened is said and changes nothing.
  (void)UseLogFile(sys_, in_use_.log_file());
  io_pool_.Resize(in_use_.io_threads());
  async_pool_.Resize(in_use_.io_threads());
  const engine::EngineOptions options = EngineOptionsForOpenLocked();
  engine_ = std::make_shared<engine::SyncEngine>(sys_, gpu_, options, &io_pool_, &stats_);
  // What stream-ordered and batch I/O ask the device is asked now, for the thread's device: the
  // answer loads the copy kernels, and loading code while a stream waits (on a host function, or
  // on a stream-ordered operation) blocks until the stream moves - on the H200, for good when the
  // waiting stream waits for the loading thread. The engine pins its staging here for the same
  // reason. Other devices are set up when first used (PrepareDevice).
  int device = 0;
  if (gpu_.GetDevice(&device) == hipSuccess) PrepareDevice(device);
  count_ = 1;
  HF_LOG(kInfo, "driver opened on the %s runtime", gpu_.Name());
  return Status::Ok();
}

void Driver::PrepareDevice(int device) {
  if (device < 0 || gpu_.DeviceMemoryIsHostMemory()) return;
  const bool tracked = device < HIPFILE_MAX_GPUS;
  if (tracked && device_ready_[device].load(std::memory_order_acquire)) return;
  // Both answers are remembered by the runtime: threads racing here load the kernels once.
  (void)gpu_.SupportsStreamMemOps(device);
  (void)gpu_.SupportsCopyTable(device);
  if (tracked) device_ready_[device].store(true, std::memory_order_release);
}

Status Driver::EnsureOpenLocked() { return count_ == 0 ? InitializeLocked() : Status::Ok(); }

Status Driver::Open() {
  {
    MutexLock lock(mu_);
    if (count_ > 0) {
      ++count_;
      return Status::Ok();
    }
    HF_RETURN_IF_ERROR(InitializeLocked());
  }
  // Retired engines are not freed here: freeing pinned memory waits for every stream, and an
  // open must not wait for the program's streams (one may wait for this very thread). Only the
  // last close, the call that may wait for the device, frees them (the API fuzzer hung an open
  // behind a stream held by a host function).
  return Status::Ok();
}

Status Driver::Close() {
  std::vector<std::shared_ptr<File>> files;
  std::shared_ptr<engine::SyncEngine> engine;
  uint64_t closes = 0;
  {
    MutexLock lock(mu_);
    if (count_ == 0) return Status::Op(hipFileDriverNotInitialized);
    if (--count_ > 0) return Status::Ok();
    // Buffers first, then files (as hipFile). Operations in flight keep their own references.
    buffers_.Clear();
    files = files_.Clear();
    engine = std::move(engine_);
    closes = last_closes_.load() + 1;
    last_closes_.store(closes, std::memory_order_release);
  }
  // Before the engine's release below: work the hooks cancel gives its references back first.
  {
    MutexLock lock(hooks_mu_);
    for (const auto& [id, hook] : close_hooks_) hook(closes);
  }
  // The engine's pinned memory is freed only here, at a last close where no stream-ordered
  // operation is in flight (freeing waits for every stream): never by the operation that happens
  // to drop the last reference, at a moment the program cannot foresee (FreeRetiredEngines).
  if (engine != nullptr) {
    MutexLock lock(mu_);
    retired_engines_.push_back(std::move(engine));
  }
  FreeRetiredEngines();
  // Descriptors are closed and staging memory freed here, outside the lock.
  HF_LOG(kInfo, "driver closed; %zu file registration(s) dropped", files.size());
  return Status::Ok();
}

uint64_t Driver::AddCloseHook(CloseHook hook) {
  MutexLock lock(hooks_mu_);
  const uint64_t id = next_hook_++;
  close_hooks_.emplace(id, std::move(hook));
  return id;
}

void Driver::RemoveCloseHook(uint64_t id) {
  MutexLock lock(hooks_mu_);
  close_hooks_.erase(id);
}

int64_t Driver::UseCount() const {
  // A snapshot either way: the count may change as soon as the lock would be released.
  return count_.load();
}

Result<void*> Driver::RegisterHandle(int fd) {
  {
    MutexLock lock(mu_);
    if (files_.ContainsFd(fd)) {
      HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: fd %d is already registered", fd);
      stats_.RecordHandleRegister(false);
      return Status::Op(hipFileHandleAlreadyRegistered);
    }
  }
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd);
  if (!file.ok()) {
    stats_.RecordHandleRegister(false);
    return file.status();
  }
  const int direct_fd = (*file)->io().direct_fd;
  Result<void*> handle = Status::Op(hipFileInternalError);
  std::shared_ptr<File> unstored;  // a registration the driver could not open for; closed below
  {
    MutexLock lock(mu_);
    handle = files_.Insert(std::move(*file));
    if (handle.ok()) {
      if (const Status opened = EnsureOpenLocked(); !opened.ok()) {
        (void)files_.Remove(*handle, &unstored);
        handle = opened;
      }
    }
  }
  stats_.RecordHandleRegister(handle.ok());
  if (!handle.ok()) {  // another thread registered fd meanwhile, or no handle was left
    HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: fd %d: %s", fd,
                   handle.status().IsOp(hipFileHandleAlreadyRegistered)
                       ? "already registered"
                       : handle.status().ToString().c_str());
    return handle;
  }
  HF_LOG(kDebug, "fd %d registered as %p (O_DIRECT fd %d)", fd, *handle, direct_fd);
  // After the open, which may set the level (hipFileParamLoggingLevel).
  if (LogEnabled(LogLevel::kInfo)) LogRegistration(*handle);
  return handle;
}

void Driver::LogRegistration(const void* handle) {
  IoPathChoice choice;
  FileInfo info;  // a copy: no reference to the File is held past the lock
  {
    MutexLock lock(mu_);
    const std::shared_ptr<File> found = files_.Find(handle);
    if (engine_ == nullptr || found == nullptr) return;  // closed or deregistered meanwhile
    info = found->info();
    const engine::EngineOptions& options = engine_->options();
    choice.device_memory_staged = !gpu_.DeviceMemoryIsHostMemory();
    choice.page_cache = engine_->page_cache_enabled();
    choice.pin_after = std::max(options.page_cache_pin_after_uses, 1u);
    choice.residency_min_bytes = options.residency_min_bytes;
    choice.direct_reads = options.direct_reads;
    choice.direct_writes = options.direct_writes;
    choice.write_through = options.write_through;
    choice.allow_compat = in_use_.allow_compat_mode();
  }
  // The caller's descriptor's path, as the kernel has it now (a deleted file says so).
  const std::string link = "/proc/self/fd/" + std::to_string(info.client_fd);
  Result<std::string> path = sys_.ReadLink(link.c_str());
  const std::string shown = path.ok() ? *path : "(path unknown: " + path.status().ToString() + ")";
  HF_LOG(kInfo, "%s", DescribeRegistration(info, shown, choice).c_str());
}

void Driver::DeregisterHandle(const void* handle) {
  std::shared_ptr<File> removed;
  std::shared_ptr<engine::SyncEngine> engine;
  FileRegistry::RemoveResult result;
  {
    MutexLock lock(mu_);
    result = files_.Remove(handle, &removed);
    engine = engine_;
  }
  if (removed != nullptr && engine != nullptr) {
    // The file's pinned page-cache windows are unpinned now unless stream-ordered operations are
    // in flight; then they wait for a later deregistration or the driver close.
    engine->ForgetFile(removed->io());
    if (!RunWithoutStreamOps([&engine] { engine->UnpinRetired(); })) {
      HF_LOG(kDebug,
             "hipFileHandleDeregister(%p): page-cache pins kept until no stream-ordered "
             "operation is in flight",
             handle);
    }
  }
  stats_.RecordHandleDeregister(result == FileRegistry::RemoveResult::kRemoved);
  if (result == FileRegistry::RemoveResult::kUnknown) {
    HF_LOG(kDebug, "hipFileHandleDeregister(%p): not a registered handle; ignored", handle);
  } else if (result == FileRegistry::RemoveResult::kBusy) {
    HF_LOG(kWarn, "hipFileHandleDeregister(%p): operations are in flight; not deregistered",
           handle);
  }
  // `removed` closes the library's descriptor here, outside the lock.
}

Status Driver::RegisterBuffer(const void* ptr, size_t length, int flags) {
  {
    // hipFile opens the driver before it looks at the arguments, so a refused registration - NULL
    // included - leaves it open (its own system tests check hipFileUseCount() after one).
    MutexLock lock(mu_);
    if (const Status opened = EnsureOpenLocked(); !opened.ok()) {
      stats_.RecordBufRegister(false, -1, length);
      return opened;
    }
  }
  Result<Buffer> buffer = DescribeForRegistration(gpu_, ptr, length, flags);
  Status status = buffer.status();
  if (buffer.ok()) {
    MutexLock lock(mu_);
    status = buffers_.Insert(std::make_shared<Buffer>(*buffer));
    if (status.IsOp(hipFileMemoryAlreadyRegistered)) {
      HF_LOG_LIMITED(kWarn, "hipFileBufRegister: buffer %p is already registered", ptr);
    }
    // Again: a close since the open above must not leave a registration in a closed driver.
    if (status.ok()) {
      if (const Status opened = EnsureOpenLocked(); !opened.ok()) {
        (void)buffers_.Remove(ptr);
        status = opened;
      }
    }
  }
  stats_.RecordBufRegister(status.ok(), buffer.ok() ? buffer->device : -1, length);
  // The buffer's device is set up now, while the program is registering rather than waiting on
  // streams: its later I/O finds its kernels loaded.
  if (status.ok() && buffer->type == hipMemoryTypeDevice) PrepareDevice(buffer->device);
  return status;
}

Status Driver::DeregisterBuffer(const void* ptr) {
  Status status;
  int device = -1;
  size_t length = 0;
  {
    MutexLock lock(mu_);
    if (count_ == 0) {
      HF_LOG_LIMITED(kWarn, "hipFileBufDeregister: the driver is not open");
      return Status::Op(hipFileDriverClosing);
    }
    if (const std::shared_ptr<Buffer> buffer = buffers_.Find(ptr)) {
      device = buffer->device;
      length = buffer->length;
    }
    status = buffers_.Remove(ptr);
  }
  if (status.IsOp(hipFileMemoryNotRegistered)) {
    HF_LOG_LIMITED(kWarn, "hipFileBufDeregister: buffer %p is not registered", ptr);
  } else if (!status.ok()) {
    HF_LOG_LIMITED(kWarn, "hipFileBufDeregister: buffer %p has operations in flight", ptr);
  }
  stats_.RecordBufDeregister(status.ok(), device, length);
  return status;
}

Result<size_t> Driver::Read(const void* handle, void* buffer_base, size_t size, off_t file_offset,
                            off_t buffer_offset) {
  return Transfer(IoDirection::kRead, handle, buffer_base, size, file_offset, buffer_offset);
}

Result<size_t> Driver::Write(const void* handle, const void* buffer_base, size_t size,
                             off_t file_offset, off_t buffer_offset) {
  return Transfer(IoDirection::kWrite, handle, buffer_base, size, file_offset, buffer_offset);
}

Result<size_t> Driver::Transfer(IoDirection direction, const void* handle, const void* buffer_base,
                                size_t size, off_t file_offset, off_t buffer_offset) {
  Result<PreparedIo> io = Prepare(direction, handle, buffer_base, SyncEntry(direction));
  if (!io.ok()) {
    service_.RecordRefused(direction);
    return io.status();
  }
  return service_.Execute(*io, size, file_offset, buffer_offset);
}

Result<size_t> Driver::TransferHost(IoDirection direction, const void* handle, const void* buffer,
                                    size_t size, off_t file_offset) {
  const char* entry =
      direction == IoDirection::kRead ? "hipFileExtReadHost" : "hipFileExtWriteHost";
  PreparedIo io;
  Status looked_up;
  {
    MutexLock lock(mu_);
    looked_up = LookUpLocked(PrepareArgs{direction, handle, buffer, entry}, &io);
  }
  if (looked_up.ok() && buffer == nullptr && size > 0) {
    HF_LOG_LIMITED(kWarn, "%s: the buffer is null", entry);
    looked_up = Status::Op(hipFileInvalidValue);
  }
  if (!looked_up.ok()) {
    service_.RecordRefused(direction);
    return looked_up;
  }
  if (size == 0) {
    if (file_offset < 0) return Status::Errno(EINVAL);
    return size_t{0};
  }
  io.registered.reset();  // the caller's word, not a registration, says what the memory is
  io.buffer = Buffer{buffer, size, 0, hipMemoryTypeHost, 0};
  return service_.Execute(io, size, file_offset, 0);
}

Status Driver::LookUpLocked(const PrepareArgs& args, PreparedIo* io) const {
  // Rules 1-2: the driver, the handle, the buffer. References taken under the lock keep the file,
  // the registered buffer and the engine alive for the whole transfer.
  if (count_ == 0) {
    if (args.entry != nullptr) HF_LOG_LIMITED(kWarn, "%s: the driver is not open", args.entry);
    return Status::Errno(EINVAL);
  }
  io->direction = args.direction;
  io->buffer_base = args.buffer_base;
  io->entry = args.entry;
  io->file = files_.Find(args.handle);
  if (io->file == nullptr) {
    if (args.entry != nullptr) {
      HF_LOG_LIMITED(kWarn, "%s: handle %p is not registered", args.entry, args.handle);
    }
    return Status::Op(hipFileHandleNotRegistered);
  }
  io->registered = buffers_.Find(args.buffer_base);
  io->engine = engine_;
  io->allow_compat = in_use_.allow_compat_mode();
  return Status::Ok();
}

Status Driver::Describe(PreparedIo* io) {
  if (io->registered != nullptr) {
    io->buffer = *io->registered;
    return Status::Ok();
  }
  Result<Buffer> buffer = DescribeUnregistered(gpu_, io->buffer_base);
  if (!buffer.ok()) {
    if (io->entry != nullptr) {
      const Status s = buffer.status();
      const char* why =
          s.IsOp(hipFileHipMemoryTypeInvalid)   ? "is neither device memory nor pinned host memory"
          : s.IsOp(hipFileHipPointerRangeError) ? "lies outside its allocation"
          : s.IsOp(hipFileInvalidValue) ? "is not memory the GPU runtime knows the extent of"
                                        : "could not be looked up";
      HF_LOG_LIMITED(kWarn, "%s: unregistered buffer %p %s (%s)", io->entry, io->buffer_base, why,
                     s.ToString().c_str());
    }
    return buffer.status();
  }
  io->buffer = *buffer;
  return Status::Ok();
}

Result<PreparedIo> Driver::Prepare(IoDirection direction, const void* handle,
                                   const void* buffer_base, const char* entry) {
  PreparedIo io;
  {
    MutexLock lock(mu_);
    HF_RETURN_IF_ERROR(LookUpLocked(PrepareArgs{direction, handle, buffer_base, entry}, &io));
  }
  HF_RETURN_IF_ERROR(Describe(&io));
  return io;
}

std::vector<Result<PreparedIo>> Driver::PrepareMany(const PrepareArgs* args, size_t n) {
  std::vector<PreparedIo> ios(n);
  std::vector<Status> looked_up(n);
  {
    MutexLock lock(mu_);
    for (size_t i = 0; i < n; ++i) looked_up[i] = LookUpLocked(args[i], &ios[i]);
  }
  std::vector<Result<PreparedIo>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Status status = std::move(looked_up[i]);
    if (status.ok()) {
      // An unregistered buffer met before in this call is described as it was then.
      const PreparedIo* same = nullptr;
      if (ios[i].registered == nullptr) {
        for (size_t j = 0; j < i && same == nullptr; ++j) {
          if (out[j].ok() && out[j]->registered == nullptr &&
              out[j]->buffer_base == ios[i].buffer_base) {
            same = &*out[j];
          }
        }
      }
      if (same != nullptr) {
        ios[i].buffer = same->buffer;
      } else {
        status = Describe(&ios[i]);
      }
    }
    if (status.ok()) {
      out.emplace_back(std::move(ios[i]));
    } else {
      out.emplace_back(std::move(status));
    }
  }
  return out;
}

void Driver::FreeRetiredEngines() {
  std::vector<std::shared_ptr<engine::SyncEngine>> idle;
  {
    MutexLock lock(mu_);
    // An engine only the list holds is used by no transfer: none gets a new reference once it is
    // retired.
    auto busy = std::partition(retired_engines_.begin(), retired_engines_.end(),
                               [](const auto& engine) { return engine.use_count() == 1; });
    idle.assign(std::make_move_iterator(retired_engines_.begin()), std::make_move_iterator(busy));
    retired_engines_.erase(retired_engines_.begin(), busy);
  }
  if (idle.empty()) return;
  if (RunWithoutStreamOps([&idle] { idle.clear(); })) return;
  MutexLock lock(mu_);  // stream-ordered work in flight: at a later last close
  for (auto& engine : idle) retired_engines_.push_back(std::move(engine));
}

}  // namespace hipfile::core
