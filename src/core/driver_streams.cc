// SPDX-License-Identifier: MIT
// Driver: stream-ordered I/O - the executor, submissions and stream registration (core/driver.h).
// The rest of the Driver is in driver.cc and driver_params.cc.
#include <utility>

#include "core/driver.h"
#include "core/stream_transfer.h"
#include "util/log.h"

namespace hipfile::core {
namespace {

const char* AsyncEntry(IoDirection direction) {
  return direction == IoDirection::kRead ? "hipFileReadAsync" : "hipFileWriteAsync";
}

}  // namespace

Result<AsyncExecutor*> Driver::Async() {
  if (AsyncExecutor* const made = async_made_.load(std::memory_order_acquire)) return made;
  MutexLock lock(async_mu_);
  if (async_ == nullptr) {
    // Its threads may be refused (a process limit): the call fails, and a later one tries again.
    HF_ASSIGN_OR_RETURN(async_,
                        AsyncExecutor::Create(sys_, gpu_, async_pool_, AsyncExecutor::kMaxChannels,
                                              &async_stage_stats_, &stats_));
    async_->SetStagingBlocks(stream_staging_blocks_.load(std::memory_order_relaxed));
    async_->SetDeviceScratchBytes(device_scratch_bytes_.load(std::memory_order_relaxed));
    async_->SetRunIdleBytes(async_run_idle_bytes_);
    async_->SetCopyAtSubmission(async_copy_at_submission_);
    async_->SetReadAtSubmission(async_read_at_submission_);
    async_->SetAheadStream(async_ahead_stream_);
    async_->SetCopyRuns(async_copy_runs_);
    async_->SetRunTableOnDevice(async_run_table_on_device_);
    async_->SetLargeChunksFrom(async_large_chunks_from_);
    async_->SetAheadPartBytes(async_ahead_part_bytes_);
    async_->SetChooseAheadWay(async_choose_ahead_way_);
    async_->SetQuietSubmissions(async_quiet_streams_);
    async_made_.store(async_.get(), std::memory_order_release);
  }
  return async_.get();
}

bool Driver::RunWithoutStreamOps(const std::function<void()>& fn) {
  MutexLock lock(async_mu_);  // no executor is created meanwhile
  if (async_ != nullptr) return async_->RunIfIdle(fn);
  fn();
  return true;
}

Status Driver::SubmitAsync(IoDirection direction, const void* handle, const void* buffer_base,
                           size_t* size_p, off_t* file_offset_p, off_t* buffer_offset_p,
                           ssize_t* bytes_p, runtime::Stream stream, unsigned fixed_flags) {
  // Open is the common case, read without mu_ (count_ is atomic; a close racing with this call
  // is met again under the lock by Prepare, below).
  if (count_.load(std::memory_order_acquire) == 0) {
    MutexLock lock(mu_);
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
  const StreamSubmission submission{
      size_p,
      file_offset_p,
      buffer_offset_p,
      bytes_p,
      stream,
      {std::min(*size_p, service_.max_rw_count()), *file_offset_p, *buffer_offset_p},
      fixed_flags | async_assumed_fixed_};
  HF_RETURN_IF_ERROR(CheckStreamSubmission(service_, gpu_, *prepared, submission));
  // The stream's device (the buffer's, checked above) before anything is queued on it.
  PrepareDevice(prepared->buffer.device);
  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor, Async());
  return SubmitStreamOrdered(service_, *executor, async_staged_ && !gpu_.DeviceMemoryIsHostMemory(),
                             std::move(*prepared), submission);
}

Status Driver::RegisterStream(runtime::Stream stream, unsigned flags) {
  if ((flags & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) != 0) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileStreamRegister: flags 0x%x outside HIPFILE_STREAM_FLAGS_MASK (0x%x)",
                   flags, static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK));
    return Status::Op(hipFileInvalidValue);
  }
  HF_RETURN_IF_ERROR(RefuseCapturingStream(gpu_, stream, "hipFileStreamRegister"));
  int device = -1;
  if (const hipError_t e = gpu_.StreamGetDevice(stream, &device); e != hipSuccess) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileStreamRegister: stream %p: the GPU runtime cannot say its device (%s)",
                   static_cast<void*>(stream), Status::Gpu(e).ToString().c_str());
    return Status::Gpu(e);
  }
  PrepareDevice(device);
  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor, Async());
  return executor->RegisterStream(stream, flags);
}

Status Driver::DeregisterStream(runtime::Stream stream) {
  HF_ASSIGN_OR_RETURN(AsyncExecutor* const executor, Async());
  return executor->DeregisterStream(stream);
}

}  // namespace hipfile::core
