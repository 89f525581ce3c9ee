// SPDX-License-Identifier: MIT
// How fast do STREAMS streams move BYTES host-to-device copies when each stream stops after each
// copy until the host lets it go - the shape of the queued way's reads copied ahead (issue 21):
// a read's copies ahead, `write reached`, a stop until a worker has bound it, then the next
// read's copies - against the synchronous path's way, by how long the stop lasts?
//
//   stream-stop-probe STREAMS BYTES SECONDS STOP_US...
//
// For each STOP_US, each stream has two iterations queued: a copy of BYTES from its own pinned
// host buffer to its own device buffer, `write reached = i` and `wait go >= i` on words of pinned
// host memory. One host thread (as the library's poller) watches the `reached` words; STOP_US
// after it sees one it stores `go` and queues the stream's iteration two ahead. Prints GiB/s over
// all streams; the last copy of every stream is checked.
//   PROBE_SPLIT=2: each iteration's copy in two halves, the second on a stream forked from the
//                  stream by an event and joined back by another (two copies in flight per
//                  stream, in the stream's order).
//   PROBE_SRC=hostalloc: sources from cuMemHostAlloc (default: malloc'd memory registered with
//                  cuMemHostRegister, as the library's page-cache windows are).
//   PROBE_TOKENS=K: the library's whole shape for a read copied ahead: the copy goes into a
//                  region of device memory, and after the stop the stream runs K tokens, each
//                  `wait go >= i` (passed by then), a launch of the library's copy-table kernel
//                  and `write copied`; the first token's launch copies the region on to the
//                  destination, the others copy nothing (their token is not the table's), as a
//                  read served whole by its copy ahead does (K = the read's 2 MiB chunks).
//   PROBE_GRID=N:  the first token's launch with N blocks (default: the library's
//                  kCopyTableBlocks), for what a larger grid gains on a device-to-device copy.
//   PROBE_AHEAD=1: each iteration's copy on a companion stream (the lane's `aside`), which the
//                  stream waits for by an event before `write reached`: the next iteration's
//                  copy runs while the stream stops and runs its tokens for this one. With
//                  PROBE_TOKENS, two regions that iterations take in turn, a copy into one
//                  waiting (by an event) until the stream has copied on out of it two
//                  iterations before. What a read's copies ahead on a stream of the library's
//                  own would gain (docs/async.md, "Reads copied ahead"); not with PROBE_SPLIT.
//   PROBE_TABLE=device: the tables in device memory (copied there once) instead of mapped pinned
//                  host memory, as the library keeps them: what the kernel's reads of its table
//                  over a link busy with the copies cost each launch. PROBE_TABLE=copied: in
//                  device memory, the stream copying the host table there (a 3 KiB DMA) before
//                  each launch, as a table filled by the host while the stream waits would be.
//   PROBE_EARLY=1: the host stores `go` for an iteration when it queues it, so that the stream
//                  finds its wait passed when it gets there, instead of the host storing it once
//                  it saw `reached` (the stream then waits for the host each time): what a wait
//                  that is not yet passed when the stream gets to it costs (issue 21, the
//                  library's parts).
// Then a row "sync": STREAMS threads copying one at a time, each waited for on a blocking-sync
// event (the synchronous path's way).
// A watchdog turns a hang into a diagnosis: when the probe has made no progress for SECONDS + 15 s
// it prints what the main thread was doing (the call and its lane) and each lane's words, and
// exits 3.
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cu_check.h"
#include "runtime/cuda/gather_kernel.h"
#include "runtime/gpu_runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Lane {
  int index = 0;
  CUstream stream = nullptr;
  CUstream aside = nullptr;  // PROBE_SPLIT=2: the second half's stream
  CUevent fork = nullptr, join = nullptr;
  unsigned char* src = nullptr;
  CUdeviceptr dst = 0;
  uint32_t* words = nullptr;  // [0] reached, [1] go, [2] copied: pinned, mapped
  // PROBE_TOKENS: the copy's destination, copied on from here (region -> dst) by the table,
  // pinned; PROBE_AHEAD uses both, iteration i the (i % 2)th, else only the first.
  CUdeviceptr region[2] = {0, 0};
  hipfile::runtime::CopyTable* table[2] = {nullptr, nullptr};
  CUdeviceptr table_at[2] = {0, 0};
  CUdeviceptr device_table[2] = {0, 0};  // PROBE_TABLE=device: table_at points here
  // PROBE_AHEAD: recorded on `aside` after iteration i's copy and on `stream` after its tokens,
  // at index i % 2.
  CUevent copy_done[2] = {nullptr, nullptr}, copied_on[2] = {nullptr, nullptr};
  CUdeviceptr reached_at = 0, go_at = 0;
  uint32_t waiting = 1;  // the iteration whose `reached` the host waits for
  bool seen = false;
  Clock::time_point seen_at;
};

bool g_split = false;
bool g_ahead = false;
bool g_early = false;  // PROBE_EARLY
bool g_hostalloc = false;
bool g_device_table = false;  // PROBE_TABLE=device or copied
bool g_copied_table = false;  // PROBE_TABLE=copied
unsigned g_tokens = 0;        // PROBE_TOKENS; 0: the copy goes straight to dst, no tokens
unsigned g_grid = hipfile::runtime::kCopyTableBlocks;  // PROBE_GRID: the first token's blocks
// PROBE_TOKEN_PARTS: which parts the tokens after the first keep (default "wlc": each a wait, a
// launch and a `write copied`); `b`: waits and writes, batched in pairs.
struct TokenParts {
  bool wait = true, launch = true, write = true, batch = false;
} g_parts;
CUfunction g_table_kernel = nullptr;
constexpr uint32_t kTableToken = 1;  // launches for any other token copy nothing

// The watchdog's view: what the main thread is in, for which lane and iteration, and when it last
// made progress.
std::atomic<const char*> g_phase{"setup"};
std::atomic<int> g_phase_lane{-1};
std::atomic<uint32_t> g_phase_iteration{0};
std::atomic<int64_t> g_progress_ns{0};
int64_t g_quiet_ns = 0;  // set before the watchdog starts
const std::vector<struct Lane>* g_lanes = nullptr;
std::atomic<bool> g_lanes_ready{false};  // the lanes' words are set up: the watchdog may read them

std::string PartsName() {
  std::string name;
  if (g_parts.batch) name += 'b';
  if (g_parts.wait) name += 'w';
  if (g_parts.launch) name += 'l';
  if (g_parts.write) name += 'c';
  return name.empty() ? "-" : name;
}

void Phase(const char* what, int lane = -1, uint32_t iteration = 0) {
  g_phase_lane.store(lane);
  g_phase_iteration.store(iteration);
  g_phase.store(what);
  g_progress_ns.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

uint32_t LoadAcquire(const uint32_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
void StoreRelease(uint32_t* word, uint32_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

void Copy(const Lane& lane, size_t bytes, CUstream stream, uint32_t i) {
  const CUdeviceptr to = g_tokens > 0 ? lane.region[i % 2] : lane.dst;
  if (g_ahead) {
    // On the companion once the stream has copied on out of this region (two iterations back;
    // an event never recorded, or recorded in an earlier row, is passed at once).
    CHECK(cuStreamWaitEvent(lane.aside, lane.copied_on[i % 2], 0));
    CHECK(cuMemcpyHtoDAsync(to, lane.src, bytes, lane.aside));
    CHECK(cuEventRecord(lane.copy_done[i % 2], lane.aside));
    CHECK(cuStreamWaitEvent(stream, lane.copy_done[i % 2], 0));
    return;
  }
  if (!g_split) {
    CHECK(cuMemcpyHtoDAsync(to, lane.src, bytes, stream));
    return;
  }
  const size_t half = bytes / 2;
  CHECK(cuEventRecord(lane.fork, stream));
  CHECK(cuStreamWaitEvent(lane.aside, lane.fork, 0));
  CHECK(cuMemcpyHtoDAsync(to + half, lane.src + half, bytes - half, lane.aside));
  CHECK(cuMemcpyHtoDAsync(to, lane.src, half, stream));
  CHECK(cuEventRecord(lane.join, lane.aside));
  CHECK(cuStreamWaitEvent(stream, lane.join, 0));
}

void QueueIteration(const Lane& lane, size_t bytes, uint32_t i) {
  Phase("queueing an iteration's copy", lane.index, i);
  Copy(lane, bytes, lane.stream, i);
  Phase("queueing an iteration's stream operations", lane.index, i);
  CHECK(cuStreamWriteValue32(lane.stream, lane.reached_at, i, CU_STREAM_WRITE_VALUE_DEFAULT));
  CHECK(cuStreamWaitValue32(lane.stream, lane.go_at, i, CU_STREAM_WAIT_VALUE_GEQ));
  const CUdeviceptr copied_at = lane.go_at + sizeof(uint32_t);
  for (unsigned k = 0; k < g_tokens; ++k) {
    // Tokens after the first keep only the parts PROBE_TOKEN_PARTS names; with `b` a token's
    // `write copied` and the next one's wait are one cuStreamBatchMemOp.
    const bool first = k == 0, last = k + 1 == g_tokens;
    if (!first && g_parts.wait && !g_parts.batch) {
      CHECK(cuStreamWaitValue32(lane.stream, lane.go_at, i, CU_STREAM_WAIT_VALUE_GEQ));
    }
    if (first || g_parts.launch) {
      CUdeviceptr table = lane.table_at[i % 2];
      if (g_copied_table) {
        const int p = (g_ahead ? i % 2 : 0);
        CHECK(cuMemcpyHtoDAsync(table, lane.table[p], sizeof(hipfile::runtime::CopyTable),
                                lane.stream));
      }
      unsigned token = kTableToken + k;
      void* params[] = {&table, &token};
      CHECK(cuLaunchKernel(g_table_kernel, first ? g_grid : hipfile::runtime::kCopyTableBlocks, 1,
                           1, hipfile::runtime::kGatherThreadsPerBlock, 1, 1, 0, lane.stream,
                           params, nullptr));
    }
    if (g_parts.batch && !last) {
      CUstreamBatchMemOpParams ops[2] = {};
      ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
      ops[0].writeValue.address = copied_at;
      ops[0].writeValue.value = i;
      ops[0].writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
      ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
      ops[1].waitValue.address = lane.go_at;
      ops[1].waitValue.value = i;
      ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
      CHECK(cuStreamBatchMemOp(lane.stream, 2, ops, 0));
    } else if (first || last || g_parts.write) {
      CHECK(cuStreamWriteValue32(lane.stream, copied_at, i, CU_STREAM_WRITE_VALUE_DEFAULT));
    }
  }
  if (g_ahead) CHECK(cuEventRecord(lane.copied_on[i % 2], lane.stream));
  if (g_early) StoreRelease(lane.words + 1, i);  // passed before the stream gets there
}

bool Verify(const Lane& lane, size_t bytes, const char* what, int index) {
  Phase("verifying", index);
  std::vector<unsigned char> back(bytes);
  CHECK(cuMemcpyDtoH(back.data(), lane.dst, bytes));
  if (std::memcmp(back.data(), lane.src, bytes) != 0) {
    std::fprintf(stderr, "%s: stream %d: device bytes differ from its source\n", what, index);
    return false;
  }
  return true;
}

void RunStops(std::vector<Lane>& lanes, size_t bytes, double seconds, long stop_us) {
  for (Lane& lane : lanes) {
    StoreRelease(&lane.words[0], 0);
    StoreRelease(&lane.words[1], 0);
    CHECK(cuMemsetD8Async(lane.dst, 0, bytes, lane.stream));
    lane.waiting = 1;
    lane.seen = false;
  }
  Phase("synchronizing before the row");
  for (Lane& lane : lanes) CHECK(cuStreamSynchronize(lane.stream));
  const auto stop = std::chrono::microseconds(stop_us);
  const auto t0 = Clock::now();
  for (Lane& lane : lanes) {
    QueueIteration(lane, bytes, 1);
    QueueIteration(lane, bytes, 2);
  }
  const auto end = t0 + std::chrono::duration<double>(seconds);
  unsigned long long copies = 0;
  for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
    for (Lane& lane : lanes) {
      if (!lane.seen) {
        if (LoadAcquire(&lane.words[0]) < lane.waiting) continue;
        lane.seen = true;
        lane.seen_at = now;
      }
      if (now - lane.seen_at < stop) continue;
      Phase("releasing", lane.index, lane.waiting);
      if (!g_early) StoreRelease(&lane.words[1], lane.waiting);
      ++copies;
      QueueIteration(lane, bytes, lane.waiting + 2);
      ++lane.waiting;
      lane.seen = false;
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  // Every stream is let through what is queued (up to lane.waiting + 1) before any is waited for:
  // streams share hardware queues (16 streams and their 16 `aside` streams on 8 by default), and
  // one waited for first may have its last copies queued behind another's stop. (Releasing and
  // waiting for one stream at a time is the likely reason why no row with 16 streams printed
  // anything on the H200, bench/results/h200-2026-12-05.) The stream's wait compares (int32_t)(go -
  // i) >= 0, so a value far ahead, such as ~0u, would hold it for good.
  for (Lane& lane : lanes) StoreRelease(&lane.words[1], lane.waiting + 2);
  bool ok = true;
  for (size_t s = 0; s < lanes.size(); ++s) {
    Phase("synchronizing after the row", static_cast<int>(s), lanes[s].waiting + 1);
    CHECK(cuStreamSynchronize(lanes[s].stream));
    ok = Verify(lanes[s], bytes, "stop", static_cast<int>(s)) && ok;
  }
  std::printf(
      "mode=stop split=%d ahead=%d early=%d src=%s tokens=%u parts=%s grid=%u streams=%zu "
      "bytes=%zu "
      "stop_us=%ld "
      "GiB/s=%.1f %s\n",
      g_split ? 2 : 1, g_ahead ? 1 : 0, g_early ? 1 : 0, g_hostalloc ? "hostalloc" : "register",
      g_tokens, PartsName().c_str(), g_grid, lanes.size(), bytes, stop_us,
      static_cast<double>(copies) * bytes / wall / (1 << 30), ok ? "verified" : "DATA MISMATCH");
  std::fflush(stdout);
}

// Prints the main thread's phase and each lane's words, then exits 3, when nothing progressed for
// SECONDS + 15 s (the sync row makes no progress marks while it runs).
void Watchdog() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
            .count();
    if (now - g_progress_ns.load() < g_quiet_ns) continue;
    std::printf("HUNG: no progress for %.0f s, main thread %s (lane %d, iteration %u)\n",
                static_cast<double>(g_quiet_ns) / 1e9, g_phase.load(), g_phase_lane.load(),
                g_phase_iteration.load());
    for (const Lane& lane : *g_lanes) {
      if (!g_lanes_ready.load()) break;  // hung in setup
      std::printf("  lane %d: reached %u, go %u, copied %u\n", lane.index,
                  LoadAcquire(&lane.words[0]), LoadAcquire(&lane.words[1]),
                  LoadAcquire(&lane.words[2]));
    }
    std::fflush(stdout);
    std::_Exit(3);
  }
}

void RunSync(CUcontext ctx, std::vector<Lane>& lanes, size_t bytes, double seconds) {
  Phase("the sync row");
  std::atomic<bool> go{false}, stop{false};
  std::atomic<unsigned long long> copies{0};
  std::vector<std::thread> threads;
  for (Lane& lane : lanes) {
    threads.emplace_back([&, lane_ptr = &lane] {
      CHECK(cuCtxSetCurrent(ctx));
      CUevent done;
      CHECK(cuEventCreate(&done, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING));
      while (!go.load()) std::this_thread::yield();
      unsigned long long n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        CHECK(cuMemcpyHtoDAsync(lane_ptr->dst, lane_ptr->src, bytes, lane_ptr->stream));
        CHECK(cuEventRecord(done, lane_ptr->stream));
        CHECK(cuEventSynchronize(done));
        ++n;
      }
      CHECK(cuEventDestroy(done));
      copies.fetch_add(n);
    });
  }
  const auto t0 = Clock::now();
  go = true;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  bool ok = true;
  for (size_t s = 0; s < lanes.size(); ++s) {
    ok = Verify(lanes[s], bytes, "sync", static_cast<int>(s)) && ok;
  }
  std::printf("mode=sync src=%s streams=%zu bytes=%zu GiB/s=%.1f %s\n",
              g_hostalloc ? "hostalloc" : "register", lanes.size(), bytes,
              static_cast<double>(copies.load()) * bytes / wall / (1 << 30),
              ok ? "verified" : "DATA MISMATCH");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s STREAMS BYTES SECONDS STOP_US...\n", argv[0]);
    return 2;
  }
  const int streams = std::atoi(argv[1]);
  const size_t bytes = std::strtoull(argv[2], nullptr, 10);
  const double seconds = std::atof(argv[3]);
  if (streams < 1 || bytes < 2 || seconds <= 0) return 2;
  const char* split = std::getenv("PROBE_SPLIT");
  g_split = split != nullptr && std::strcmp(split, "2") == 0;
  const char* ahead = std::getenv("PROBE_AHEAD");
  g_ahead = ahead != nullptr && std::strcmp(ahead, "1") == 0;
  const char* early = std::getenv("PROBE_EARLY");
  g_early = early != nullptr && std::strcmp(early, "1") == 0;
  if (g_split && g_ahead) {
    std::fprintf(stderr, "PROBE_SPLIT=2 and PROBE_AHEAD=1 do not go together\n");
    return 2;
  }
  const char* src = std::getenv("PROBE_SRC");
  g_hostalloc = src != nullptr && std::strcmp(src, "hostalloc") == 0;
  const char* where = std::getenv("PROBE_TABLE");
  g_copied_table = where != nullptr && std::strcmp(where, "copied") == 0;
  g_device_table = g_copied_table || (where != nullptr && std::strcmp(where, "device") == 0);
  const char* tokens = std::getenv("PROBE_TOKENS");
  g_tokens = tokens != nullptr ? static_cast<unsigned>(std::atoi(tokens)) : 0;
  if (const char* parts = std::getenv("PROBE_TOKEN_PARTS"); parts != nullptr) {
    const std::string p = parts;
    g_parts.wait = p.find('w') != std::string::npos;
    g_parts.launch = p.find('l') != std::string::npos;
    g_parts.write = p.find('c') != std::string::npos;
    g_parts.batch = p.find('b') != std::string::npos;
  }
  if (const char* grid = std::getenv("PROBE_GRID"); grid != nullptr && std::atoi(grid) > 0) {
    g_grid = static_cast<unsigned>(std::atoi(grid));
  }
  CUdevice dev;
  const CUcontext ctx = PrimaryContextOfDevice0(&dev);
  if (g_tokens > 0) {
    CUmodule module = nullptr;
    CHECK(cuModuleLoadData(&module, hipfile::runtime::kGatherKernelPtx));
    CHECK(cuModuleGetFunction(&g_table_kernel, module, hipfile::runtime::kCopyTableKernelName));
  }
  std::vector<Lane> lanes(static_cast<size_t>(streams));
  g_lanes = &lanes;
  g_quiet_ns = static_cast<int64_t>((seconds + 15) * 1e9);
  Phase("setup");
  std::thread(Watchdog).detach();
  for (size_t s = 0; s < lanes.size(); ++s) {
    Lane& lane = lanes[s];
    lane.index = static_cast<int>(s);
    CHECK(cuStreamCreate(&lane.stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&lane.aside, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&lane.fork, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&lane.join, CU_EVENT_DISABLE_TIMING));
    for (int p = 0; p < 2; ++p) {
      CHECK(cuEventCreate(&lane.copy_done[p], CU_EVENT_DISABLE_TIMING));
      CHECK(cuEventCreate(&lane.copied_on[p], CU_EVENT_DISABLE_TIMING));
    }
    if (g_hostalloc) {
      void* p = nullptr;
      CHECK(cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE));
      lane.src = static_cast<unsigned char*>(p);
    } else {
      void* p = nullptr;
      if (posix_memalign(&p, 4096, bytes) != 0) return 1;
      lane.src = static_cast<unsigned char*>(p);
    }
    for (size_t i = 0; i < bytes; ++i) lane.src[i] = static_cast<unsigned char>(s * 7 + i / 4096);
    if (!g_hostalloc) CHECK(cuMemHostRegister(lane.src, bytes, CU_MEMHOSTREGISTER_PORTABLE));
    CHECK(cuMemAlloc(&lane.dst, bytes));
    void* words = nullptr;
    CHECK(cuMemHostAlloc(&words, 3 * sizeof(uint32_t),
                         CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    lane.words = static_cast<uint32_t*>(words);
    CHECK(cuMemHostGetDevicePointer(&lane.reached_at, lane.words, 0));
    lane.go_at = lane.reached_at + sizeof(uint32_t);
    for (int p = 0; p < (g_tokens == 0 ? 0 : g_ahead ? 2 : 1); ++p) {
      CHECK(cuMemAlloc(&lane.region[p], bytes));
      void* table = nullptr;
      CHECK(cuMemHostAlloc(&table, sizeof(hipfile::runtime::CopyTable),
                           CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
      lane.table[p] = new (table) hipfile::runtime::CopyTable();
      lane.table[p]->count = 1;
      lane.table[p]->token = kTableToken;
      lane.table[p]->copy[0] = {lane.dst, lane.region[p], bytes};
      CHECK(cuMemHostGetDevicePointer(&lane.table_at[p], table, 0));
      if (g_device_table) {
        CHECK(cuMemAlloc(&lane.device_table[p], sizeof(hipfile::runtime::CopyTable)));
        CHECK(cuMemcpyHtoD(lane.device_table[p], table, sizeof(hipfile::runtime::CopyTable)));
        lane.table_at[p] = lane.device_table[p];
      }
    }
    if (!g_ahead && g_tokens > 0) {  // one region: both parities use it
      lane.region[1] = lane.region[0];
      lane.table_at[1] = lane.table_at[0];
    }
  }
  g_lanes_ready.store(true);
  for (int a = 4; a < argc; ++a) RunStops(lanes, bytes, seconds, std::atol(argv[a]));
  RunSync(ctx, lanes, bytes, seconds);
  Phase("tearing down");
  for (Lane& lane : lanes) {
    CHECK(cuMemFree(lane.dst));
    if (g_hostalloc) {
      CHECK(cuMemFreeHost(lane.src));
    } else {
      CHECK(cuMemHostUnregister(lane.src));
      std::free(lane.src);
    }
    CHECK(cuMemFreeHost(lane.words));
    for (int p = 0; p < 2; ++p) {
      if (lane.table[p] == nullptr) continue;
      CHECK(cuMemFree(lane.region[p]));
      CHECK(cuMemFreeHost(lane.table[p]));
      if (lane.device_table[p] != 0) CHECK(cuMemFree(lane.device_table[p]));
    }
    for (int p = 0; p < 2; ++p) {
      CHECK(cuEventDestroy(lane.copy_done[p]));
      CHECK(cuEventDestroy(lane.copied_on[p]));
    }
    CHECK(cuEventDestroy(lane.fork));
    CHECK(cuEventDestroy(lane.join));
    CHECK(cuStreamDestroy(lane.aside));
    CHECK(cuStreamDestroy(lane.stream));
  }
  CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
