// SPDX-License-Identifier: MIT
#include "core/batch/batch_rules.h"

#include <errno.h>

#include <chrono>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/io_rules.h"
#include "util/log.h"

namespace hipfile::core {

namespace {

// The integer stored in a C enum field. Read as the enum, a value outside its enumerators is
// undefined behaviour in C++ (the caller is C, where any int is fine), so it is copied out raw.
template <class E>
std::underlying_type_t<E> RawValue(const E& field) {
  std::underlying_type_t<E> value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

constexpr const char* kSubmit = "hipFileBatchIOSubmit";

// Why entry i's offsets or range were refused, each argument against its bound.
void LogRangeRefusal(unsigned i, const hipFileIOParams_t& params, const PreparedIo& io) {
  const int64_t file_offset = params.u.batch.file_offset;
  const int64_t buffer_offset = params.u.batch.devPtr_offset;
  const char* const kind = io.registered != nullptr ? "registered" : "unregistered";
  if (file_offset < 0 || buffer_offset < 0) {
    HF_LOG_LIMITED(kWarn, "%s: entry %u: %s %lld is negative", kSubmit, i,
                   file_offset < 0 ? "file_offset" : "devPtr_offset",
                   static_cast<long long>(file_offset < 0 ? file_offset : buffer_offset));
  } else if (static_cast<uint64_t>(buffer_offset) >= io.buffer.length) {
    HF_LOG_LIMITED(kWarn, "%s: entry %u: devPtr_offset %lld past the %s buffer's end (%zu bytes)",
                   kSubmit, i, static_cast<long long>(buffer_offset), kind, io.buffer.length);
  } else {
    HF_LOG_LIMITED(kWarn,
                   "%s: entry %u: size %zu past the %s buffer's end (%zu bytes from offset %lld)",
                   kSubmit, i, params.u.batch.size, kind,
                   io.buffer.length - static_cast<size_t>(buffer_offset),
                   static_cast<long long>(buffer_offset));
  }
}

// One entry's rules, with what the driver's lookups said of it. Refusals are logged with the
// entry's index i (the lookups log nothing for batch entries).
Result<BatchTransfer> ValidateEntry(unsigned i, const hipFileIOParams_t& params,
                                    Result<PreparedIo> io) {
  if (RawValue(params.mode) != hipFileBatch) {
    HF_LOG_LIMITED(kWarn, "%s: entry %u: mode %d is not hipFileBatch (%d)", kSubmit, i,
                   static_cast<int>(RawValue(params.mode)), static_cast<int>(hipFileBatch));
    return Status::Op(hipFileInvalidValue);
  }
  const auto opcode = RawValue(params.opcode);
  if (opcode != hipFileBatchRead && opcode != hipFileBatchWrite) {
    HF_LOG_LIMITED(kWarn, "%s: entry %u: opcode %d is neither hipFileBatchRead nor Write", kSubmit,
                   i, static_cast<int>(opcode));
    return Status::Op(hipFileInvalidValue);
  }
  if (!io.ok()) {
    // Prepare's errno EINVAL is its "driver closed" answer.
    if (io.status().IsErrno(EINVAL)) {
      HF_LOG_LIMITED(kWarn, "%s: entry %u: the driver is not open", kSubmit, i);
      return Status::Op(hipFileDriverNotInitialized);
    }
    HF_LOG_LIMITED(kWarn, "%s: entry %u: handle %p, buffer %p: %s", kSubmit, i, params.fh,
                   params.u.batch.devPtr_base, io.status().ToString().c_str());
    return io.status();
  }
  const int64_t file_offset = params.u.batch.file_offset;
  const int64_t buffer_offset = params.u.batch.devPtr_offset;
  if (file_offset < 0 || buffer_offset < 0 ||
      !IoRangeValid(io->buffer.length, params.u.batch.size, static_cast<off_t>(buffer_offset))) {
    LogRangeRefusal(i, params, *io);
    return Status::Op(hipFileInvalidValue);
  }
  BatchTransfer transfer;
  transfer.cookie = params.cookie;
  transfer.io = std::move(*io);
  transfer.io.entry = kSubmit;
  transfer.size = params.u.batch.size;
  transfer.file_offset = static_cast<off_t>(file_offset);
  transfer.buffer_offset = static_cast<off_t>(buffer_offset);
  return transfer;
}

}  // namespace

Result<std::vector<BatchTransfer>> ValidateBatchEntries(Driver& driver,
                                                        const hipFileIOParams_t* params,
                                                        unsigned nr) {
  std::vector<Driver::PrepareArgs> args(nr);
  for (unsigned i = 0; i < nr; ++i) {
    args[i].direction =
        RawValue(params[i].opcode) == hipFileBatchWrite ? IoDirection::kWrite : IoDirection::kRead;
    args[i].handle = params[i].fh;
    args[i].buffer_base = params[i].u.batch.devPtr_base;
  }
  std::vector<Result<PreparedIo>> prepared = driver.PrepareMany(args.data(), nr);
  std::vector<BatchTransfer> entries;
  entries.reserve(nr);
  for (unsigned i = 0; i < nr; ++i) {
    Result<BatchTransfer> transfer = ValidateEntry(i, params[i], std::move(prepared[i]));
    if (!transfer.ok()) {
      HF_LOG(kDebug, "hipFileBatchIOSubmit: entry %u of %u refused: %s", i, nr,
             transfer.status().ToString().c_str());
      return transfer.status();
    }
    entries.push_back(std::move(*transfer));
  }
  return entries;
}

Result<BatchDeadline> BatchDeadlineFrom(const struct timespec* timeout) {
  if (timeout == nullptr) return BatchDeadline();
  if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000L) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileBatchIOGetStatus: timeout {%lld s, %ld ns} is not a time (seconds >= "
                   "0, nanoseconds 0..999999999)",
                   static_cast<long long>(timeout->tv_sec), static_cast<long>(timeout->tv_nsec));
    return Status::Op(hipFileInvalidValue);
  }
  if (timeout->tv_sec > kMaxBatchWaitSeconds) return BatchDeadline();
  return BatchDeadline(std::chrono::steady_clock::now() + std::chrono::seconds(timeout->tv_sec) +
                       std::chrono::nanoseconds(timeout->tv_nsec));
}

}  // namespace hipfile::core
