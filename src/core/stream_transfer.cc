// SPDX-License-Identifier: MIT
#include "core/stream_transfer.h"

#include <errno.h>
#include <hipfile.h>

#include <memory>
#include <utility>

#include "core/io_result.h"
#include "util/log.h"

namespace hipfile::core {

StreamTransfer::StreamTransfer(IoService& service, PreparedIo io, bool staged)
    : service_(service), io_(std::move(io)), staged_(staged) {
  if (io_.direction == IoDirection::kWrite) {
    service_.StreamWriteBegins();
    write_counted_ = true;
  }
}

StreamTransfer::~StreamTransfer() { EndWrite(); }

void StreamTransfer::EndWrite() {
  if (!write_counted_) return;
  write_counted_ = false;
  service_.StreamWriteEnds();
}

ssize_t StreamTransfer::Run(const AsyncParams& params) {
  const ssize_t result =
      EncodeResult(service_.Execute(io_, params.size, params.file_offset, params.buffer_offset));
  LetGo();
  return result;
}

Result<StagedPlan> StreamTransfer::Begin(const AsyncParams& params) {
  start_ = std::chrono::steady_clock::now();
  Result<engine::IoRequest> request =
      service_.Check(io_, params.size, params.file_offset, params.buffer_offset);
  if (!request.ok()) {
    service_.Record(io_, nullptr, request.status(), start_);
    return request.status();
  }
  request_ = *request;
  begun_ = true;
  return StagedPlan{request_.memory.ptr, request_.size, request_.offset};
}

Result<StagedPlan> StreamTransfer::Look(const AsyncParams& params) {
  Result<engine::IoRequest> request =
      service_.Check(io_, params.size, params.file_offset, params.buffer_offset);
  if (!request.ok()) return request.status();  // not recorded: the stream may bind other values
  request_ = *request;
  begun_ = true;
  return StagedPlan{request_.memory.ptr, request_.size, request_.offset};
}

size_t StreamTransfer::DiskBytes(const AsyncParams& params) {
  if (Write()) return 0;
  Result<engine::IoRequest> request =
      service_.Check(io_, params.size, params.file_offset, params.buffer_offset);
  if (!request.ok()) return 0;  // refused when it runs, if still so
  return io_.engine->DiskBytes(*request->file, request->memory, request->size, request->offset,
                               request->allow_compat);
}

engine::ResidentPiece StreamTransfer::Resident(off_t offset, size_t max) {
  if (!begun_ || request_.write) return {};
  if (!windows_planned_) {
    windows_planned_ = true;
    try {
      windows_ = io_.engine->PlanStreamWindows(*request_.file, request_.memory, request_.size,
                                               request_.offset, request_.allow_compat);
    } catch (...) {
      windows_ = nullptr;  // out of memory: every byte is staged
    }
  }
  if (windows_ == nullptr) return {};
  engine::ResidentPiece piece = windows_->At(static_cast<uint64_t>(offset), max);
  if (piece.src != nullptr) paths_.Add(engine::IoPath::kPageCache, piece.bytes);
  return piece;
}

bool StreamTransfer::AllPinned() {
  if (!begun_ || request_.write) return false;
  std::unique_ptr<engine::StreamWindows> windows = io_.engine->PlanStreamWindows(
      *request_.file, request_.memory, request_.size, request_.offset, request_.allow_compat,
      /*look=*/true);
  if (windows == nullptr) return false;
  const auto begin = static_cast<uint64_t>(request_.offset);
  for (size_t done = 0; done < request_.size;) {
    const engine::ResidentPiece piece = windows->At(begin + done, request_.size - done);
    if (piece.src == nullptr || piece.bytes == 0) return false;
    done += piece.bytes;
  }
  return true;
}

Result<size_t> StreamTransfer::ReadCached(void* host, size_t bytes, off_t offset) {
  if (!begun_ || request_.write || service_.StreamWritesInFlight()) return Status::Errno(EAGAIN);
  return io_.engine->ReadCached(*request_.file, host, bytes, offset, request_.allow_compat,
                                &paths_);
}

void StreamTransfer::Unbegin() {
  windows_.reset();
  windows_planned_ = false;
  paths_ = engine::PathBytes();
  begun_ = false;
}

Result<size_t> StreamTransfer::Move(void* staging, size_t bytes, off_t offset) {
  // The slot is staging: with the compatibility path off, its bytes move by O_DIRECT only.
  const engine::IoMemory memory{staging, hipMemoryTypeHost, request_.memory.device, true};
  return request_.write ? io_.engine->Write(*request_.file, memory, bytes, offset,
                                            request_.allow_compat, &paths_)
                        : io_.engine->Read(*request_.file, memory, bytes, offset,
                                           request_.allow_compat, &paths_);
}

ssize_t StreamTransfer::Finish(const Result<size_t>& moved) {
  if (begun_ && request_.size > 0) {
    service_.Record(io_, &request_, moved, start_, nullptr, std::nullopt, &paths_);
  }
  LetGo();
  return EncodeResult(moved);
}

void StreamTransfer::LetGo() {
  EndWrite();  // a write's bytes are in the file (or it failed): reads may take them now
  io_.file.reset();
  io_.registered.reset();
  // The stream has copied from the windows (the executor waited for it): a deregistration after
  // the stream moves on may unpin them.
  windows_.reset();
  windows_planned_ = true;  // and none are planned again
}

// Work queued on a stream being captured is recorded into a graph, to run when the graph is
// launched, perhaps many times; a stream-ordered operation's file I/O runs on the host when the
// stream reaches it, which a graph cannot replay. Asked first: before 2026-12-05 the device
// question came first, and on an H100 a capture asked so ended invalidated.
Status RefuseCapturingStream(runtime::GpuRuntime& gpu, runtime::Stream stream, const char* entry) {
  bool capturing = false;
  const hipError_t e = gpu.StreamIsCapturing(stream, &capturing);
  if (e == hipSuccess && !capturing) return Status::Ok();
  if (e == hipSuccess || e == hipErrorStreamCaptureUnsupported) {
    HF_LOG_LIMITED(
        kWarn,
        "%s: stream %p %s a graph, which cannot record stream-ordered file I/O (it runs "
        "on the host when the stream reaches it); refused, nothing done",
        entry, static_cast<void*>(stream),
        e == hipSuccess ? "is being captured into" : "would wait for a stream captured into");
    return Status::Gpu(hipErrorStreamCaptureUnsupported);
  }
  HF_LOG_LIMITED(kWarn,
                 "%s: stream %p: the GPU runtime cannot say whether it is being captured (%s)",
                 entry, static_cast<void*>(stream), Status::Gpu(e).ToString().c_str());
  return Status::Gpu(e);
}

Status CheckStreamSubmission(const IoService& service, runtime::GpuRuntime& gpu,
                             const PreparedIo& io, const StreamSubmission& s) {
  if (!service.RangeValid(io, s.submitted.size, s.submitted.file_offset,
                          s.submitted.buffer_offset)) {
    return Status::Op(hipFileInvalidValue);
  }
  HF_RETURN_IF_ERROR(RefuseCapturingStream(gpu, s.stream, io.entry));
  int stream_device = -1;
  if (const hipError_t e = gpu.StreamGetDevice(s.stream, &stream_device); e != hipSuccess) {
    HF_LOG_LIMITED(kWarn, "%s: stream %p: the GPU runtime cannot say its device (%s)", io.entry,
                   static_cast<void*>(s.stream), Status::Gpu(e).ToString().c_str());
    return Status::Gpu(e);
  }
  if (stream_device != io.buffer.device) {
    HF_LOG_LIMITED(kWarn, "%s: the stream is on device %d, the buffer on device %d", io.entry,
                   stream_device, io.buffer.device);
    return Status::Op(hipFileInvalidValue);
  }
  return Status::Ok();
}

Status SubmitStreamOrdered(IoService& service, AsyncExecutor& executor, bool stage, PreparedIo io,
                           const StreamSubmission& s) {
  auto op = std::make_unique<AsyncOp>();
  // A value fixed by the call itself may live only as long as the call: its pointer is dropped.
  op->size_p = (s.fixed_flags & HIPFILE_STREAM_FIXED_FILE_SIZE) ? nullptr : s.size_p;
  op->file_offset_p =
      (s.fixed_flags & HIPFILE_STREAM_FIXED_FILE_OFFSET) ? nullptr : s.file_offset_p;
  op->buffer_offset_p =
      (s.fixed_flags & HIPFILE_STREAM_FIXED_BUF_OFFSET) ? nullptr : s.buffer_offset_p;
  op->fixed_flags = s.fixed_flags;
  op->bytes_p = s.bytes_p;
  op->entry = io.entry;
  op->max_rw_count = service.max_rw_count();
  op->submitted = s.submitted;
  const bool staged = stage && io.buffer.type == hipMemoryTypeDevice;
  op->work = std::make_unique<StreamTransfer>(service, std::move(io), staged);
  *s.bytes_p = 0;
  return executor.Submit(s.stream, std::move(op));
}

}  // namespace hipfile::core
