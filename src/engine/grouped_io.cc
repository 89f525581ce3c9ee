#include "engine/grouped_io.h"

#include <algorithm>
#include <vector>

#include "engine/copy_wait.h"
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

// The staging buffer and lane of one group, given back at the end.
class GroupResources {
 public:
  explicit GroupResources(EngineContext& cx) : cx_(cx) {}
  ~GroupResources() {
    if (lane_.stream != nullptr) cx_.streams.Release(device_, lane_);
    cx_.staging.Release(&lease_);
  }
  GroupResources(const GroupResources&) = delete;
  GroupResources& operator=(const GroupResources&) = delete;

  Status Acquire(int device) {
    HF_RETURN_IF_ERROR(cx_.staging.Acquire(1, &lease_));
    Result<Lane> lane = cx_.streams.Acquire(device);
    if (!lane.ok()) return lane.status();
    lane_ = *lane;
    device_ = device;
    return Status::Ok();
  }
  char* buffer() const { return static_cast<char*>(lease_.buffers[0]); }
  runtime::Stream stream() const { return lane_.stream; }
  Status Wait() const { return WaitForLane(cx_.gpu, lane_, cx_.copy_spin); }

 private:
  EngineContext& cx_;
  StagingPool::Lease lease_;
  Lane lane_;
  int device_ = 0;
};

// One round: entries [begin, end) whose slices fit the buffer at the given offsets.
class Round {
 public:
  Round(EngineContext& cx, GroupResources& res, const IoRequest* ios, Result<size_t>* results)
      : cx_(cx), res_(res), ios_(ios), results_(results) {}

  void Read(size_t begin, size_t end, const std::vector<size_t>& slice) {
    // Every entry's pread at once (one io_uring submission where available), then the copies.
    std::vector<RingTransfer> reads(end - begin);
    for (size_t i = begin; i < end; ++i) {
      RingTransfer& t = reads[i - begin];
      t.kind = platform::RingOp::Kind::kRead;
      t.fd = ios_[i].file->buffered_fd;
      t.buf = res_.buffer() + slice[i - begin];
      t.size = ios_[i].size;
      t.offset = ios_[i].offset;
    }
    std::vector<Transfer> done(reads.size());
    RunSystemCalls(reads, &done);
    std::vector<size_t> copied;  // entries whose copy is queued, bytes in results_
    for (size_t i = begin; i < end; ++i) {
      const Transfer& t = done[i - begin];
      results_[i] = PosixResult(t);
      if (t.bytes == 0) continue;
      const hipError_t e = cx_.gpu.MemcpyAsync(ios_[i].memory.ptr, reads[i - begin].buf, t.bytes,
                                               hipMemcpyHostToDevice, res_.stream());
      if (e != hipSuccess) {
        results_[i] = Status::Gpu(e);
        continue;
      }
      copied.push_back(i);
    }
    FinishCopies(copied);
  }

  void Write(size_t begin, size_t end, const std::vector<size_t>& slice) {
    std::vector<size_t> copied;
    for (size_t i = begin; i < end; ++i) {
      const IoRequest& io = ios_[i];
      const hipError_t e = cx_.gpu.MemcpyAsync(res_.buffer() + slice[i - begin], io.memory.ptr,
                                               io.size, hipMemcpyDeviceToHost, res_.stream());
      if (e != hipSuccess) {
        results_[i] = Status::Gpu(e);
        continue;
      }
      copied.push_back(i);
    }
    FinishCopies(copied);
    std::vector<RingTransfer> writes;
    std::vector<size_t> entry;  // writes[j] is entry[j]'s
    for (const size_t i : copied) {
      if (!results_[i].ok()) continue;  // the wait failed: nothing to write
      RingTransfer& t = writes.emplace_back();
      t.kind = platform::RingOp::Kind::kWrite;
      t.fd = ios_[i].file->buffered_fd;
      t.buf = res_.buffer() + slice[i - begin];
      t.size = ios_[i].size;
      t.offset = ios_[i].offset;
      entry.push_back(i);
    }
    std::vector<Transfer> done(writes.size());
    RunSystemCalls(writes, &done);
    for (size_t j = 0; j < writes.size(); ++j) results_[entry[j]] = PosixResult(done[j]);
  }

 private:
  // The transfers' system calls: through the ring when the engine has one, else in turn.
  void RunSystemCalls(const std::vector<RingTransfer>& t, std::vector<Transfer>* done) {
    if (t.empty()) return;
    if (cx_.ring != nullptr) return cx_.ring->RunAll(t.data(), t.size(), done->data());
    for (size_t j = 0; j < t.size(); ++j) {
      (*done)[j] = t[j].kind == platform::RingOp::Kind::kRead
                       ? PreadFull(cx_.sys, t[j].fd, t[j].buf, t[j].size, t[j].offset)
                       : PwriteFull(cx_.sys, t[j].fd, t[j].buf, t[j].size, t[j].offset);
    }
  }

  // One wait for every queued copy; a failure fails each of them.
  void FinishCopies(const std::vector<size_t>& copied) {
    if (copied.empty()) return;
    const Status waited = res_.Wait();
    if (waited.ok()) return;
    for (const size_t i : copied) results_[i] = waited;
  }

  EngineContext& cx_;
  GroupResources& res_;
  const IoRequest* ios_;
  Result<size_t>* results_;
};

}  // namespace

void RunGroup(EngineContext& cx, const IoRequest* ios, size_t n, Result<size_t>* results) {
  if (n == 0) return;
  GroupResources res(cx);
  const Status acquired = res.Acquire(ios[0].memory.device);
  if (!acquired.ok()) {
    std::fill(results, results + n, Result<size_t>(acquired));
    return;
  }
  Round round(cx, res, ios, results);
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
