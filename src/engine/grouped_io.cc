// SPDX-License-Identifier: MIT
#include "engine/grouped_io.h"

#include <algorithm>
#include <vector>

#include "engine/retry.h"
#include "util/align.h"

namespace hipfile::engine {
namespace {

// Slices start on this boundary, so a slice could also take an O_DIRECT read.
constexpr size_t kSliceAlign = 4096;

// The POSIX result of one entry's system call: the bytes that moved, else the error, else 0 (end
// of file).
Result<size_t> PosixResult(const Transfer& t) {
  if (t.bytes > 0 || t.status.ok()) return t.bytes;
  return t.status;
}

// One round: entries [begin, end) whose slices fit the buffer at the given offsets.
class Round {
 public:
  Round(EngineContext& cx, Resources& res, const IoRequest* ios, Result<size_t>* results,
        IoPath* paths)
      : cx_(cx), res_(res), ios_(ios), results_(results), paths_(paths) {}

  void Read(size_t begin, size_t end, const std::vector<size_t>& slice) {
    // Every entry's pread at once (one io_uring submission where available), then the copies.
    std::vector<RingTransfer> reads;
    for (size_t i = begin; i < end; ++i) {
      reads.push_back(RingRead(ios_[i].file->buffered_fd, res_.buffer(0) + slice[i - begin],
                               ios_[i].size, ios_[i].offset));
    }
    std::vector<Transfer> done(reads.size());
    Via(begin, end, cx_.ring.RunAll(reads.data(), reads.size(), done.data()));
    std::vector<size_t> entry;  // entries with bytes to copy, bytes in results_
    std::vector<runtime::CopyOp> copies;
    for (size_t i = begin; i < end; ++i) {
      const Transfer& t = done[i - begin];
      results_[i] = PosixResult(t);
      if (t.bytes == 0) continue;
      entry.push_back(i);
      copies.push_back({ios_[i].memory.ptr, reads[i - begin].buf, t.bytes});
    }
    CopyAndWait(entry, copies, hipMemcpyHostToDevice);
  }

  void Write(size_t begin, size_t end, const std::vector<size_t>& slice) {
    std::vector<size_t> entry;
    std::vector<runtime::CopyOp> copies;
    for (size_t i = begin; i < end; ++i) {
      entry.push_back(i);
      copies.push_back({res_.buffer(0) + slice[i - begin], ios_[i].memory.ptr, ios_[i].size});
    }
    std::vector<RingTransfer> writes;
    std::vector<size_t> written;  // writes[j] is written[j]'s
    for (const size_t i : CopyAndWait(entry, copies, hipMemcpyDeviceToHost)) {
      writes.push_back(RingWrite(ios_[i].file->buffered_fd, res_.buffer(0) + slice[i - begin],
                                 ios_[i].size, ios_[i].offset));
      written.push_back(i);
    }
    std::vector<Transfer> done(writes.size());
    Via(begin, end, cx_.ring.RunAll(writes.data(), writes.size(), done.data()));
    for (size_t j = 0; j < writes.size(); ++j) results_[written[j]] = PosixResult(done[j]);
  }

 private:
  void Via(size_t begin, size_t end, bool ringed) {
    if (paths_ == nullptr) return;
    std::fill(paths_ + begin, paths_ + end, ringed ? IoPath::kIoUring : IoPath::kBuffered);
  }

  // Queues the entries' copies in one call (one driver call where the runtime has a batch copy)
  // and waits once. A copy that was not queued fails its entry, a failed wait every queued one.
  // Returns the entries whose copy completed.
  std::vector<size_t> CopyAndWait(const std::vector<size_t>& entry,
                                  const std::vector<runtime::CopyOp>& copies, hipMemcpyKind kind) {
    std::vector<size_t> queued;
    if (copies.empty()) return queued;
    std::vector<hipError_t> errors(copies.size(), hipSuccess);
    (void)cx_.gpu.MemcpyBatchAsync(copies.data(), copies.size(), kind, res_.stream(),
                                   errors.data());
    for (size_t j = 0; j < entry.size(); ++j) {
      if (errors[j] == hipSuccess) {
        queued.push_back(entry[j]);
      } else {
        results_[entry[j]] = Status::Gpu(errors[j]);
      }
    }
    if (queued.empty()) return queued;
    const Status waited = res_.Wait();
    if (waited.ok()) return queued;
    for (const size_t i : queued) results_[i] = waited;
    return {};
  }

  EngineContext& cx_;
  Resources& res_;
  const IoRequest* ios_;
  Result<size_t>* results_;
  IoPath* paths_;
};

}  // namespace

void RunGroup(EngineContext& cx, const IoRequest* ios, size_t n, Result<size_t>* results,
              IoPath* paths) {
  if (n == 0) return;
  if (paths != nullptr) std::fill(paths, paths + n, IoPath::kBuffered);
  Resources res(cx);
  Status acquired = res.EnsureLease(1);
  if (acquired.ok()) acquired = res.EnsureStream(ios[0].memory.device);
  if (!acquired.ok()) {
    std::fill(results, results + n, Result<size_t>(acquired));
    return;
  }
  Round round(cx, res, ios, results, paths);
  const size_t capacity = cx.staging.buffer_bytes();
  std::vector<size_t> slice;
  for (size_t begin = 0; begin < n;) {
    // Pack entries of one direction into the buffer; a change of direction ends the round so
    // each round has one kind of copy.
    slice.clear();
    size_t used = 0;
    size_t end = begin;
    while (end < n && ios[end].write == ios[begin].write &&
           (end == begin || used + ios[end].size <= capacity)) {
      slice.push_back(used);
      used = AlignUp(used + ios[end].size, kSliceAlign);
      ++end;
    }
    if (ios[begin].write) {
      round.Write(begin, end, slice);
    } else {
      round.Read(begin, end, slice);
    }
    begin = end;
  }
}

}  // namespace hipfile::engine
