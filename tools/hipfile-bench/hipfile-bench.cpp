// SPDX-License-Identifier: MIT
// hipfile-bench: moves a data set between a file and GPU memory with several threads and prints
// gdsio's result line (or JSON), for hipFile's sync path and the baselines it must beat.
//
//   hipfile-bench -f /data/file -d 0 -w 8 -s 8G -i 8M -x 0 -I 0 [-T 10] [-V] [--json]
//
// `hipfile-bench -h` (options.cpp) documents every flag and transfer type; data_set.h the data set
// and the marker by which the tool knows it made the file. Without -T, each thread passes once
// over its share of the data set; with -T, threads loop until the time is up.
//
// Latency is per operation. For -x 5 it runs from the submitting call to the host seeing the
// hipEvent recorded after the operation complete; the host waits on the oldest operation's event
// (hipEventSynchronize) when the window is full, as a stream completes in order. The events are
// blocking-sync ones: a thread waiting on a default event spins a core, and 16 threads spinning
// on the H200's 16 cores starved the library's own threads (1.8k IOPS against 25k with 8).
// For -x 6 it runs from hipFileBatchIOSubmit to the hipFileBatchIOGetStatus call that returned the
// entry's event.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "async_stages.h"
#include "async_ways.h"
#include "copy_waits.h"
#include "data_set.h"
#include "options.h"
#include "page_cache.h"
#include "path_shares.h"

namespace hipfile_bench {
namespace {

struct ThreadResult {
  // Operations started once the clock runs (after --ramp), and their bytes and latencies.
  uint64_t bytes = 0;
  uint64_t ops = 0;
  uint64_t all_ops = 0;  // and those of the ramp
  std::vector<double> latencies_us;
  bool failed = false;
  // When its last operation was done, before its tear-down; unset where it never started.
  std::chrono::steady_clock::time_point finished{};
};

// The clock starts once every thread has made its buffers, registrations and streams, and each
// thread's time ends at its last operation, before it frees them: a run's time is its
// operations'. (Allocating, registering and freeing GPU memory took a sizeable part of a one-pass
// run of 4 GiB on the H200: 14.9 GB/s there where the same shape looping reads 50 GiB/s.)
double CpuSeconds();

// With --ramp the threads start `ramp` seconds before the clock does: operations started before
// counted() are not counted, and the run's time, cores and library statistics begin there.
class StartLine {
 public:
  StartLine(int threads, double seconds, double ramp)
      : threads_(threads), seconds_(seconds), ramp_(ramp) {}
  // Waits for the other threads; the last one to arrive starts them (and the clock, without a
  // ramp).
  void Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    if (++arrived_ == threads_) {
      cpu_start_ = CpuSeconds();
      start_ = std::chrono::steady_clock::now();
      counted_ = start_ + Duration(ramp_);
      deadline_ = counted_ + Duration(seconds_);
      open_ = true;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [this] { return open_; });
  }
  // Until every thread has arrived (or given up: Arrival).
  void WaitOpen() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }
  // All valid once Arrive (or WaitOpen) has returned.
  std::chrono::steady_clock::time_point start() const { return start_; }
  std::chrono::steady_clock::time_point counted() const { return counted_; }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }
  double cpu_start() const { return cpu_start_; }

 private:
  static std::chrono::steady_clock::duration Duration(double seconds) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
  }
  std::mutex mu_;
  std::condition_variable cv_;
  const int threads_;
  const double seconds_;
  const double ramp_;
  int arrived_ = 0;
  bool open_ = false;
  double cpu_start_ = 0;
  std::chrono::steady_clock::time_point start_, counted_, deadline_;
};

// A thread's arrival at the start line: Go() once set up; on the way out if it never got there
// (a set-up that failed still lets the others start).
class Arrival {
 public:
  explicit Arrival(StartLine& line) : line_(line) {}
  ~Arrival() { Go(); }
  Arrival(const Arrival&) = delete;
  Arrival& operator=(const Arrival&) = delete;
  void Go() {
    if (!arrived_) line_.Arrive();
    arrived_ = true;
  }

 private:
  StartLine& line_;
  bool arrived_ = false;
};

#define BENCH_HIP(call)                                                                   \
  do {                                                                                    \
    const hipError_t e_ = (call);                                                         \
    if (e_ != hipSuccess) {                                                               \
      std::fprintf(stderr, "hipfile-bench: %s failed: %s\n", #call, hipGetErrorName(e_)); \
      r->failed = true;                                                                   \
      return;                                                                             \
    }                                                                                     \
  } while (0)

struct Shared {
  const Options* o;
  hipFileHandle_t fh = nullptr;
  int fd = -1;
  int direct_fd = -1;
  unsigned char* map = nullptr;
  uint64_t file_size = 0;  // at open; a read ending there may be short
  StartLine* line = nullptr;
};

bool HipOk(hipError_t e, const char* what) {
  if (e == hipSuccess) return true;
  std::fprintf(stderr, "hipfile-bench: %s failed: %s\n", what, hipGetErrorName(e));
  return false;
}

// A hipFileRead/Write result that is not a byte count, in words: -1 is errno's, a larger negative
// value a hipFile error (or, past the hipFile range, a HIP runtime error).
std::string DescribeResult(ssize_t n, int saved_errno) {
  char text[256];
  if (n == -1) {
    std::snprintf(text, sizeof text, "-1: %s", std::strerror(saved_errno));
  } else if (n < -1 && -n >= HIPFILE_BASE_ERR) {
    std::snprintf(text, sizeof text, "%zd: %s (%s)", n, hipFileExtOpErrorName(static_cast<int>(-n)),
                  hipFileGetOpErrorString(static_cast<hipFileOpError_t>(-n)));
  } else if (n < -1) {
    std::snprintf(text, sizeof text, "%zd: %s", n, hipGetErrorName(static_cast<hipError_t>(-n)));
  } else {
    std::snprintf(text, sizeof text, "%zd bytes", n);
  }
  return text;
}

bool HipFileOk(hipFileError_t e, const char* what) {
  if (e.err == hipFileSuccess) return true;
  if (IS_HIP_DRV_ERR(e)) {
    std::fprintf(stderr, "hipfile-bench: %s failed: %s\n", what, hipGetErrorName(HIP_DRV_ERR(e)));
  } else {
    std::fprintf(stderr, "hipfile-bench: %s failed: %s (%s)\n", what, hipFileExtOpErrorName(e.err),
                 hipFileGetOpErrorString(e.err));
  }
  return false;
}

// The file offsets one thread's operations use, in issue order: its own share of the data set
// for sequential types, uniform over the data set for random ones; ends at the deadline (-T) or
// after one pass over the share. Made once the start line is open. With --rate, Next returns when
// the operation is due: thread t's i-th at start + (i + t / threads) x threads / rate, so the
// threads' operations interleave evenly; one that is late goes at once (a run that cannot keep
// the rate shows it in its IOPS).
class OffsetSequence {
 public:
  OffsetSequence(const Shared& s, int t)
      : o_(*s.o),
        deadline_(s.line->deadline()),
        ios_total_(std::max<uint64_t>(o_.size / o_.io_size, 1)),
        per_thread_(std::max<uint64_t>(ios_total_ / static_cast<uint64_t>(o_.threads), 1)),
        first_(per_thread_ * static_cast<uint64_t>(t)),
        rng_(1234 + static_cast<uint64_t>(t)),
        start_(s.line->start()),
        interval_s_(o_.rate > 0 ? o_.threads / o_.rate : 0),
        phase_(static_cast<double>(t) / o_.threads) {
    // The kernel may stretch a sleep by the thread's timer slack (50 us by default), longer than
    // the gap between one thread's operations at a few hundred thousand per second.
    if (interval_s_ > 0) (void)::prctl(PR_SET_TIMERSLACK, 1000ul, 0ul, 0ul, 0ul);
  }

  bool Next(uint64_t* off) {
    if (o_.seconds > 0) {
      if (std::chrono::steady_clock::now() >= deadline_) return false;
    } else if (i_ >= per_thread_) {
      return false;
    }
    if (interval_s_ > 0) {
      const auto due = Due();
      if (o_.seconds > 0 && due >= deadline_) return false;
      std::this_thread::sleep_until(due);
    }
    const uint64_t index =
        IsRandom(o_) ? rng_() % ios_total_ : (first_ + i_ % per_thread_) % ios_total_;
    ++i_;
    *off = index * o_.io_size;
    return true;
  }

  // Whether Next would return without sleeping (always, unpaced).
  bool NextIsDue() const { return interval_s_ == 0 || std::chrono::steady_clock::now() >= Due(); }

 private:
  const Options& o_;
  const std::chrono::steady_clock::time_point deadline_;
  const uint64_t ios_total_;
  const uint64_t per_thread_;
  const uint64_t first_;
  std::mt19937_64 rng_;
  const std::chrono::steady_clock::time_point start_;
  const double interval_s_;  // between this thread's operations with --rate, else 0
  const double phase_;
  uint64_t i_ = 0;

  std::chrono::steady_clock::time_point Due() const {
    return start_ +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>((static_cast<double>(i_) + phase_) * interval_s_));
  }
};

// An operation of `bytes` started at `started` and done at `end`: counted where it started once
// the clock ran (--ramp).
void Record(const Shared& s, ThreadResult* r, std::chrono::steady_clock::time_point started,
            std::chrono::steady_clock::time_point end, uint64_t bytes) {
  ++r->all_ops;
  if (started < s.line->counted()) return;
  r->latencies_us.push_back(std::chrono::duration<double, std::micro>(end - started).count());
  r->bytes += bytes;
  ++r->ops;
}

// Before a write: puts the pattern of `off` into `dev` so the file can be checked afterwards.
bool StageWriteData(const Options& o, void* dev, uint64_t off) {
  if (!o.verify || !IsWrite(o)) return true;
  std::vector<unsigned char> data(o.io_size);
  FillPattern(data.data(), data.size(), off);
  return HipOk(hipMemcpy(dev, data.data(), data.size(), hipMemcpyHostToDevice), "hipMemcpy");
}

// After an operation of `n` bytes at `off` through `dev`: the bytes count is right (a read may
// be short only where the file ends) and, with -V, the data is the pattern.
bool CheckCompleted(const Shared& s, const void* dev, uint64_t off, int64_t n) {
  const Options& o = *s.o;
  const int64_t io = static_cast<int64_t>(o.io_size);
  const bool short_at_eof =
      !IsWrite(o) && n >= 0 && n < io && off + static_cast<uint64_t>(n) >= s.file_size;
  if (n != io && !short_at_eof) {
    if (n < 0 && -n >= HIPFILE_BASE_ERR) {
      std::fprintf(stderr, "hipfile-bench: %s at %" PRIu64 " failed: %s\n",
                   IsWrite(o) ? "write" : "read", off, HIPFILE_ERRSTR(-n));
    } else if (n < 0) {
      std::fprintf(stderr, "hipfile-bench: %s at %" PRIu64 " failed: %s\n",
                   IsWrite(o) ? "write" : "read", off, std::strerror(static_cast<int>(-n)));
    } else {
      std::fprintf(stderr,
                   "hipfile-bench: %s at %" PRIu64 " moved %" PRId64 " of %" PRId64 " bytes\n",
                   IsWrite(o) ? "write" : "read", off, n, io);
    }
    return false;
  }
  if (!o.verify || n == 0) return true;
  const size_t len = static_cast<size_t>(n);
  std::vector<unsigned char> check(len);
  if (IsWrite(o)) {
    if (::pread(s.fd, check.data(), len, static_cast<off_t>(off)) != static_cast<ssize_t>(len)) {
      std::perror("hipfile-bench: pread for -V");
      return false;
    }
  } else if (!HipOk(hipMemcpy(check.data(), dev, len, hipMemcpyDeviceToHost), "hipMemcpy")) {
    return false;
  }
  return CheckPattern(check.data(), len, off);
}

// The GPU buffers of a queued type, one per operation slot; -x 6 always registers them, -x 5
// with -b. Writes start from the pattern of offset 0, as in RunThread.
class SlotBuffers {
 public:
  ~SlotBuffers() {
    for (size_t k = 0; k < dev_.size(); ++k) {
      if (registered_[k]) (void)hipFileBufDeregister(dev_[k]);
      if (dev_[k]) (void)hipFree(dev_[k]);
    }
  }

  bool Allocate(const Options& o, int count, bool register_them) {
    std::vector<unsigned char> data(IsWrite(o) ? o.io_size : 0);
    FillPattern(data.data(), data.size(), 0);
    dev_.assign(static_cast<size_t>(count), nullptr);
    registered_.assign(static_cast<size_t>(count), false);
    for (size_t k = 0; k < dev_.size(); ++k) {
      if (!HipOk(hipMalloc(&dev_[k], o.io_size), "hipMalloc")) return false;
      if (IsWrite(o) && !HipOk(hipMemcpy(dev_[k], data.data(), data.size(), hipMemcpyHostToDevice),
                               "hipMemcpy")) {
        return false;
      }
      if (register_them) {
        if (!HipFileOk(hipFileBufRegister(dev_[k], o.io_size, 0), "hipFileBufRegister")) {
          return false;
        }
        registered_[k] = true;
      }
    }
    return true;
  }

  void* operator[](size_t k) const { return dev_[k]; }

 private:
  std::vector<void*> dev_;
  std::vector<bool> registered_;
};

// One stream-ordered operation: the variables hipFile*Async reads and writes through pointers,
// kept alive (and untouched) until the event recorded after it has completed.
struct AsyncSlot {
  size_t size = 0;
  hoff_t file_offset = 0;
  hoff_t buffer_offset = 0;
  ssize_t bytes = 0;
  hipEvent_t done = nullptr;
  std::chrono::steady_clock::time_point submitted;
};

// -x 5: a window of -Q operations on this thread's registered non-blocking stream; when it is
// full, waits for the oldest operation's event and reuses its slot. Paced (--rate), it also waits
// for the oldest while the next operation is not yet due, so an operation's latency ends when it
// completes, not when the window next fills; with --wait-when-full it does not. An event is
// recorded after every --event-every K-th operation (each, by default), in that operation's
// slot, and after the newest when the thread must wait for an operation no event follows yet; a
// wait for an event completes every operation up to the one it follows.
bool RunAsyncOps(const Shared& s, int t, hipStream_t stream, std::vector<AsyncSlot>& slots,
                 const SlotBuffers& bufs, ThreadResult* r) {
  const Options& o = *s.o;
  const size_t depth = slots.size();
  const uint64_t every = static_cast<uint64_t>(o.event_every);
  OffsetSequence seq(s, t);
  uint64_t head = 0;  // operations submitted
  uint64_t tail = 0;  // operations completed
  // The operations an event follows, oldest first; all at or past `tail`, each holding its own
  // slot's event (a slot is reused only once its operation completed).
  std::deque<uint64_t> evented;
  const auto record_after = [&](uint64_t op) {
    evented.push_back(op);
    return HipOk(hipEventRecord(slots[op % depth].done, stream), "hipEventRecord");
  };
  bool more = true;
  for (;;) {
    uint64_t off = 0;
    while (more && head - tail < depth && (head == tail || o.wait_when_full || seq.NextIsDue()) &&
           (more = seq.Next(&off))) {
      const size_t k = head % depth;
      AsyncSlot& slot = slots[k];
      if (!StageWriteData(o, bufs[k], off)) return false;
      slot.size = o.io_size;
      slot.file_offset = static_cast<hoff_t>(off);
      slot.buffer_offset = 0;
      slot.submitted = std::chrono::steady_clock::now();
      const hipFileError_t e = IsWrite(o)
                                   ? hipFileWriteAsync(s.fh, bufs[k], &slot.size, &slot.file_offset,
                                                       &slot.buffer_offset, &slot.bytes, stream)
                                   : hipFileReadAsync(s.fh, bufs[k], &slot.size, &slot.file_offset,
                                                      &slot.buffer_offset, &slot.bytes, stream);
      if (!HipFileOk(e, IsWrite(o) ? "hipFileWriteAsync" : "hipFileReadAsync")) return false;
      ++head;
      if (head % every == 0 && !record_after(head - 1)) return false;
    }
    if (head == tail) return true;
    if ((evented.empty() || evented.back() < tail) && !record_after(head - 1)) return false;
    const uint64_t last = evented.front();
    evented.pop_front();
    if (!HipOk(hipEventSynchronize(slots[last % depth].done), "hipEventSynchronize")) return false;
    const auto end = std::chrono::steady_clock::now();
    for (; tail <= last; ++tail) {
      const size_t k = tail % depth;
      const AsyncSlot& slot = slots[k];
      if (!CheckCompleted(s, bufs[k], static_cast<uint64_t>(slot.file_offset), slot.bytes)) {
        return false;
      }
      Record(s, r, slot.submitted, end, static_cast<uint64_t>(slot.bytes));
    }
  }
}

void RunAsyncThread(const Shared& s, int t, ThreadResult* r) {
  const Options& o = *s.o;
  Arrival arrival(*s.line);
  r->failed = true;
  if (!HipOk(hipSetDevice(o.device), "hipSetDevice")) return;
  SlotBuffers bufs;
  if (!bufs.Allocate(o, o.queue_depth, o.register_buffers)) return;
  std::vector<AsyncSlot> slots(static_cast<size_t>(o.queue_depth));
  hipStream_t stream = nullptr;
  if (!HipOk(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreate")) return;
  bool ok = true;
  for (AsyncSlot& slot : slots) {
    ok = ok &&
         HipOk(hipEventCreateWithFlags(&slot.done, hipEventDisableTiming | hipEventBlockingSync),
               "hipEventCreate");
  }
  // The values are fixed at submission, so hipFile need not read them again when they run;
  // --late-binding leaves that unsaid, as a caller that may change them must.
  unsigned flags = o.late_binding
                       ? 0u
                       : HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                             HIPFILE_STREAM_FIXED_FILE_SIZE;
  if (o.io_size % 4096 == 0) flags |= HIPFILE_STREAM_PAGE_ALIGNED_INPUTS;
  const bool registered =
      ok && HipFileOk(hipFileStreamRegister(stream, flags), "hipFileStreamRegister");
  arrival.Go();
  ok = registered && RunAsyncOps(s, t, stream, slots, bufs, r);
  // Whatever happened, nothing may still be in flight when the slots and buffers go away.
  ok = HipOk(hipStreamSynchronize(stream), "hipStreamSynchronize") && ok;
  r->finished = std::chrono::steady_clock::now();
  if (registered) (void)hipFileStreamDeregister(stream);
  for (AsyncSlot& slot : slots) {
    if (slot.done) (void)hipEventDestroy(slot.done);
  }
  (void)hipStreamDestroy(stream);
  r->failed = !ok;
}

// -x 6: one batch kept full. Each slot is a registered buffer and at most one entry in flight;
// every event returned refills its slot with the next offset.
bool RunBatchOps(const Shared& s, int t, hipFileBatchHandle_t batch, const SlotBuffers& bufs,
                 ThreadResult* r) {
  const Options& o = *s.o;
  const size_t depth = static_cast<size_t>(o.queue_depth);
  std::vector<hipFileIOParams_t> params(depth);
  std::vector<hipFileIOEvents_t> events(depth);
  std::vector<uint64_t> slot_off(depth);
  std::vector<std::chrono::steady_clock::time_point> submitted(depth);
  OffsetSequence seq(s, t);
  bool more = true;
  size_t in_flight = 0;
  size_t n = 0;  // entries in `params` waiting to be submitted
  auto queue = [&](size_t k) -> bool {
    uint64_t off = 0;
    if (!more || !(more = seq.Next(&off))) return true;
    if (!StageWriteData(o, bufs[k], off)) return false;
    hipFileIOParams_t& p = params[n++];
    p = {};
    p.mode = hipFileBatch;
    p.u.batch.devPtr_base = bufs[k];
    p.u.batch.file_offset = static_cast<int64_t>(off);
    p.u.batch.devPtr_offset = 0;
    p.u.batch.size = o.io_size;
    p.fh = s.fh;
    p.opcode = IsWrite(o) ? hipFileBatchWrite : hipFileBatchRead;
    p.cookie = reinterpret_cast<void*>(static_cast<uintptr_t>(k));
    slot_off[k] = off;
    return true;
  };
  auto submit = [&]() -> bool {
    if (n == 0) return true;
    const auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) {
      submitted[reinterpret_cast<uintptr_t>(params[i].cookie)] = now;
    }
    if (!HipFileOk(hipFileBatchIOSubmit(batch, static_cast<unsigned>(n), params.data(), 0),
                   "hipFileBatchIOSubmit")) {
      return false;
    }
    in_flight += n;
    n = 0;
    return true;
  };
  for (size_t k = 0; k < depth; ++k) {
    if (!queue(k)) return false;
  }
  if (!submit()) return false;
  while (in_flight > 0) {
    unsigned nr = static_cast<unsigned>(depth);
    if (!HipFileOk(hipFileBatchIOGetStatus(batch, 1, &nr, events.data(), nullptr),
                   "hipFileBatchIOGetStatus")) {
      return false;
    }
    const auto end = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < nr; ++i) {
      const hipFileIOEvents_t& ev = events[i];
      const uintptr_t k = reinterpret_cast<uintptr_t>(ev.cookie);
      if (k >= depth) {
        std::fprintf(stderr, "hipfile-bench: batch event with an unknown cookie %p\n", ev.cookie);
        return false;
      }
      --in_flight;
      const int64_t ret = static_cast<int64_t>(ev.ret);
      if (ev.status != hipFileComplete) {
        std::fprintf(stderr, "hipfile-bench: batch entry at %" PRIu64 " ended with status %d\n",
                     slot_off[k], static_cast<int>(ev.status));
        if (ret < 0) CheckCompleted(s, bufs[k], slot_off[k], ret);  // prints the error
        return false;
      }
      if (!CheckCompleted(s, bufs[k], slot_off[k], ret)) return false;
      Record(s, r, submitted[k], end, static_cast<uint64_t>(ret));
      if (!queue(k)) return false;
    }
    if (!submit()) return false;
  }
  return true;
}

void RunBatchThread(const Shared& s, int t, ThreadResult* r) {
  const Options& o = *s.o;
  Arrival arrival(*s.line);
  r->failed = true;
  if (!HipOk(hipSetDevice(o.device), "hipSetDevice")) return;
  SlotBuffers bufs;
  if (!bufs.Allocate(o, o.queue_depth, true)) return;
  hipFileBatchHandle_t batch = nullptr;
  if (!HipFileOk(hipFileBatchIOSetUp(&batch, static_cast<unsigned>(o.queue_depth)),
                 "hipFileBatchIOSetUp")) {
    return;
  }
  arrival.Go();
  const bool ok = RunBatchOps(s, t, batch, bufs, r);
  r->finished = std::chrono::steady_clock::now();
  // Cancels what is queued and waits for running entries before the buffers are released.
  hipFileBatchIODestroy(batch);
  r->failed = !ok;
}

void RunThread(const Shared& s, int t, ThreadResult* r) {
  const Options& o = *s.o;
  if (o.xfer == 5) return RunAsyncThread(s, t, r);
  if (o.xfer == 6) return RunBatchThread(s, t, r);
  Arrival arrival(*s.line);
  BENCH_HIP(hipSetDevice(o.device));
  const size_t io = static_cast<size_t>(o.io_size);
  void* dev = nullptr;
  void* host = nullptr;
  if (o.xfer != 1 && o.xfer != 10) BENCH_HIP(hipMalloc(&dev, io));
  if (o.xfer == 2 || o.xfer == 9) BENCH_HIP(hipHostMalloc(&host, io, 0));
  if ((o.xfer == 1 || o.xfer == 10) && ::posix_memalign(&host, 4096, io) != 0) {
    r->failed = true;
    return;
  }
  if (o.xfer == 0 && o.register_buffers && hipFileBufRegister(dev, io, 0).err != hipFileSuccess) {
    std::fprintf(stderr, "hipfile-bench: hipFileBufRegister failed\n");
  }
  std::vector<unsigned char> check(o.verify ? io : 0);
  // A write moves the bytes of `dev` (-x 0, 2, 4) or `host` (-x 1, 10). Without -V they hold the
  // pattern of offset 0 for every operation; with -V each operation gets its own offset's pattern
  // below, in whichever buffer it writes from.
  std::vector<unsigned char> data(IsWrite(o) ? io : 0);
  if (IsWrite(o) && o.xfer != 9) {
    FillPattern(data.data(), io, 0);
    if (dev) BENCH_HIP(hipMemcpy(dev, data.data(), io, hipMemcpyHostToDevice));
    if (host) std::memcpy(host, data.data(), io);
  }

  arrival.Go();
  OffsetSequence seq(s, t);
  uint64_t off = 0;
  while (seq.Next(&off)) {
    if (o.verify && IsWrite(o) && o.xfer != 9) {
      FillPattern(data.data(), io, off);
      if (dev) BENCH_HIP(hipMemcpy(dev, data.data(), io, hipMemcpyHostToDevice));
      if (host) std::memcpy(host, data.data(), io);
    }
    const auto start = std::chrono::steady_clock::now();
    ssize_t n = static_cast<ssize_t>(io);
    switch (o.xfer) {
      case 0:
        n = IsWrite(o) ? hipFileWrite(s.fh, dev, io, static_cast<hoff_t>(off), 0)
                       : hipFileRead(s.fh, dev, io, static_cast<hoff_t>(off), 0);
        break;
      case 1:
        n = IsWrite(o) ? ::pwrite(s.direct_fd, host, io, static_cast<off_t>(off))
                       : ::pread(s.direct_fd, host, io, static_cast<off_t>(off));
        break;
      case 10:
        n = IsWrite(o) ? ::pwrite(s.fd, host, io, static_cast<off_t>(off))
                       : ::pread(s.fd, host, io, static_cast<off_t>(off));
        break;
      case 2:
        if (IsWrite(o)) {
          BENCH_HIP(hipMemcpy(host, dev, io, hipMemcpyDeviceToHost));
          n = ::pwrite(s.fd, host, io, static_cast<off_t>(off));
        } else {
          n = ::pread(s.fd, host, io, static_cast<off_t>(off));
          if (n > 0) BENCH_HIP(hipMemcpy(dev, host, static_cast<size_t>(n), hipMemcpyHostToDevice));
        }
        break;
      case 4:
        if (IsWrite(o)) {
          BENCH_HIP(hipMemcpy(s.map + off, dev, io, hipMemcpyDeviceToHost));
        } else {
          BENCH_HIP(hipMemcpy(dev, s.map + off, io, hipMemcpyHostToDevice));
        }
        break;
      case 9:
        BENCH_HIP(hipMemcpy(dev, host, io, hipMemcpyHostToDevice));
        break;
    }
    const auto end = std::chrono::steady_clock::now();
    if (n != static_cast<ssize_t>(io)) {
      const int saved_errno = errno;
      std::fprintf(stderr, "hipfile-bench: %s at %" PRIu64 " returned %s, expected %zu bytes\n",
                   IsWrite(o) ? "write" : "read", off, DescribeResult(n, saved_errno).c_str(), io);
      r->failed = true;
      break;
    }
    Record(s, r, start, end, io);
    if (o.verify && o.xfer != 9) {
      if (IsWrite(o)) {
        if (::pread(s.fd, check.data(), io, static_cast<off_t>(off)) != static_cast<ssize_t>(io) ||
            !CheckPattern(check.data(), io, off)) {
          r->failed = true;
          break;
        }
      } else {
        if (o.xfer == 1 || o.xfer == 10) {
          std::memcpy(check.data(), host, io);
        } else {
          BENCH_HIP(hipMemcpy(check.data(), dev, io, hipMemcpyDeviceToHost));
        }
        if (!CheckPattern(check.data(), io, off)) {
          r->failed = true;
          break;
        }
      }
    }
  }
  r->finished = std::chrono::steady_clock::now();
  if (o.xfer == 0 && o.register_buffers) (void)hipFileBufDeregister(dev);
  if (dev) (void)hipFree(dev);
  if (host && (o.xfer == 1 || o.xfer == 10)) std::free(host);
  if (host && o.xfer != 1 && o.xfer != 10) (void)hipHostFree(host);
}

// Processor time of the whole process (user + system), in seconds: with the wall time it gives
// the cores kept busy.
double CpuSeconds() {
  struct rusage ru = {};
  ::getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(k), v.end());
  return v[k];
}

// How many bytes from offset 0 a sequential write run wrote in full: every block of
// OffsetSequence's shares when every thread completed its pass, else 0 (and 0 for random writes).
uint64_t SequentialCoverage(const Options& o, const std::vector<ThreadResult>& results) {
  if (IsRandom(o)) return 0;
  const uint64_t ios_total = std::max<uint64_t>(o.size / o.io_size, 1);
  const uint64_t per_thread = std::max<uint64_t>(ios_total / static_cast<uint64_t>(o.threads), 1);
  for (const ThreadResult& r : results) {
    if (r.failed || r.all_ops < per_thread) return 0;
  }
  return std::min(per_thread * static_cast<uint64_t>(o.threads), ios_total) * o.io_size;
}

int Run(int argc, char** argv) {
  Options o;
  switch (ParseArgs(argc, argv, &o)) {
    case ParseResult::kRun:
      break;
    case ParseResult::kHelp:
      return 0;
    case ParseResult::kBad:
      return 2;
  }
  if (o.io_size > o.size) o.size = o.io_size;
  // -x 5 stamps its operations' round trips (hipFileExtGetAsyncStageStats), unless the
  // environment says otherwise: read at the library's first driver, so set before any call.
  if (o.xfer == 5) ::setenv("HIPFILE_ASYNC_STAGE_TIMES", "1", 0);
  DataSet data_set;
  if (o.xfer != 9) {
    if (const int status = data_set.Prepare(o)) return status;
  }

  Shared s;
  s.o = &o;
  const int flags = (IsWrite(o) ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (o.xfer != 9) {
    s.fd = ::open(o.file.c_str(), flags);
    if (s.fd < 0) {
      std::perror(o.file.c_str());
      return 1;
    }
    struct stat st = {};
    if (::fstat(s.fd, &st) == 0) s.file_size = static_cast<uint64_t>(st.st_size);
  }
  if (o.xfer == 1) {
    s.direct_fd = ::open(o.file.c_str(), flags | O_DIRECT);
    if (s.direct_fd < 0) {
      std::perror("O_DIRECT open");
      return 1;
    }
  }
  if (o.xfer == 4) {
    void* p = ::mmap(nullptr, o.size, IsWrite(o) ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                     s.fd, 0);
    if (p == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    s.map = static_cast<unsigned char*>(p);
  }
  const bool uses_hipfile = UsesHipFile(o);
  if (uses_hipfile) {
    if (!HipFileOk(hipFileDriverOpen(), "hipFileDriverOpen")) return 1;
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = s.fd;
    if (!HipFileOk(hipFileHandleRegister(&s.fh, &descr), "hipFileHandleRegister")) return 1;
  }

  std::vector<ThreadResult> results(static_cast<size_t>(o.threads));
  std::vector<std::thread> threads;
  // The library's counts when the clock starts: before the threads, or at the end of the ramp.
  hipFileExtPathStats_t paths_before = {};
  hipFileExtAsyncStageStats_t stages_before = {};
  hipFileExtAsyncWayStats_t ways_before = {};
  hipFileExtCopyWaitStats_t waits_before = {};
  const auto take_before = [&] {
    if (uses_hipfile) (void)hipFileExtGetPathStats(&paths_before);
    if (uses_hipfile) (void)hipFileExtGetCopyWaitStats(&waits_before);
    if (o.xfer == 5) (void)hipFileExtGetAsyncStageStats(&stages_before);
    if (o.xfer == 5) (void)hipFileExtGetAsyncWayStats(&ways_before);
  };
  if (o.ramp == 0) take_before();
  // What the page cache holds of the data set as the run starts (before any ramp); unknown for
  // -x 9, which opens no file (s.fd -1).
  const double cached = CachedShare(s.fd, o.size);
  StartLine line(o.threads, o.seconds, o.ramp);
  s.line = &line;
  for (int t = 0; t < o.threads; ++t) {
    threads.emplace_back(RunThread, std::cref(s), t, &results[static_cast<size_t>(t)]);
  }
  double cpu_start = 0;
  if (o.ramp > 0) {
    // The clock starts after the ramp: the library's counts and the cores from there.
    line.WaitOpen();
    std::this_thread::sleep_until(line.counted());
    cpu_start = CpuSeconds();
    take_before();
  }
  for (std::thread& t : threads) t.join();
  if (o.ramp == 0) cpu_start = line.cpu_start();
  // The last operation's end; a thread that failed before it started counts as ending now.
  auto end = std::chrono::steady_clock::time_point{};
  for (const ThreadResult& r : results) {
    end = std::max(end, r.finished == std::chrono::steady_clock::time_point{}
                            ? std::chrono::steady_clock::now()
                            : r.finished);
  }
  if (o.fsync && IsWrite(o) && s.fd >= 0) {
    if (s.map) ::msync(s.map, o.size, MS_SYNC);
    ::fsync(s.fd);
    end = std::chrono::steady_clock::now();  // the flush is part of a -Y write's time
  }
  const double secs = std::chrono::duration<double>(end - line.counted()).count();
  const double cpu_cores = secs > 0 ? (CpuSeconds() - cpu_start) / secs : 0;

  // The run's bytes by the path the library took (hipfile_ext.h), both directions together.
  hipfile_tools::PathShares paths;
  hipFileExtAsyncStageStats_t stages_after = {};
  hipFileExtAsyncWayStats_t ways = {};
  hipFileExtCopyWaitStats_t waits = {};
  if (uses_hipfile) {
    hipFileExtPathStats_t after = {};
    (void)hipFileExtGetPathStats(&after);
    paths = hipfile_tools::PathShares::Between(paths_before, after);
    // Each wait is counted before its transfer returns: every one of the run's is in by now.
    hipFileExtCopyWaitStats_t waits_after = {};
    (void)hipFileExtGetCopyWaitStats(&waits_after);
    waits = hipfile_tools::CopyWaitsBetween(waits_before, waits_after);
    if (o.xfer == 5) {
      // Every operation's last copy is seen once its stream is synchronized, but the poller may
      // record it a moment later (later still on a loaded machine): wait until every operation
      // the threads made is counted, or the count has stood still for 100 ms (an operation that
      // failed may never be), at most 2 s.
      uint64_t made = 0;
      for (const ThreadResult& r : results) made += r.ops;
      hipFileExtAsyncStageStats_t now = {};
      int still = 0;
      for (int i = 0; i < 2000 && still < 100; ++i) {
        (void)hipFileExtGetAsyncStageStats(&now);
        const uint64_t total = now.count[hipFileExtAsyncStageTotal];
        if (total - stages_before.count[hipFileExtAsyncStageTotal] >= made) break;
        still = i > 0 && total == stages_after.count[hipFileExtAsyncStageTotal] ? still + 1 : 0;
        stages_after = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      stages_after = StagesBetween(stages_before, now);
      // Counted at submission (used_ahead when its operation finished): every one is in by now.
      hipFileExtAsyncWayStats_t ways_after = {};
      (void)hipFileExtGetAsyncWayStats(&ways_after);
      ways = hipfile_tools::WaysBetween(ways_before, ways_after);
    }
    hipFileHandleDeregister(s.fh);
    (void)hipFileDriverClose();
  }
  if (s.map) ::munmap(s.map, o.size);
  if (s.direct_fd >= 0) ::close(s.direct_fd);

  uint64_t bytes = 0;
  uint64_t ops = 0;
  bool failed = false;
  std::vector<double> lat;
  for (ThreadResult& r : results) {
    bytes += r.bytes;
    ops += r.ops;
    failed |= r.failed;
    lat.insert(lat.end(), r.latencies_us.begin(), r.latencies_us.end());
  }
  if (IsWrite(o)) {
    // The marker says what the file holds now: with -V the pattern where it was and over what the
    // run wrote in full; without -V (or after a failure) none of it is known to be.
    const uint64_t pattern_end =
        o.verify && !failed ? std::max(data_set.pattern(), SequentialCoverage(o, results)) : 0;
    failed |= !data_set.RecordWrite(s.fd, pattern_end);
  } else if (failed && o.verify && !data_set.ours()) {
    std::fprintf(stderr,
                 "hipfile-bench: %s is not hipfile-bench's data set (%s), so its bytes need not "
                 "be the pattern -V checks\n",
                 o.file.c_str(), data_set.not_ours_reason().c_str());
  }
  if (s.fd >= 0) ::close(s.fd);
  double sum = 0;
  for (double l : lat) sum += l;
  const double avg = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
  const double gib_s = secs > 0 ? static_cast<double>(bytes) / secs / (1024.0 * 1024 * 1024) : 0;
  const double p50 = Percentile(lat, 0.50);
  const double p99 = Percentile(lat, 0.99);
  const bool queued = IsQueued(o);
  // The GPU runtime the library chose (the run's first HIP call chose it): "cuda", "cpu" or
  // "cpu-staged".
  const char* runtime = hipFileExtRuntimeName();
  if (o.json) {
    std::printf(
        "{\"io_type\": \"%s\", \"xfer_type\": \"%s\", \"xfer\": %d, \"threads\": %d, "
        "\"bytes\": %" PRIu64 ", \"dataset_bytes\": %" PRIu64 ", \"io_size\": %" PRIu64
        ", \"throughput_gib_s\": %.4f, \"avg_latency_us\": %.2f, \"p50_latency_us\": "
        "%.2f, \"p99_latency_us\": %.2f, \"ops\": %" PRIu64
        ", \"total_time_s\": %.4f, \"ramp_s\": %.4g, \"iops\": %.1f, \"rate_iops\": %.0f, "
        "\"wait_when_full\": %s, "
        "\"event_every\": %d, \"late_binding\": %s, \"queue_depth\": %d, "
        "\"cpu_cores\": %.2f, "
        "\"cores_per_gib_s\": %.4f, \"cached_at_start\": %s, \"verified\": %s, "
        "\"runtime\": \"%s\", \"paths\": %s, "
        "\"fallbacks\": %s%s%s%s%s%s%s, \"ok\": %s}\n",
        IoName(o.io_type), XferName(o.xfer), o.xfer, o.threads, bytes, o.size, o.io_size, gib_s,
        avg, p50, p99, ops, secs, o.ramp, secs > 0 ? static_cast<double>(ops) / secs : 0, o.rate,
        o.wait_when_full ? "true" : "false", o.event_every, o.late_binding ? "true" : "false",
        queued ? o.queue_depth : 1, cpu_cores, gib_s > 0 ? cpu_cores / gib_s : 0,
        CachedJson(cached).c_str(), o.verify ? "true" : "false", runtime, paths.Json().c_str(),
        paths.FallbackJson().c_str(), uses_hipfile ? ", \"copy_waits\": " : "",
        uses_hipfile ? hipfile_tools::CopyWaitsJson(waits).c_str() : "",
        o.xfer == 5 ? ", \"async_stages\": " : "",
        o.xfer == 5 ? StagesJson(stages_after).c_str() : "",
        o.xfer == 5 ? ", \"async_ways\": " : "",
        o.xfer == 5 ? hipfile_tools::WaysJson(ways).c_str() : "", failed ? "false" : "true");
  } else {
    std::printf("IoType: %s XferType: %s Threads: %d ", IoName(o.io_type), XferName(o.xfer),
                o.threads);
    if (queued) std::printf("IoDepth: %d ", o.queue_depth);
    if (o.event_every != 1) std::printf("EventEvery: %d ", o.event_every);
    if (o.late_binding) std::printf("LateBinding ");
    if (o.rate > 0)
      std::printf("Rate: %.0f IOPS%s ", o.rate, o.wait_when_full ? " (wait when full)" : "");
    std::printf("DataSetSize: %" PRIu64 "/%" PRIu64 "KiB IOSize: %" PRIu64
                "KiB Throughput: %.6f GiB/sec, Avg_Latency: %.6f usecs "
                "ops: %" PRIu64 " total_time %.6f secs Cached: %s Runtime: %s",
                bytes / 1024, o.size / 1024, o.io_size / 1024, gib_s, avg, ops, secs,
                CachedText(cached).c_str(), runtime);
    if (uses_hipfile) std::printf(" Paths: %s", paths.Text().c_str());
    std::printf("\n");
    // Only where the run's transfers waited for the library's copies (staged ones).
    if (waits.waits > 0) std::printf("%s\n", hipfile_tools::CopyWaitsText(waits).c_str());
    if (o.xfer == 5 && o.stages) {
      std::printf("%s%s", StagesText(stages_after).c_str(), hipfile_tools::WaysText(ways).c_str());
    }
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace hipfile_bench

int main(int argc, char** argv) { return hipfile_bench::Run(argc, argv); }
