// SPDX-License-Identifier: MIT
#include "core/io_service.h"

#include <errno.h>
#include <hipfile.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/io_rules.h"
#include "util/log.h"

namespace hipfile::core {
namespace {

const char* SyncEntry(IoDirection direction) {
  return direction == IoDirection::kRead ? "hipFileRead" : "hipFileWrite";
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

IoService::IoService(long page_size, Stats& stats)
    : max_rw_count_(MaxRwCount(page_size)), stats_(stats) {}

bool IoService::RangeValid(const PreparedIo& io, size_t size, off_t file_offset,
                           off_t buffer_offset) const {
  if (file_offset >= 0 && buffer_offset >= 0 &&
      IoRangeValid(io.buffer.length, size, buffer_offset)) {
    return true;
  }
  LogRangeRefusal(io.entry != nullptr ? io.entry : SyncEntry(io.direction), io, size, file_offset,
                  buffer_offset);
  return false;
}

void IoService::RecordRefused(IoDirection direction) {
  stats_.RecordIo(direction, -1, false, 0, 0, false);
}

Result<engine::IoRequest> IoService::Check(const PreparedIo& io, size_t size, off_t file_offset,
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
  // Rule 6, the compatibility switch, is the engine's: a transfer is refused only where its plan
  // needs the compatibility path - buffered I/O between the page cache and staging - and the
  // switch is off (engine/sync_io.h). The direct paths (pinned page-cache windows, O_DIRECT into
  // or out of staging, host memory moved by the syscalls themselves) stay open.
  engine::IoRequest request;
  request.write = io.direction == IoDirection::kWrite;
  request.file = &io.file->io();
  request.memory.ptr = const_cast<char*>(static_cast<const char*>(io.buffer_base)) + buffer_offset;
  request.memory.type = io.buffer.type;
  request.memory.device = io.buffer.device;
  request.size = std::min(size, max_rw_count_);
  request.offset = file_offset;
  request.allow_compat = io.allow_compat;
  return request;
}

void IoService::Record(const PreparedIo& io, const engine::IoRequest* request,
                       const Result<size_t>& moved, std::chrono::steady_clock::time_point start,
                       IoTally* tally, std::optional<std::chrono::steady_clock::time_point> end,
                       const engine::PathBytes* paths) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          end.value_or(std::chrono::steady_clock::now()) - start)
                          .count();
  const bool unaligned =
      request != nullptr &&
      !MeetsDioAlignment(*request->file, request->memory.ptr, request->size, request->offset);
  // A failure's size is the size asked for (its ais-stats size bucket).
  const uint64_t bytes = moved.ok() ? *moved : request != nullptr ? request->size : 0;
  const uint64_t us = request == nullptr ? 0 : static_cast<uint64_t>(micros);
  if (tally != nullptr) {
    tally->Record(io.direction, io.buffer.device, moved.ok(), bytes, us, unaligned, paths);
  } else {
    stats_.RecordIo(io.direction, io.buffer.device, moved.ok(), bytes, us, unaligned, paths);
  }
}

Result<size_t> IoService::Execute(const PreparedIo& io, size_t size, off_t file_offset,
                                  off_t buffer_offset) {
  const auto start = std::chrono::steady_clock::now();
  const Result<engine::IoRequest> request = Check(io, size, file_offset, buffer_offset);
  if (!request.ok()) {
    Record(io, nullptr, request.status(), start);
    return request.status();
  }
  if (request->size == 0) return size_t{0};
  engine::PathBytes paths;
  const Result<size_t> moved =
      request->write ? io.engine->Write(*request->file, request->memory, request->size,
                                        request->offset, request->allow_compat, &paths)
                     : io.engine->Read(*request->file, request->memory, request->size,
                                       request->offset, request->allow_compat, &paths);
  Record(io, &*request, moved, start, nullptr, std::nullopt, &paths);
  return moved;
}

void IoService::ExecuteMany(const IoCall* calls, size_t n, Result<size_t>* results,
                            engine::PathBytes* out_paths) {
  const auto start = std::chrono::steady_clock::now();
  IoTally tally(stats_);  // one update of the shared counters for the whole group
  // The calls that passed the rules, by engine (a batch may hold entries from before a driver
  // close and reopen): each engine runs its share at once.
  std::vector<engine::IoRequest> requests;
  std::vector<size_t> index;  // requests[j] belongs to calls[index[j]]
  std::vector<Result<size_t>> moved;
  std::vector<engine::PathBytes> paths;
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
    paths.assign(requests.size(), engine::PathBytes{});
    engine->RunMany(requests.data(), requests.size(), moved.data(), paths.data());
    const auto end = std::chrono::steady_clock::now();
    for (size_t j = 0; j < requests.size(); ++j) {
      results[index[j]] = std::move(moved[j]);
      Record(*calls[index[j]].io, &requests[j], results[index[j]], start, &tally, end, &paths[j]);
      if (out_paths != nullptr) out_paths[index[j]] = paths[j];
    }
  }
}

}  // namespace hipfile::core
