// SPDX-License-Identifier: MIT
// pin-lock-probe: does pinning page-cache memory stop the GPU's copies, or only the calls that
// queue them, and does pinning from a second CUDA context avoid it (issue 20 item 1)?
// pin-copy-probe showed a cuMemcpyAsync call blocked for 30 ms while another thread pinned, and a
// pipeline of pins and copies running at their serial rate. Driver API only; each experiment on
// a fresh region of REGION_GIB GiB of FILE (in the page cache), 64 MiB windows:
//
//   copy                  the region's size of copies from pinned memory, timed on the GPU
//                         (events): the link
//   during:CTX            the same copies queued just after another thread began pinning a fresh
//                         region from context CTX (primary, or second: another context of the
//                         same device, pinning with CU_MEMHOSTREGISTER_PORTABLE): the copies' GPU
//                         time, how long queueing them took, and the pins' rate
//   pipeline:CTX:P:D      P threads pin windows in file order from CTX; the primary context copies
//                         each as soon as it is pinned, D in flight: a first pass's rate
//   stage:T               T threads pread 16 MiB pieces into their own two pinned buffers (made
//                         before the clock) and copy each to the GPU
//   mapcopy:T             the same from the file's mapping (populated first) with memcpy
//   hybrid:CTX:P:S        P pinning threads (from CTX, copied as in pipeline) and S staging
//                         threads take windows from one counter: the mix's rate
//   context               the cost of creating a second context: time and device memory
//
//   pin-lock-probe FILE REGION_GIB EXPERIMENT...
#include <cuda.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cu_check.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace {

constexpr size_t kMiB = 1ull << 20;
constexpr size_t kGiB = 1ull << 30;
constexpr size_t kWindow = 64 * kMiB;
size_t kRegion = kGiB;  // set from the command line
size_t kWindows = kRegion / kWindow;
constexpr size_t kStage = 16 * kMiB;

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
double Rate(size_t bytes, double s) { return static_cast<double>(bytes) / s / kGiB; }

struct Setup {
  int fd = -1;
  char* map = nullptr;
  size_t size = 0;
  size_t next_region = 0;
  CUcontext primary = nullptr;
  CUcontext second = nullptr;
  CUdeviceptr device = 0;  // kRegion
  char* host = nullptr;    // kRegion, pinned

  size_t Fresh() {
    if (next_region + kRegion > size) {
      std::fprintf(stderr, "out of fresh regions: use a bigger file\n");
      std::exit(1);
    }
    next_region += kRegion;
    return next_region - kRegion;
  }
  CUcontext Ctx(bool use_second) const { return use_second ? second : primary; }
};

unsigned PinFlags(bool use_second) {
  return CU_MEMHOSTREGISTER_READ_ONLY | (use_second ? CU_MEMHOSTREGISTER_PORTABLE : 0u);
}

// 1 GiB of copies from the pinned buffer on `s`, bracketed by timing events; returns the
// queueing wall time; the GPU's time lands in *gpu_ms after `Finish`.
struct GpuTimed {
  CUevent begin = nullptr, end = nullptr;
  double Queue(const Setup& g, CUstream s) {
    CHECK(cuEventCreate(&begin, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&end, CU_EVENT_DEFAULT));
    const auto t0 = Clock::now();
    CHECK(cuEventRecord(begin, s));
    for (size_t k = 0; k < kWindows; ++k) {
      CHECK(cuMemcpyHtoDAsync(g.device + k * kWindow, g.host + k * kWindow, kWindow, s));
    }
    CHECK(cuEventRecord(end, s));
    return Since(t0);
  }
  float Finish() {
    CHECK(cuEventSynchronize(end));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, begin, end));
    CHECK(cuEventDestroy(begin));
    CHECK(cuEventDestroy(end));
    return ms;
  }
};

void Copy(Setup& g, CUstream s) {
  GpuTimed t;
  t.Queue(g, s);
  const float ms = t.Finish();
  std::printf("copy                      1 GiB in %.2f ms on the GPU: %6.2f GiB/s\n", ms, 1e3 / ms);
}

void DuringPin(Setup& g, CUstream s, bool use_second) {
  const size_t at = g.Fresh();
  std::atomic<bool> started{false};
  double pin_s = 0;
  std::thread pinner([&] {
    CHECK(cuCtxSetCurrent(g.Ctx(use_second)));
    const auto t0 = Clock::now();
    for (size_t k = 0; k < kWindows; ++k) {
      started = true;
      CHECK(cuMemHostRegister(g.map + at + k * kWindow, kWindow, PinFlags(use_second)));
    }
    pin_s = Since(t0);
    for (size_t k = 0; k < kWindows; ++k) CHECK(cuMemHostUnregister(g.map + at + k * kWindow));
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::microseconds(200));  // inside the first pin
  GpuTimed t;
  const double queue_s = t.Queue(g, s);
  const float ms = t.Finish();
  pinner.join();
  std::printf(
      "during-pin %-7s         copies %.2f ms on the GPU (%6.2f GiB/s), queued in %.2f "
      "ms; pins %6.2f GiB/s\n",
      use_second ? "second" : "primary", ms, 1e3 / ms, queue_s * 1e3, Rate(kRegion, pin_s));
}

// Windows of one region, each taken once: by a pinner (pinned, then copied by the copier in
// order of readiness) or by a stager.
struct Windows {
  size_t at = 0;
  std::atomic<size_t> next{0};
  std::vector<std::atomic<int>> state = std::vector<std::atomic<int>>(kWindows);  // 1: pinned
};

void PinLoop(Setup& g, Windows& w, bool use_second) {
  CHECK(cuCtxSetCurrent(g.Ctx(use_second)));
  for (;;) {
    const size_t k = w.next.fetch_add(1);
    if (k >= kWindows) return;
    CHECK(cuMemHostRegister(g.map + w.at + k * kWindow, kWindow, PinFlags(use_second)));
    w.state[k].store(1, std::memory_order_release);
  }
}

struct StageBuffers {
  char* buf[2] = {};
  CUstream s = nullptr;
  CUevent done[2] = {};
};

StageBuffers MakeStage() {
  StageBuffers b;
  CHECK(cuStreamCreate(&b.s, CU_STREAM_NON_BLOCKING));
  for (int i = 0; i < 2; ++i) {
    CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&b.buf[i]), kStage, 0));
    CHECK(cuEventCreate(&b.done[i], CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventRecord(b.done[i], b.s));
  }
  return b;
}

void FreeStage(StageBuffers& b) {
  CHECK(cuStreamSynchronize(b.s));
  for (int i = 0; i < 2; ++i) {
    CHECK(cuMemFreeHost(b.buf[i]));
    CHECK(cuEventDestroy(b.done[i]));
  }
  CHECK(cuStreamDestroy(b.s));
}

// Stages windows taken from `w` (state 2: staged), by pread or from the mapping.
void StageLoop(Setup& g, Windows& w, StageBuffers& b, bool from_map) {
  CHECK(cuCtxSetCurrent(g.primary));
  int i = 0;
  for (;;) {
    const size_t k = w.next.fetch_add(1);
    if (k >= kWindows) break;
    for (size_t p = 0; p < kWindow; p += kStage, i ^= 1) {
      CHECK(cuEventSynchronize(b.done[i]));
      const size_t off = w.at + k * kWindow + p;
      if (from_map) {
        std::memcpy(b.buf[i], g.map + off, kStage);
      } else {
        for (size_t got = 0; got < kStage;) {
          const ssize_t n =
              pread(g.fd, b.buf[i] + got, kStage - got, static_cast<off_t>(off + got));
          if (n <= 0) {
            std::perror("pread");
            std::exit(1);
          }
          got += static_cast<size_t>(n);
        }
      }
      CHECK(cuMemcpyHtoDAsync(g.device + k * kWindow + p, b.buf[i], kStage, b.s));
      CHECK(cuEventRecord(b.done[i], b.s));
    }
    w.state[k].store(2, std::memory_order_release);
  }
  CHECK(cuStreamSynchronize(b.s));
}

// P pinners (context `use_second`) and S stagers over one fresh region; the calling thread
// copies pinned windows in order, `depth` in flight. Returns GiB/s.
double Mix(Setup& g, CUstream s, bool use_second, int pinners, int depth, int stagers,
           bool from_map, int* pinned_windows) {
  Windows w;
  w.at = g.Fresh();
  if (from_map)
    CHECK(madvise(g.map + w.at, kRegion, MADV_POPULATE_READ) == 0 ? CUDA_SUCCESS
                                                                  : CUDA_ERROR_UNKNOWN);
  std::vector<StageBuffers> bufs;
  for (int i = 0; i < stagers; ++i) bufs.push_back(MakeStage());
  std::vector<CUevent> done(static_cast<size_t>(depth));
  for (auto& e : done) CHECK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < pinners; ++i) ts.emplace_back([&] { PinLoop(g, w, use_second); });
  for (int i = 0; i < stagers; ++i) {
    ts.emplace_back([&, i] { StageLoop(g, w, bufs[static_cast<size_t>(i)], from_map); });
  }
  size_t copied = 0;
  for (size_t k = 0; k < kWindows; ++k) {
    int st;
    while ((st = w.state[k].load(std::memory_order_acquire)) == 0) std::this_thread::yield();
    if (st != 1) continue;
    CUevent e = done[copied % done.size()];
    if (copied >= done.size()) CHECK(cuEventSynchronize(e));
    CHECK(cuMemcpyHtoDAsync(g.device + k * kWindow, g.map + w.at + k * kWindow, kWindow, s));
    CHECK(cuEventRecord(e, s));
    ++copied;
  }
  CHECK(cuStreamSynchronize(s));
  for (auto& t : ts) t.join();
  const double secs = Since(t0);
  for (auto& e : done) CHECK(cuEventDestroy(e));
  for (auto& b : bufs) FreeStage(b);
  for (size_t k = 0; k < kWindows; ++k) {
    if (w.state[k] == 1) CHECK(cuMemHostUnregister(g.map + w.at + k * kWindow));
  }
  *pinned_windows = static_cast<int>(copied);
  return Rate(kRegion, secs);
}

void Pipeline(Setup& g, CUstream s, bool use_second, int pinners, int depth) {
  int pinned = 0;
  const double r = Mix(g, s, use_second, pinners, depth, 0, false, &pinned);
  std::printf("pipeline %-7s P %d D %d  %6.2f GiB/s\n", use_second ? "second" : "primary", pinners,
              depth, r);
}

void Stage(Setup& g, CUstream s, int stagers, bool from_map) {
  int pinned = 0;
  const double r = Mix(g, s, false, 0, 2, stagers, from_map, &pinned);
  std::printf("%-8s T %2d              %6.2f GiB/s\n", from_map ? "mapcopy" : "stage", stagers, r);
}

void Hybrid(Setup& g, CUstream s, int pinners, int stagers, bool use_second) {
  int pinned = 0;
  const double r = Mix(g, s, use_second, pinners, 4, stagers, false, &pinned);
  std::printf("hybrid %-7s P %d S %2d   %6.2f GiB/s (%d of %zu windows pinned)\n",
              use_second ? "second" : "primary", pinners, stagers, r, pinned, kWindows);
}

// The cost of a second context: creation time and the device memory it takes.
void SecondContext(Setup& g, CUdevice dev) {
  size_t free_before = 0, free_after = 0, total = 0;
  CHECK(cuMemGetInfo(&free_before, &total));
  const auto t0 = Clock::now();
  CUcontext c;
  CHECK(cuCtxCreate(&c, nullptr, 0, dev));
  const double made = Since(t0);
  CHECK(cuMemGetInfo(&free_after, &total));
  const auto t1 = Clock::now();
  CHECK(cuCtxDestroy(c));
  const double destroyed = Since(t1);
  CHECK(cuCtxSetCurrent(g.primary));
  std::printf("context     created in %.1f ms, destroyed in %.1f ms, %.0f MiB of device memory\n",
              made * 1e3, destroyed * 1e3,
              (static_cast<double>(free_before) - static_cast<double>(free_after)) / kMiB);
}

}  // namespace

// pin-lock-probe FILE REGION_GIB EXPERIMENT...: copy, during:primary|second,
// pipeline:primary|second:P:D, stage:T, mapcopy:T, hybrid:primary|second:P:S, context.
int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: pin-lock-probe FILE REGION_GIB EXPERIMENT...\n");
    return 2;
  }
  kRegion = static_cast<size_t>(std::atoi(argv[2])) * kGiB;
  kWindows = kRegion / kWindow;
  Setup g;
  g.fd = open(argv[1], O_RDONLY);
  struct stat st {};
  if (kRegion == 0 || g.fd < 0 || fstat(g.fd, &st) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  g.size = static_cast<size_t>(st.st_size);
  g.map = static_cast<char*>(mmap(nullptr, g.size, PROT_READ, MAP_SHARED, g.fd, 0));
  if (g.map == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  CUdevice dev;
  g.primary = PrimaryContextOfDevice0(&dev);
  CHECK(cuMemAlloc(&g.device, kRegion));
  CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&g.host), kRegion, CU_MEMHOSTALLOC_PORTABLE));
  std::memset(g.host, 1, kRegion);
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  for (int i = 3; i < argc; ++i) {
    char kind[32] = {}, ctx[16] = {};
    int a = 0, b = 0;
    if (std::sscanf(argv[i], "%31[a-z]:%15[a-z]:%d:%d", kind, ctx, &a, &b) < 1) continue;
    const bool second = std::strcmp(ctx, "second") == 0;
    if (second && g.second == nullptr) {
      CHECK(cuCtxCreate(&g.second, nullptr, 0, dev));
      CHECK(cuCtxSetCurrent(g.primary));
    }
    const std::string k = kind;
    if (k == "copy") {
      Copy(g, s);
    } else if (k == "during") {
      DuringPin(g, s, second);
    } else if (k == "pipeline") {
      Pipeline(g, s, second, a, b);
    } else if (k == "stage" || k == "mapcopy") {
      Stage(g, s, std::atoi(argv[i] + k.size() + 1), k == "mapcopy");
    } else if (k == "hybrid") {
      Hybrid(g, s, a, b, second);
    } else if (k == "context") {
      SecondContext(g, dev);
    } else {
      std::fprintf(stderr, "unknown experiment %s\n", argv[i]);
      return 2;
    }
    std::fflush(stdout);
  }
  return 0;
}
