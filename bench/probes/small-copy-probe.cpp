// SPDX-License-Identifier: MIT
// small-copy-probe: what a 4 KiB host-to-device copy costs the submitting thread, by the ways the
// library could make it (issue 21 item 2: stream-ordered 4 KiB reads run at once kept ~15 cores
// busy for ~335k IOPS on the H200, where synchronous reads reach ~525k on 14; a perf profile put
// most of it in one lock inside libcuda, reached from cuStreamQuery). T threads, each with its own
// "user" stream and its own copy stream, for SECONDS each way; per operation:
//
//   pinned-poll        copy from pinned memory on the copy stream, cuStreamQuery until done
//                      (the synchronous path's small read, less its pread)
//   query+pinned-poll  one cuStreamQuery of the user stream first (a stream-ordered read run
//                      at once: the library checks the stream is idle)
//   pageable-queued    copy from pageable memory on the user stream and return: the driver
//                      takes the bytes before it returns, the copy runs in stream order (what a
//                      read on a stream with fixed parameters could do); the user stream is
//                      synchronized every 256 operations
//   pinned-write-poll  copy from pinned memory, then cuStreamWriteValue32 of a host word,
//                      polled in memory (HIPFILE_COPY_WAIT=word)
//   attrs+pinned-poll  pinned-poll after a cuPointerGetAttributes of the destination with the
//                      seven attributes the library asks (CudaRuntime::PointerGetInfo, made for
//                      every synchronous and stream-ordered call)
//   device+pinned-poll pinned-poll after a cuStreamGetDevice of the user stream (the check of
//                      every stream-ordered submission)
//   query-same         query+pinned-poll with the copy made and polled on the user stream, the
//                      one queried: is it the query or the second stream that costs
//   pinned-ring        copy from the next slot of a pinned ring (64 x 4 KiB) on the user stream
//                      and return; every 16 operations a cuStreamWriteValue32 of a host word says
//                      which slots the stream is done with, and a slot is reused only once it
//                      says so (a read at submission on a stream with fixed parameters)
//   pinned-ring-copymark  pinned-ring with each mark a 4-byte device-to-host copy into the word
//                      (from a device table holding every 16-bit number) instead of a memory
//                      operation: is it the memory operation that costs
//   pinned-ring-sync   pinned-ring without the marks: the user stream is synchronized every
//                      kRingSlots operations instead, as pageable-queued does (is it the
//                      copies from pinned memory or the marks that cost)
//
//   pageable-event     pageable-queued with an event recorded after each copy (disable-timing,
//                      blocking-sync), and the event recorded kEventWindow operations earlier
//                      waited for before its slot is reused: a stream-ordered caller keeping a
//                      window of operations in flight (hipfile-bench -x 5 --wait-when-full)
//   none               no GPU call at all: what the pacing (and the pread, with FILE) costs
//
// WAYS="name name..." in the environment runs only those. RATE=N paces the threads to N
// operations a second in all (thread t's i-th due at start + (i + t/THREADS) x THREADS/N, late
// ones at once; 1 us timer slack), as hipfile-bench --rate does, so that ways can be compared by
// the cores they keep busy for the same work. FILE=PATH first preads 4 KiB at a random
// page-aligned offset of PATH (keep it in the page cache) into a scratch buffer each operation,
// as a read would.
//
// Each operation copies into its own 4 KiB slot of a 1 MiB device buffer (a ring), from a host
// buffer holding the operation's number; at the end every slot is checked to hold the number of
// the last operation that wrote it: a pageable source reused too early shows there. Prints
// operations per second, the mean time per operation on a thread, and the process's cores busy
// (getrusage) for each way.
//   small-copy-probe THREADS SECONDS
#include <cuda.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cu_check.h"

namespace {

constexpr size_t kOp = 4096;
constexpr size_t kSlots = 256;

using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  rusage u = {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

enum Way {
  kPinnedPoll,
  kQueryPinnedPoll,
  kPageableQueued,
  kPinnedWritePoll,
  kAttrsPinnedPoll,
  kDevicePinnedPoll,
  kQuerySame,
  kPinnedRing,
  kPinnedRingCopyMark,
  kPinnedRingSync,
  kPageableEvent,
  kNone,
  kWays
};
constexpr uint32_t kEventWindow = 8;
constexpr uint32_t kRingSlots = 64;
constexpr uint32_t kMarkEvery = 16;
const char* const kWayNames[] = {"pinned-poll",       "query+pinned-poll", "pageable-queued",
                                 "pinned-write-poll", "attrs+pinned-poll", "device+pinned-poll",
                                 "query-same",        "pinned-ring",       "pinned-ring-copymark",
                                 "pinned-ring-sync",  "pageable-event",    "none"};

struct Thread {
  CUstream user = nullptr, copy = nullptr;
  CUdeviceptr dev = 0;
  uint32_t* pinned = nullptr;  // kOp bytes
  uint32_t* ring = nullptr;    // kRingSlots x kOp bytes, pinned
  CUdeviceptr marks = 0;       // 65536 uint32_t: marks[i] == i
  uint32_t* word = nullptr;    // pinned, mapped
  CUdeviceptr word_dev = 0;
  std::vector<uint32_t> pageable = std::vector<uint32_t>(kOp / 4);
  std::vector<char> scratch = std::vector<char>(kOp);  // FILE's bytes
  CUevent events[kEventWindow] = {};
  uint64_t ops = 0;
  bool bad = false;
};

void Fill(uint32_t* p, uint32_t value) {
  for (size_t i = 0; i < kOp / 4; ++i) p[i] = value;
}

// RATE and FILE (see the top), shared by the threads.
struct Pacing {
  double rate = 0;  // operations a second over all threads; 0: as fast as they go
  int threads = 1;
  int fd = -1;
  uint64_t file_pages = 0;
};

void Run(CUcontext ctx, Thread& t, int index, const Pacing& pace, Way way, double seconds,
         std::atomic<bool>& go) {
  CHECK(cuCtxSetCurrent(ctx));
  (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  std::mt19937_64 random(static_cast<uint64_t>(index) + 1);
  while (!go.load()) {
  }
  const auto began = Clock::now();
  const auto end = began + std::chrono::duration<double>(seconds);
  uint32_t n = 0;
  std::vector<uint32_t> last(kSlots, 0);
  uint32_t written = 0;
  while (Clock::now() < end) {
    for (int batch = 0; batch < 64; ++batch) {
      ++n;
      const size_t slot = n % kSlots;
      const CUdeviceptr dst = t.dev + slot * kOp;
      if (pace.rate > 0) {
        const double due_s =
            (static_cast<double>(n - 1) + static_cast<double>(index) / pace.threads) *
            pace.threads / pace.rate;
        const auto due = began + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(due_s));
        if (Clock::now() < due) {
          const auto ns =
              std::chrono::duration_cast<std::chrono::nanoseconds>(due.time_since_epoch()).count();
          timespec ts = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
          while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
          }
        }
      }
      if (pace.fd >= 0) {
        const off_t at = static_cast<off_t>(random() % pace.file_pages) * static_cast<off_t>(kOp);
        if (pread(pace.fd, t.scratch.data(), kOp, at) != static_cast<ssize_t>(kOp)) std::abort();
      }
      if (way == kQueryPinnedPoll || way == kQuerySame) {
        if (cuStreamQuery(t.user) != CUDA_SUCCESS) std::abort();  // always idle here
      }
      if (way == kAttrsPinnedPoll) {
        unsigned type = 0, managed = 0;
        CUdeviceptr dptr = 0, start = 0;
        void* hptr = nullptr;
        int ordinal = -1;
        size_t range = 0;
        CUpointer_attribute attrs[] = {
            CU_POINTER_ATTRIBUTE_MEMORY_TYPE,    CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
            CU_POINTER_ATTRIBUTE_HOST_POINTER,   CU_POINTER_ATTRIBUTE_IS_MANAGED,
            CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
            CU_POINTER_ATTRIBUTE_RANGE_SIZE};
        void* data[] = {&type, &dptr, &hptr, &managed, &ordinal, &start, &range};
        CHECK(cuPointerGetAttributes(7, attrs, data, dst));
      }
      if (way == kDevicePinnedPoll) {
        CUdevice d = -1;
        CHECK(cuStreamGetDevice(t.user, &d));
      }
      switch (way) {
        case kPinnedPoll:
        case kQueryPinnedPoll:
        case kAttrsPinnedPoll:
        case kDevicePinnedPoll:
        case kQuerySame: {
          const CUstream s = way == kQuerySame ? t.user : t.copy;
          Fill(t.pinned, n);
          CHECK(cuMemcpyHtoDAsync(dst, t.pinned, kOp, s));
          CUresult r;
          while ((r = cuStreamQuery(s)) == CUDA_ERROR_NOT_READY) {
          }
          CHECK(r);
          break;
        }
        case kPageableQueued:
          Fill(t.pageable.data(), n);
          CHECK(cuMemcpyHtoDAsync(dst, t.pageable.data(), kOp, t.user));
          Fill(t.pageable.data(), 0xdeadbeef);  // reused at once
          if (n % 256 == 0) CHECK(cuStreamSynchronize(t.user));
          break;
        case kPinnedRingSync: {
          uint32_t* src = t.ring + (n % kRingSlots) * (kOp / 4);
          Fill(src, n);
          CHECK(cuMemcpyHtoDAsync(dst, src, kOp, t.user));
          if (n % kRingSlots == kRingSlots - 1) CHECK(cuStreamSynchronize(t.user));
          break;
        }
        case kPinnedRing: {
          // Slot n % kRingSlots was last used by operation n - kRingSlots: wait for a mark at or
          // past it (written after every kMarkEvery-th operation's copy).
          if (n > kRingSlots) {
            while (static_cast<int32_t>(__atomic_load_n(t.word, __ATOMIC_ACQUIRE) -
                                        (n - kRingSlots)) < 0) {
              __builtin_ia32_pause();
            }
          }
          uint32_t* src = t.ring + (n % kRingSlots) * (kOp / 4);
          Fill(src, n);
          CHECK(cuMemcpyHtoDAsync(dst, src, kOp, t.user));
          if (n % kMarkEvery == 0) {
            CHECK(cuStreamWriteValue32(t.user, t.word_dev, n, CU_STREAM_WRITE_VALUE_DEFAULT));
          }
          break;
        }
        case kPinnedRingCopyMark: {
          // The word holds the low 16 bits of the last mark's number.
          if (n > kRingSlots) {
            while (static_cast<int16_t>(static_cast<uint16_t>(
                       __atomic_load_n(t.word, __ATOMIC_ACQUIRE) - (n - kRingSlots))) < 0) {
              __builtin_ia32_pause();
            }
          }
          uint32_t* src = t.ring + (n % kRingSlots) * (kOp / 4);
          Fill(src, n);
          CHECK(cuMemcpyHtoDAsync(dst, src, kOp, t.user));
          if (n % kMarkEvery == 0) {
            CHECK(cuMemcpyDtoHAsync(t.word, t.marks + (n & 0xffff) * 4, 4, t.user));
          }
          break;
        }
        case kPinnedWritePoll:
          Fill(t.pinned, n);
          CHECK(cuMemcpyHtoDAsync(dst, t.pinned, kOp, t.copy));
          ++written;
          CHECK(cuStreamWriteValue32(t.copy, t.word_dev, written, CU_STREAM_WRITE_VALUE_DEFAULT));
          while (__atomic_load_n(t.word, __ATOMIC_ACQUIRE) != written) {
            __builtin_ia32_pause();
          }
          break;
        case kPageableEvent: {
          CUevent& event = t.events[n % kEventWindow];
          if (n > kEventWindow) CHECK(cuEventSynchronize(event));  // kEventWindow operations ago
          Fill(t.pageable.data(), n);
          CHECK(cuMemcpyHtoDAsync(dst, t.pageable.data(), kOp, t.user));
          Fill(t.pageable.data(), 0xdeadbeef);
          CHECK(cuEventRecord(event, t.user));
          break;
        }
        case kNone:
          break;
        case kWays:
          std::abort();
      }
      if (way != kNone) last[slot] = n;
    }
  }
  CHECK(cuStreamSynchronize(t.user));
  CHECK(cuStreamSynchronize(t.copy));
  t.ops = n;
  std::vector<uint32_t> got(kSlots * kOp / 4);
  CHECK(cuMemcpyDtoH(got.data(), t.dev, kSlots * kOp));
  for (size_t s = 0; s < kSlots; ++s) {
    if (last[s] == 0) continue;
    for (size_t i = 0; i < kOp / 4; ++i) {
      if (got[s * kOp / 4 + i] != last[s]) {
        t.bad = true;
        return;
      }
    }
  }
}

bool Selected(const char* name) {
  const char* ways = std::getenv("WAYS");
  if (ways == nullptr || *ways == '\0') return true;
  const std::string list = std::string(" ") + ways + " ";
  return list.find(std::string(" ") + name + " ") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: small-copy-probe THREADS SECONDS\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const double seconds = std::atof(argv[2]);
  Pacing pace;
  pace.threads = threads;
  if (const char* rate = std::getenv("RATE")) pace.rate = std::atof(rate);
  if (const char* file = std::getenv("FILE"); file != nullptr && *file != '\0') {
    pace.fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st = {};
    if (pace.fd < 0 || fstat(pace.fd, &st) != 0 || st.st_size < static_cast<off_t>(kOp)) {
      std::fprintf(stderr, "small-copy-probe: cannot read 4 KiB pages of %s\n", file);
      return 2;
    }
    pace.file_pages = static_cast<uint64_t>(st.st_size) / kOp;
  }
  const CUcontext ctx = PrimaryContextOfDevice0();
  std::vector<Thread> ts(static_cast<size_t>(threads));
  for (Thread& t : ts) {
    CHECK(cuStreamCreate(&t.user, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&t.copy, CU_STREAM_NON_BLOCKING));
    CHECK(cuMemAlloc(&t.dev, kSlots * kOp));
    CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&t.pinned), kOp, CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&t.ring), kRingSlots * kOp,
                         CU_MEMHOSTALLOC_PORTABLE));
    {
      std::vector<uint32_t> values(65536);
      for (uint32_t i = 0; i < 65536; ++i) values[i] = i;
      CHECK(cuMemAlloc(&t.marks, values.size() * 4));
      CHECK(cuMemcpyHtoD(t.marks, values.data(), values.size() * 4));
    }
    CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&t.word), 64,
                         CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    *t.word = 0;
    CHECK(cuMemHostGetDevicePointer(&t.word_dev, t.word, 0));
    for (CUevent& event : t.events) {
      CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC));
    }
  }
  for (int round = 1; round <= 2; ++round) {
    for (int w = 0; w < kWays; ++w) {
      const Way way = static_cast<Way>(w);
      if (!Selected(kWayNames[w])) continue;
      for (Thread& t : ts) *t.word = 0;
      std::atomic<bool> go{false};
      std::vector<std::thread> running;
      for (Thread& t : ts) {
        t.ops = 0;
        t.bad = false;
        running.emplace_back(Run, ctx, std::ref(t), static_cast<int>(running.size()),
                             std::cref(pace), way, seconds, std::ref(go));
      }
      const double cpu0 = CpuSeconds();
      const auto t0 = Clock::now();
      go = true;
      for (auto& r : running) r.join();
      const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
      const double cpu = CpuSeconds() - cpu0;
      uint64_t ops = 0;
      bool bad = false;
      for (const Thread& t : ts) {
        ops += t.ops;
        bad = bad || t.bad;
      }
      std::printf(
          "round %d threads %2d %-18s %9.0f ops/s  %6.2f us/op/thread  cores %5.2f  cpu %5.2f "
          "us/op  %s\n",
          round, threads, kWayNames[w], static_cast<double>(ops) / wall,
          wall * threads / static_cast<double>(ops) * 1e6, cpu / wall,
          cpu / static_cast<double>(ops) * 1e6, bad ? "WRONG BYTES" : "bytes checked");
      std::fflush(stdout);
    }
  }
  return 0;
}
