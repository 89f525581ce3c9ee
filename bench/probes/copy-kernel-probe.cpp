// SPDX-License-Identifier: MIT
// How fast does a kernel copy pinned host memory into device memory, against the copy engine?
// STREAMS threads, one stream each, copy BYTES from their own pinned host buffer to their own
// device buffer, one copy at a time (queue, cuStreamSynchronize), for SECONDS, by:
//   dma   cuMemcpyHtoDAsync
//   wN    a kernel of copy-kernel-variants.cu with N 16-byte words in flight per thread, GRID
//         blocks of 256 threads, reading its table from pinned host memory as the library's does
// Prints GiB/s over all streams and the mean time of one copy; every destination is checked.
// Usage: copy-kernel-probe PTX STREAMS BYTES GRID SECONDS [MODE...]
// PROBE_INFLIGHT=K: at most K copies queued or running at once over all streams (a semaphore held
// from queueing to the end of cuStreamSynchronize); default: no limit.
// PROBE_SHARED_SRC=1: every stream copies from one host buffer (default: a buffer each).
// PROBE_SRC: what a stream's own host buffer is - hostalloc (default: cuMemHostAlloc), register
// (page-aligned heap memory, cuMemHostRegister) or file:DIR (a file of BYTES in DIR, written
// through the page cache and mapped read-only, registered READ_ONLY as the library pins its
// page-cache windows): whether a kernel's rate is its reading pattern's or the memory's.
// GRID 0: one block a 4 KiB page (BYTES / 4096 blocks), as CUDA's memcpy128 launches.
// PROBE_AFTER: a stream memory operation queued after each copy, as the library's chains queue
// them after a launch - write (cuStreamWriteValue32 of a pinned host word: `write copied`) or
// wait (cuStreamWaitValue32 on one already passed: `wait done`); default none. Whether such an
// operation holds up the streams that share the copy's hardware queue until the copy ends
// (CUDA_DEVICE_MAX_CONNECTIONS: 8 queues by default).
// The rate counts each stream's copies up to its last one's end, not the destinations' check.
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cu_check.h"
#include "file_source.h"

namespace {

struct Copy {
  unsigned long long dst, src, bytes;
};
struct Table {
  unsigned long long count;
  Copy op[128];
};

// At most `limit` holders at once (0: no limit).
class Gate {
 public:
  explicit Gate(int limit) : free_(limit), limited_(limit > 0) {}
  void Enter() {
    if (!limited_) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void Leave() {
    if (!limited_) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++free_;
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
  bool limited_;
};

// A stream's own source buffer of `bytes`, every byte `want` (PROBE_SRC above); Release frees it.
class Source {
 public:
  Source(const std::string& kind, size_t bytes, unsigned char want, int index)
      : kind_(kind), bytes_(bytes) {
    if (kind == "hostalloc") {
      CHECK(cuMemHostAlloc(&ptr_, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
      std::memset(ptr_, want, bytes);
    } else if (kind == "register") {
      ptr_ = std::aligned_alloc(4096, bytes);
      if (ptr_ == nullptr) Fail("aligned_alloc");
      std::memset(ptr_, want, bytes);
      CHECK(cuMemHostRegister(ptr_, bytes,
                              CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
    } else if (kind.rfind("file:", 0) == 0) {
      const std::string path = kind.substr(5) + "/copy-kernel-probe." + std::to_string(getpid()) +
                               "." + std::to_string(index);
      ptr_ = MapFileSource(path, bytes, [want](unsigned char* block, size_t, size_t n) {
        std::memset(block, want, n);
      });
      CHECK(cuMemHostRegister(ptr_, bytes,
                              CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                  CU_MEMHOSTREGISTER_READ_ONLY));
    } else {
      std::fprintf(stderr, "PROBE_SRC=%s: want hostalloc, register or file:DIR\n", kind.c_str());
      std::exit(2);
    }
  }
  void* get() const { return ptr_; }
  void Release() {
    if (kind_ == "hostalloc") {
      CHECK(cuMemFreeHost(ptr_));
      return;
    }
    CHECK(cuMemHostUnregister(ptr_));
    if (kind_ == "register") {
      std::free(ptr_);
    } else {
      munmap(ptr_, bytes_);
    }
  }

 private:
  static void Fail(const char* what) {
    std::perror(what);
    std::exit(1);
  }
  std::string kind_;
  size_t bytes_;
  void* ptr_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s PTX STREAMS BYTES GRID SECONDS [MODE...]\n", argv[0]);
    return 2;
  }
  const int streams = std::atoi(argv[2]);
  const size_t bytes = std::strtoull(argv[3], nullptr, 10);
  const unsigned grid_arg = static_cast<unsigned>(std::atoi(argv[4]));
  const unsigned grid = grid_arg != 0 ? grid_arg : static_cast<unsigned>((bytes + 4095) / 4096);
  const double seconds = std::atof(argv[5]);
  std::vector<std::string> modes;
  for (int i = 6; i < argc; ++i) modes.emplace_back(argv[i]);
  if (modes.empty()) modes = {"dma", "w1", "w2", "w4", "w8"};
  if (streams < 1 || bytes == 0 || bytes % 16 != 0 || grid == 0) return 2;
  const char* inflight_env = std::getenv("PROBE_INFLIGHT");
  const int inflight = inflight_env != nullptr ? std::atoi(inflight_env) : 0;
  const char* shared_env = std::getenv("PROBE_SHARED_SRC");
  const bool shared_src = shared_env != nullptr && std::strcmp(shared_env, "1") == 0;
  const char* src_env = std::getenv("PROBE_SRC");
  const std::string src_kind = src_env != nullptr ? src_env : "hostalloc";
  const char* after_env = std::getenv("PROBE_AFTER");
  const std::string after = after_env != nullptr ? after_env : "none";
  if (after != "none" && after != "write" && after != "wait") return 2;
  const CUcontext ctx = PrimaryContextOfDevice0();
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, argv[1]));
  void* shared = nullptr;
  if (shared_src) {
    CHECK(cuMemHostAlloc(&shared, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    std::memset(shared, 7, bytes);
  }
  Gate gate(inflight);
  for (const std::string& mode : modes) {
    CUfunction fn = nullptr;
    if (mode != "dma") CHECK(cuModuleGetFunction(&fn, mod, ("copy_" + mode).c_str()));
    std::atomic<bool> go{false}, stop{false};
    std::atomic<int> ready{0};  // streams with their buffers made: the clock starts after
    std::atomic<unsigned long long> copies{0};
    std::atomic<int> bad{0};
    std::atomic<long long> last_end_ns{0};  // the latest end of a stream's last copy, from t0
    std::chrono::steady_clock::time_point t0;
    std::vector<std::thread> ts;
    for (int t = 0; t < streams; ++t) {
      ts.emplace_back([&, t] {
        CHECK(cuCtxSetCurrent(ctx));
        CUstream st;
        CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
        void* host = shared;
        const unsigned char want = shared_src ? 7 : static_cast<unsigned char>(t + 1);
        std::unique_ptr<Source> own;
        if (!shared_src) {
          own = std::make_unique<Source>(src_kind, bytes, want, t);
          host = own->get();
        }
        void* table_mem = nullptr;
        CHECK(cuMemHostAlloc(&table_mem, sizeof(Table), CU_MEMHOSTALLOC_PORTABLE));
        CUdeviceptr dst;
        CHECK(cuMemAlloc(&dst, bytes));
        CHECK(cuMemsetD8(dst, 0, bytes));
        void* word_mem = nullptr;  // PROBE_AFTER's word, 0: a wait for >= 0 has passed
        CHECK(cuMemHostAlloc(&word_mem, sizeof(uint32_t),
                             CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
        *static_cast<volatile uint32_t*>(word_mem) = 0;
        CUdeviceptr word;
        CHECK(cuMemHostGetDevicePointer(&word, word_mem, 0));
        auto* table = static_cast<Table*>(table_mem);
        table->count = 1;
        table->op[0] = {dst, reinterpret_cast<unsigned long long>(host), bytes};
        void* params[] = {&table};
        ready.fetch_add(1);
        while (!go.load()) std::this_thread::yield();
        unsigned long long n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          gate.Enter();
          if (fn == nullptr) {
            CHECK(cuMemcpyHtoDAsync(dst, host, bytes, st));
          } else {
            CHECK(cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, st, params, nullptr));
          }
          if (after == "write") CHECK(cuStreamWriteValue32(st, word, 0, 0));
          if (after == "wait") CHECK(cuStreamWaitValue32(st, word, 0, CU_STREAM_WAIT_VALUE_GEQ));
          CHECK(cuStreamSynchronize(st));
          gate.Leave();
          ++n;
        }
        const long long end = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - t0)
                                  .count();
        for (long long seen = last_end_ns.load(); end > seen;) {
          if (last_end_ns.compare_exchange_weak(seen, end)) break;
        }
        std::vector<unsigned char> check(bytes);
        CHECK(cuMemcpyDtoH(check.data(), dst, bytes));
        for (size_t i = 0; i < bytes; ++i) {
          if (check[i] != want) {
            if (bad.fetch_add(1) == 0) {
              std::fprintf(stderr, "%s: stream %d: byte %zu is %d, want %d\n", mode.c_str(), t, i,
                           check[i], want);
            }
            break;
          }
        }
        copies.fetch_add(n);
        CHECK(cuMemFree(dst));
        CHECK(cuMemFreeHost(table_mem));
        CHECK(cuMemFreeHost(word_mem));
        if (own != nullptr) own->Release();
        CHECK(cuStreamDestroy(st));
      });
    }
    while (ready.load() < streams) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    t0 = std::chrono::steady_clock::now();
    go = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& th : ts) th.join();
    const double wall = static_cast<double>(last_end_ns.load()) / 1e9;
    const double n = static_cast<double>(copies.load());
    std::printf(
        "%-4s streams=%d bytes=%zu grid=%u inflight=%d shared_src=%d src=%s after=%s GiB/s=%.1f "
        "per_copy_us=%.0f %s\n",
        mode.c_str(), streams, bytes, grid, inflight, shared_src ? 1 : 0, src_kind.c_str(),
        after.c_str(), n * bytes / wall / (1 << 30), wall * streams / n * 1e6,
        bad ? "DATA MISMATCH" : "verified");
  }
  if (shared != nullptr) CHECK(cuMemFreeHost(shared));
  return 0;
}
