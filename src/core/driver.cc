// SPDX-License-Identifier: MIT
#include "core/driver.h"

#include <errno.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "core/io_rules.h"
#include "core/process_runtime.h"
#include "util/errors.h"
#include "util/log.h"

namespace hipfile::core {
namespace {

const char* SyncEntry(IoDirection direction) {
  return direction == IoDirection::kRead ? "hipFileRead" : "hipFileWrite";
}

const char* AsyncEntry(IoDirection direction) {
  return direction == IoDirection::kRead ? "hipFileReadAsync" : "hipFileWriteAsync";
}

// Why a transfer's offsets or range were refused, in a warn line: each argument against its
// bound. Called only on the refusal paths.
void LogRangeRefusal(const char* entry, const PreparedIo& io, size_t size, off_t file_offset,
                     off_t buffer_offset) {
  const char* const kind = io.registered != nullptr ? "registered" : "unregistered";
  if (file_offset < 0) {
    HF_LOG_LIMITED(kWarn, "%s: file_offset %lld is negative", entry,
                   static_cast<long long>(file_offset));
  } else if (buffer_offset < 0) {
    HF_LOG_LIMITED(kWarn, "%s: buffer_offset %lld is negative", entry,
                   static_cast<long long>(buffer_offset));
  } else if (static_cast<uint64_t>(buffer_offset) >= io.buffer.length) {
    HF_LOG_LIMITED(kWarn, "%s: buffer_offset %lld past the %s buffer's end (%zu bytes)", entry,
                   static_cast<long long>(buffer_offset), kind, io.buffer.length);
  } else {
    HF_LOG_LIMITED(kWarn, "%s: size %zu past the %s buffer's end (%zu bytes from offset %lld)",
                   entry, size, kind, io.buffer.length - static_cast<size_t>(buffer_offset),
                   static_cast<long long>(buffer_offset));
  }
}

}  // namespace

Driver::Driver(platform::Sys& sys, runtime::GpuRuntime& gpu, const Config& config)
    : sys_(sys),
      gpu_(gpu),
      max_rw_count_(MaxRwCount(sys.PageSize())),
      // The engine's way copies on the library's streams, which deadlock behind stream-ordered
      // operations waiting on shared hardware queues: refused wherever copies happen.
      async_staged_(config.async_staged || !gpu.DeviceMemoryIsHostMemory()),
      refused_unstaged_(!config.async_staged && !gpu.DeviceMemoryIsHostMemory()),
      next_(config),
      in_use_(config) {
  stats_.set_level(next_.stats_level());
}

Driver::~Driver() = default;

Driver& Driver::Global() {
  // Leaked on purpose: exit with registrations or I/O outstanding must not run destructors that
  // close descriptors or free memory under other threads.
  static Driver* driver = [] {
    const Config& config = ProcessConfig();  // first, so its log level applies to what follows
    auto* made = new Driver(platform::RealSys(), ProcessRuntime(), config);
    made->runtime_reason_ = ProcessRuntimeReason();
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
  SetLogLevel(in_use_.log_level());
  engine_ = std::make_shared<engine::SyncEngine>(sys_, gpu_, in_use_.ToEngineOptions());
  // What stream-ordered and batch I/O ask the device is asked now, for the thread's device: the
  // answer loads the copy kernels, and loading code while a stream waits (on a host function, or
  // on a stream-ordered operation) blocks until the stream moves - on the H200, for good when the
  // waiting stream waits for the loading thread. The engine pins its staging here for the same
  // reason.
  int device = 0;
  if (!gpu_.DeviceMemoryIsHostMemory() && gpu_.GetDevice(&device) == hipSuccess && device >= 0) {
    (void)gpu_.SupportsStreamMemOps(device);
    (void)gpu_.SupportsCopyTable(device);
  }
  count_ = 1;
  HF_LOG(kInfo, "driver opened on the %s runtime", gpu_.Name());
  return Status::Ok();
}

Status Driver::EnsureOpenLocked() { return count_ == 0 ? InitializeLocked() : Status::Ok(); }

Status Driver::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  if (count_ == 0) return InitializeLocked();
  ++count_;
  return Status::Ok();
}

Status Driver::Close() {
  std::vector<std::shared_ptr<File>> files;
  std::shared_ptr<engine::SyncEngine> engine;
  uint64_t closes = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
    std::lock_guard<std::mutex> lock(hooks_mu_);
    for (const auto& [id, hook] : close_hooks_) hook(closes);
  }
  // The last reference to the engine: its pinned memory is freed where no stream-ordered
  // operation can be waiting for the engine (freeing waits for every stream). Operations in
  // flight hold references of their own, so the engine then outlives them.
  if (engine.use_count() == 1) (void)RunWithoutStreamOps([&engine] { engine.reset(); });
  // Descriptors are closed and staging memory freed here, outside the lock.
  HF_LOG(kInfo, "driver closed; %zu file registration(s) dropped", files.size());
  return Status::Ok();
}

uint64_t Driver::AddCloseHook(CloseHook hook) {
  std::lock_guard<std::mutex> lock(hooks_mu_);
  const uint64_t id = next_hook_++;
  close_hooks_.emplace(id, std::move(hook));
  return id;
}

void Driver::RemoveCloseHook(uint64_t id) {
  std::lock_guard<std::mutex> lock(hooks_mu_);
  close_hooks_.erase(id);
}

int64_t Driver::UseCount() const {
  // A snapshot either way: the count may change as soon as the lock would be released.
  return count_.load();
}

Result<void*> Driver::RegisterHandle(int fd) {
  {
    std::lock_guard<std::mutex> lock(mu_);
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
    std::lock_guard<std::mutex> lock(mu_);
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
  return handle;
}

void Driver::DeregisterHandle(const void* handle) {
  std::shared_ptr<File> removed;
  std::shared_ptr<engine::SyncEngine> engine;
  FileRegistry::RemoveResult result;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
    std::lock_guard<std::mutex> lock(mu_);
    if (const Status opened = EnsureOpenLocked(); !opened.ok()) {
      stats_.RecordBufRegister(false, -1, length);
      return opened;
    }
  }
  Result<Buffer> buffer = DescribeForRegistration(gpu_, ptr, length, flags);
  Status status = buffer.status();
  if (buffer.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
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
  return status;
}

Status Driver::DeregisterBuffer(const void* ptr) {
  Status status;
  int device = -1;
  size_t length = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
    stats_.RecordIo(direction, -1, false, 0, 0, false);
    return io.status();
  }
  return Execute(*io, size, file_offset, buffer_offset);
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
    std::lock_guard<std::mutex> lock(mu_);
    HF_RETURN_IF_ERROR(LookUpLocked(PrepareArgs{direction, handle, buffer_base, entry}, &io));
  }
  HF_RETURN_IF_ERROR(Describe(&io));
  return io;
}

std::vector<Result<PreparedIo>> Driver::PrepareMany(const PrepareArgs* args, size_t n) {
  std::vector<PreparedIo> ios(n);
  std::vector<Status> looked_up(n);
  {
    std::lock_guard<std::mutex> lock(mu_);
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

Result<engine::IoRequest> Driver::Check(const PreparedIo& io, size_t size, off_t file_offset,
                                        off_t buffer_offset) const {
  // Rules 3-5: offsets, range, size clamp.
  const char* const entry = io.entry != nullptr ? io.entry : SyncEntry(io.direction);
  if (file_offset < 0 || buffer_offset < 0) {
    LogRangeRefusal(entry, io, size, file_offset, buffer_offset);
    return Status::Errno(EINVAL);
  }
  if (!IoRangeValid(io.buffer.length, size, buffer_offset)) {
    LogRangeRefusal(entry, io, size, file_offset, buffer_offset);
    return Status::Op(hipFileInvalidValue);
  }
  // Rule 6: this library has no kernel GPU-direct path, so every transfer takes the
  // compatibility path.
  if (!io.allow_compat) {
    HF_LOG_LIMITED(kError,
                   "%s refused: the compatibility path is disabled (HIPFILE_ALLOW_COMPAT_MODE / "
                   "hipFileParamPropertiesAllowCompatMode is false) and this machine has no "
                   "GPU-direct storage path",
                   entry);
    return Status::Op(hipFileInternalError);
  }
  engine::IoRequest request;
  request.write = io.direction == IoDirection::kWrite;
  request.file = &io.file->io();
  request.memory.ptr = const_cast<char*>(static_cast<const char*>(io.buffer_base)) + buffer_offset;
  request.memory.type = io.buffer.type;
  request.memory.device = io.buffer.device;
  request.size = std::min(size, max_rw_count_);
  request.offset = file_offset;
  return request;
}

void Driver::Record(const PreparedIo& io, const engine::IoRequest* request,
                    const Result<size_t>& moved, std::chrono::steady_clock::time_point start,
                    IoTally* tally, std::optional<std::chrono::steady_clock::time_point> end) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          end.value_or(std::chrono::steady_clock::now()) - start)
                          .count();
  const bool unaligned =
      request != nullptr &&
      !MeetsDioAlignment(*request->file, request->memory.ptr, request->size, request->offset);
  const uint64_t bytes = moved.ok() ? *moved : 0;
  const uint64_t us = request == nullptr ? 0 : static_cast<uint64_t>(micros);
  if (tally != nullptr) {
    tally->Record(io.direction, io.buffer.device, moved.ok(), bytes, us, unaligned);
  } else {
    stats_.RecordIo(io.direction, io.buffer.device, moved.ok(), bytes, us, unaligned);
  }
}

Result<size_t> Driver::Execute(const PreparedIo& io, size_t size, off_t file_offset,
                               off_t buffer_offset) {
  const auto start = std::chrono::steady_clock::now();
  const Result<engine::IoRequest> request = Check(io, size, file_offset, buffer_offset);
  if (!request.ok()) {
    Record(io, nullptr, request.status(), start);
    return request.status();
  }
  if (request->size == 0) return size_t{0};
  const Result<size_t> moved =
      request->write
          ? io.engine->Write(*request->file, request->memory, request->size, request->offset)
          : io.engine->Read(*request->file, request->memory, request->size, request->offset);
  Record(io, &*request, moved, start);
  return moved;
}

void Driver::ExecuteMany(const IoCall* calls, size_t n, Result<size_t>* results) {
  const auto start = std::chrono::steady_clock::now();
  IoTally tally(stats_);  // one update of the shared counters for the whole group
  // The calls that passed the rules, by engine (a batch may hold entries from before a driver
  // close and reopen): each engine runs its share at once.
  std::vector<engine::IoRequest> requests;
  std::vector<size_t> index;  // requests[j] belongs to calls[index[j]]
  std::vector<Result<size_t>> moved;
  std::vector<bool> done(n, false);
  for (size_t first = 0; first < n; ++first) {
    if (done[first]) continue;
    engine::SyncEngine* const engine = calls[first].io->engine.get();
    requests.clear();
    index.clear();
    for (size_t i = first; i < n; ++i) {
      const IoCall& call = calls[i];
      if (done[i] || call.io->engine.get() != engine) continue;
      done[i] = true;
      Result<engine::IoRequest> request =
          Check(*call.io, call.size, call.file_offset, call.buffer_offset);
      if (!request.ok()) {
        results[i] = request.status();
        Record(*call.io, nullptr, results[i], start, &tally);
      } else if (request->size == 0) {
        results[i] = size_t{0};
      } else {
        requests.push_back(*request);
        index.push_back(i);
      }
    }
    if (requests.empty()) continue;
    moved.assign(requests.size(), size_t{0});
    engine->RunMany(requests.data(), requests.size(), moved.data());
    const auto end = std::chrono::steady_clock::now();
    for (size_t j = 0; j < requests.size(); ++j) {
      results[index[j]] = std::move(moved[j]);
      Record(*calls[index[j]].io, &requests[j], results[index[j]], start, &tally, end);
    }
  }
}

Result<AsyncExecutor*> Driver::Async() {
  std::lock_guard<std::mutex> lock(async_mu_);
  if (async_ == nullptr) {
    // Its threads may be refused (a process limit): the call fails, and a later one tries again.
    HF_ASSIGN_OR_RETURN(async_, AsyncExecutor::Create(sys_, gpu_, 0));
  }
  return async_.get();
}

bool Driver::RunWithoutStreamOps(const std::function<void()>& fn) {
  std::lock_guard<std::mutex> lock(async_mu_);  // no executor is created meanwhile
  if (async_ != nullptr) return async_->RunIfIdle(fn);
  fn();
  return true;
}

namespace {

// What *bytes_p receives for a finished operation: bytes, or a negative code - a hipFileOpError_t
// for library errors (hipFileHipDriverError for GPU runtime errors), an errno value for system
// errors (distinguishable: errno values are below HIPFILE_BASE_ERR).
ssize_t AsyncResult(const Result<size_t>& moved) {
  if (moved.ok()) return static_cast<ssize_t>(*moved);
  const Status status = moved.status();
  switch (status.kind()) {
    case Status::Kind::kErrno:
      return -static_cast<ssize_t>(status.code());
    case Status::Kind::kOp:
      return -static_cast<ssize_t>(status.code());
    case Status::Kind::kGpu:
    case Status::Kind::kOk:
      break;
  }
  return -static_cast<ssize_t>(hipFileHipDriverError);
}

}  // namespace

Status Driver::SubmitAsync(IoDirection direction, const void* handle, const void* buffer_base,
                           size_t* size_p, off_t* file_offset_p, off_t* buffer_offset_p,
                           ssize_t* bytes_p, runtime::Stream stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (count_ == 0) {
      // hipFile (and cuFile) open the driver here but still refuse the call.
      HF_RETURN_IF_ERROR(InitializeLocked());
      HF_LOG_LIMITED(kWarn, "%s: the driver was not open (it is now; the call is still refused)",
                     AsyncEntry(direction));
      return Status::Op(hipFileInvalidValue);
    }
  }
  const char* const entry = AsyncEntry(direction);
  if (buffer_base == nullptr || size_p == nullptr || file_offset_p == nullptr ||
      buffer_offset_p == nullptr || bytes_p == nullptr) {
    const char* const which = buffer_base == nullptr       ? "buffer_base"
                              : size_p == nullptr          ? "size_p"
                              : file_offset_p == nullptr   ? "file_offset_p"
                              : buffer_offset_p == nullptr ? "buffer_offset_p"
                                                           : "bytes_p";
    HF_LOG_LIMITED(kWarn, "%s: %s is NULL", entry, which);
    return Status::Op(hipFileInvalidValue);
  }
  Result<PreparedIo> prepared = Prepare(direction, handle, buffer_base, entry);
  if (!prepared.ok()) {
    // A close racing with this call: report it as the closed-driver case above.
    if (prepared.status().kind() == Status::Kind::kErrno) return Status::Op(hipFileInvalidValue);
    return prepared.status();
  }
  const size_t size = std::min(*size_p, max_rw_count_);
  const off_t file_offset = *file_offset_p;
  const off_t buffer_offset = *buffer_offset_p;
  if (file_offset < 0 || buffer_offset < 0 ||
      !IoRangeValid(prepared->buffer.length, size, buffer_offset)) {
    LogRangeRefusal(entry, *prepared, size, file_offset, buffer_offset);
    return Status::Op(hipFileInvalidValue);
  }
  int stream_device = -1;
  if (const hipError_t e = gpu_.StreamGetDevice(stream, &stream_device); e != hipSuccess) {
    HF_LOG_LIMITED(kWarn, "%s: stream %p: the GPU runtime cannot say its device (%s)", entry,
                   static_cast<void*>(stream), Status::Gpu(e).ToString().c_str());
    return Status::Gpu(e);
  }
  if (stream_device != prepared->buffer.device) {
    HF_LOG_LIMITED(kWarn, "%s: the stream is on device %d, the buffer on device %d", entry,
                   stream_device, prepared->buffer.device);
    return Status::Op(hipFileInvalidValue);
  }

  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor_p, Async());
  AsyncExecutor& executor = *executor_p;
  auto op = std::make_unique<AsyncOp>();
  op->size_p = size_p;
  op->file_offset_p = file_offset_p;
  op->buffer_offset_p = buffer_offset_p;
  op->bytes_p = bytes_p;
  op->entry = entry;
  op->fixed_flags = executor.StreamFlags(stream);
  op->submitted = {size, file_offset, buffer_offset};
  // Shared by the two ways the executor may run it (async_executor.h).
  struct State {
    PreparedIo io;
    engine::IoRequest request;
    bool begun = false;
    std::chrono::steady_clock::time_point start;
  };
  auto state = std::make_shared<State>();
  state->io = std::move(*prepared);
  op->run = [this, state](const AsyncParams& p) {
    PreparedIo& io = state->io;
    const ssize_t result = AsyncResult(Execute(io, p.size, p.file_offset, p.buffer_offset));
    // The file and buffer are free for deregistration once the stream goes on; the engine
    // reference stays with the operation until the executor disposes of it (async_executor.h).
    io.file.reset();
    io.registered.reset();
    return result;
  };
  if (async_staged_ && !gpu_.DeviceMemoryIsHostMemory() &&
      state->io.buffer.type == hipMemoryTypeDevice) {
    // Device memory on a GPU: the copies go on the operation's own stream, and the workers move
    // bytes between the file and the executor's staging through the engine.
    auto staged = std::make_unique<AsyncStaged>();
    staged->write = direction == IoDirection::kWrite;
    staged->begin = [this, state](const AsyncParams& p) -> Result<StagedPlan> {
      state->start = std::chrono::steady_clock::now();
      Result<engine::IoRequest> request = Check(state->io, p.size, p.file_offset, p.buffer_offset);
      if (!request.ok()) {
        Record(state->io, nullptr, request.status(), state->start);
        return request.status();
      }
      state->request = *request;
      state->begun = true;
      return StagedPlan{request->memory.ptr, request->size, request->offset};
    };
    // The engine moves each chunk between the file and the pinned staging as it would for pinned
    // host memory: its policy (O_DIRECT for cold data, direct writes), its threads, its retry
    // rules, and no GPU call - so no worker waits for a stream.
    staged->move = [state](void* staging, size_t bytes, off_t offset) {
      const engine::IoRequest& r = state->request;
      const engine::IoMemory memory{staging, hipMemoryTypeHost, r.memory.device};
      return r.write ? state->io.engine->Write(*r.file, memory, bytes, offset)
                     : state->io.engine->Read(*r.file, memory, bytes, offset);
    };
    staged->finish = [this, state](const Result<size_t>& moved) {
      if (state->begun && state->request.size > 0) {
        Record(state->io, &state->request, moved, state->start);
      }
      state->io.file.reset();
      state->io.registered.reset();
      return AsyncResult(moved);
    };
    op->staged = std::move(staged);
  }
  *bytes_p = 0;
  return executor.Submit(stream, std::move(op));
}

Status Driver::RegisterStream(runtime::Stream stream, unsigned flags) {
  if ((flags & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) != 0) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileStreamRegister: flags 0x%x outside HIPFILE_STREAM_FLAGS_MASK (0x%x)",
                   flags, static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK));
    return Status::Op(hipFileInvalidValue);
  }
  int device = -1;
  if (const hipError_t e = gpu_.StreamGetDevice(stream, &device); e != hipSuccess) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileStreamRegister: stream %p: the GPU runtime cannot say its device (%s)",
                   static_cast<void*>(stream), Status::Gpu(e).ToString().c_str());
    return Status::Gpu(e);
  }
  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor, Async());
  return executor->RegisterStream(stream, flags);
}

Status Driver::DeregisterStream(runtime::Stream stream) {
  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor, Async());
  return executor->DeregisterStream(stream);
}

template <class Fn>
Status Driver::SetParameter(const char* name, int param, Fn&& set) {
  std::lock_guard<std::mutex> lock(mu_);
  ParamSet candidate = next_;
  HF_RETURN_IF_ERROR(set(candidate));  // the setter logs its refusals (it knows the value)
  if (count_ > 0) {
    HF_LOG_LIMITED(kWarn, "%s: parameter %d: the driver is open; set it before the driver opens",
                   name, param);
    return Status::Op(hipFileDriverAlreadyOpen);
  }
  next_ = std::move(candidate);
  return Status::Ok();
}

Status Driver::SetParameterSizeT(int param, size_t value) {
  return SetParameter("hipFileSetParameterSizeT", param, [&](ParamSet& p) {
    const Status status = p.SetSizeT(param, value);
    if (!status.ok()) {
      if (const char* rule = SizeTParamRule(param)) {
        HF_LOG_LIMITED(kWarn, "hipFileSetParameterSizeT: parameter %d: value %zu outside %s", param,
                       value, rule);
      } else {
        HF_LOG_LIMITED(kWarn, "hipFileSetParameterSizeT: parameter %d unknown (0..%zu)", param,
                       kSizeTParamCount - 1);
      }
    }
    return status;
  });
}

Status Driver::SetParameterBool(int param, bool value) {
  return SetParameter("hipFileSetParameterBool", param, [&](ParamSet& p) {
    const Status status = p.SetBool(param, value);
    if (!status.ok()) {
      HF_LOG_LIMITED(kWarn, "hipFileSetParameterBool: parameter %d unknown (0..%zu)", param,
                     kBoolParamCount - 1);
    }
    return status;
  });
}

Status Driver::SetParameterString(int param, const std::string& value) {
  return SetParameter("hipFileSetParameterString", param, [&](ParamSet& p) {
    const Status status = p.SetString(param, value);
    if (status.ok()) return status;
    if (param < 0 || static_cast<size_t>(param) >= kStringParamCount) {
      HF_LOG_LIMITED(kWarn, "hipFileSetParameterString: parameter %d unknown (0..%zu)", param,
                     kStringParamCount - 1);
    } else if (value.size() > kMaxStringParamLength) {
      HF_LOG_LIMITED(kWarn,
                     "hipFileSetParameterString: parameter %d: value of %zu characters longer "
                     "than %zu",
                     param, value.size(), kMaxStringParamLength);
    } else {
      HF_LOG_LIMITED(kWarn,
                     "hipFileSetParameterString: parameter %d: value \"%.64s\" is not a log "
                     "level (off, error, warn, info, debug, 0..4)",
                     param, value.c_str());
    }
    return status;
  });
}

Result<size_t> Driver::GetParameterSizeT(int param) const {
  std::lock_guard<std::mutex> lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetSizeT(param);
}

Result<bool> Driver::GetParameterBool(int param) const {
  std::lock_guard<std::mutex> lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetBool(param);
}

Result<std::string> Driver::GetParameterString(int param) const {
  std::lock_guard<std::mutex> lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetString(param);
}

template <class Fn>
Status Driver::DriverSetter(const char* name, Fn&& set) {
  std::lock_guard<std::mutex> lock(mu_);
  ParamSet candidate = next_;
  HF_RETURN_IF_ERROR(set(candidate));
  if (count_ > 0) {
    HF_LOG(kWarn, "%s: the driver is open; the value is ignored (set it before the driver opens)",
           name);
    return Status::Ok();
  }
  next_ = std::move(candidate);
  return Status::Ok();
}

Status Driver::SetPollMode(bool poll, size_t poll_threshold_kb) {
  return DriverSetter("hipFileDriverSetPollMode", [&](ParamSet& p) {
    HF_RETURN_IF_ERROR(p.SetBool(hipFileParamPropertiesUsePollMode, poll));
    return p.SetSizeT(hipFileParamPollthresholdSizeKB, poll_threshold_kb);
  });
}

Status Driver::SetMaxDirectIoSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxDirectIOSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, kb);
  });
}

Status Driver::SetMaxCacheSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxCacheSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB, kb);
  });
}

Status Driver::SetMaxPinnedMemSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxPinnedMemSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, kb);
  });
}

Status Driver::GetProperties(hipFileDriverProps_t* props) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (count_ == 0) return Status::Op(hipFileDriverNotInitialized);
  in_use_.FillProperties(props);
  return Status::Ok();
}

std::optional<engine::EngineOptions> Driver::EngineOptionsInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (engine_ == nullptr) return std::nullopt;
  return engine_->options();
}

}  // namespace hipfile::core
