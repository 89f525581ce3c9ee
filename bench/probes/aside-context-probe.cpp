// SPDX-License-Identifier: MIT
// Can a second CUDA context on the same device make the copies of stream-ordered reads whose
// sizes are only known when their stream gets there (issue 21's queued way), as DMA, while the
// caller's streams wait on host words in the primary context? A copy queued on a stream of the
// primary context can be stuck behind a waiting stream on a shared hardware queue, and any call
// in the primary context waits while another thread frees memory there (docs/async.md). Modes,
// each run alone (a mode that hangs is ended by a watchdog after PROBE_TIMEOUT_S, default 10, and
// says so; run each in a process of its own):
//   access        the aside context copies pinned host memory (allocated portable in the primary
//                 context) into device memory of the primary context, and back, with
//                 cuMemcpyHtoDAsync/DtoHAsync and with cuMemcpyPeerAsync; every byte checked.
//   release CTX   16 primary streams each wait on a host word, then store a second one; CTX
//                 (aside|primary) then copies 16 MiB per stream and stores the first word on a
//                 stream of its own. Run it with CUDA_DEVICE_MAX_CONNECTIONS=1: a primary
//                 stream's copy then queues behind the waits (expected to hang), an aside one not.
//   free CTX [ORDER]  a primary stream waits on a host word; another thread calls cuMemFree in
//                 the primary context (which waits for the stream); then a stream of CTX, made
//                 before, queues ORDER's steps (default wcg: w a write of a word nobody waits
//                 for, c the copy, g the write that releases the waiting stream). Do CTX's calls
//                 return while the free waits, and which one waits if not?
//   rate CTX      16 threads, each with its own stream of CTX, 16 MiB source and destination,
//                 copy back to back (2 in flight) for PROBE_SECONDS (default 3): GiB/s.
//   kernel CTX    a primary kernel's time (the copy-table kernel copying 256 MiB device to
//                 device, 20 times, timed by events) alone and while 8 threads of CTX copy host to
//                 device: does work in a second context slow the primary context's kernels?
// Usage: aside-context-probe PTX MODE [CTX]   (PTX: bench/probes/copy-kernel-variants.ptx)
#include <cuda.h>
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

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMiB = size_t{1} << 20;

struct Copy {
  unsigned long long dst, src, bytes;
};
struct Table {
  unsigned long long count;
  Copy op[128];
};

CUdevice g_dev;
CUcontext g_primary;
CUcontext g_aside;

void Watchdog(const char* what) {
  const char* env = std::getenv("PROBE_TIMEOUT_S");
  const int seconds = env != nullptr ? std::atoi(env) : 10;
  std::thread([what, seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::printf("%s: HUNG (nothing moved for %d s)\n", what, seconds);
    std::fflush(stdout);
    _exit(3);
  }).detach();
}

CUcontext Ctx(const std::string& name) {
  if (name == "aside") return g_aside;
  if (name == "primary") return g_primary;
  std::fprintf(stderr, "CTX is aside or primary, not %s\n", name.c_str());
  std::exit(2);
}

void* PinnedHost(size_t bytes, unsigned char fill) {
  void* p = nullptr;
  CHECK(cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  std::memset(p, fill, bytes);
  return p;
}

unsigned* Word() {
  auto* w = static_cast<unsigned*>(PinnedHost(64, 0));
  *reinterpret_cast<volatile unsigned*>(w) = 0;
  return w;
}

CUdeviceptr DeviceOf(void* host) {
  CUdeviceptr d = 0;
  CHECK(cuMemHostGetDevicePointer(&d, host, 0));
  return d;
}

// Primary-context device bytes, back on the host.
std::vector<unsigned char> Read(CUdeviceptr d, size_t n) {
  std::vector<unsigned char> out(n);
  CHECK(cuCtxSetCurrent(g_primary));
  CHECK(cuMemcpyDtoH(out.data(), d, n));
  return out;
}

bool AllAre(const std::vector<unsigned char>& v, unsigned char b) {
  for (unsigned char c : v) {
    if (c != b) return false;
  }
  return true;
}

int Access() {
  const size_t n = 64 * kMiB;
  CHECK(cuCtxSetCurrent(g_primary));
  CUdeviceptr dst = 0;
  CHECK(cuMemAlloc(&dst, n));
  CHECK(cuMemsetD8(dst, 0, n));
  void* src = PinnedHost(n, 0x5a);
  void* back = PinnedHost(n, 0);
  CHECK(cuCtxSetCurrent(g_aside));
  CUstream s = nullptr;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUresult r = cuMemcpyHtoDAsync(dst, src, n, s);
  if (r == CUDA_SUCCESS) r = cuStreamSynchronize(s);
  const char* e = nullptr;
  cuGetErrorString(r, &e);
  std::printf("access htod (cuMemcpyHtoDAsync from the aside context): %s, bytes %s\n",
              r == CUDA_SUCCESS ? "ok" : e, AllAre(Read(dst, n), 0x5a) ? "right" : "WRONG");
  CHECK(cuCtxSetCurrent(g_aside));
  r = cuMemcpyDtoHAsync(back, dst, n, s);
  if (r == CUDA_SUCCESS) r = cuStreamSynchronize(s);
  cuGetErrorString(r, &e);
  std::vector<unsigned char> got(static_cast<unsigned char*>(back),
                                 static_cast<unsigned char*>(back) + n);
  std::printf("access dtoh (cuMemcpyDtoHAsync from the aside context): %s, bytes %s\n",
              r == CUDA_SUCCESS ? "ok" : e, AllAre(got, 0x5a) ? "right" : "WRONG");
  std::memset(src, 0xa5, n);
  r = cuMemcpyPeerAsync(dst, g_primary, DeviceOf(src), g_aside, n, s);
  if (r == CUDA_SUCCESS) r = cuStreamSynchronize(s);
  cuGetErrorString(r, &e);
  std::printf(
      "access peer (cuMemcpyPeerAsync, mapped host to primary device memory): %s, bytes %s\n",
      r == CUDA_SUCCESS ? "ok" : e, AllAre(Read(dst, n), 0xa5) ? "right" : "WRONG");
  return 0;
}

int Release(CUcontext ctx, const char* name) {
  constexpr int kStreams = 16;
  const size_t n = 16 * kMiB;
  CHECK(cuCtxSetCurrent(g_primary));
  std::vector<CUstream> waiting(kStreams);
  std::vector<unsigned*> go(kStreams), passed(kStreams);
  std::vector<CUdeviceptr> dst(kStreams);
  std::vector<void*> src(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cuStreamCreate(&waiting[i], CU_STREAM_NON_BLOCKING));
    go[i] = Word();
    passed[i] = Word();
    CHECK(cuMemAlloc(&dst[i], n));
    src[i] = PinnedHost(n, static_cast<unsigned char>(i + 1));
  }
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cuStreamWaitValue32(waiting[i], DeviceOf(go[i]), 1, CU_STREAM_WAIT_VALUE_GEQ));
    CHECK(cuStreamWriteValue32(waiting[i], DeviceOf(passed[i]), 1, 0));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // every stream waiting
  CHECK(cuCtxSetCurrent(ctx));
  std::vector<CUstream> copier(kStreams);
  const auto start = Clock::now();
  Watchdog(name);
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cuStreamCreate(&copier[i], CU_STREAM_NON_BLOCKING));
    CHECK(cuMemcpyHtoDAsync(dst[i], src[i], n, copier[i]));
    CHECK(cuStreamWriteValue32(copier[i], DeviceOf(go[i]), 1, 0));
  }
  for (int i = 0; i < kStreams; ++i) {
    while (*reinterpret_cast<volatile unsigned*>(passed[i]) != 1) std::this_thread::yield();
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  bool right = true;
  for (int i = 0; i < kStreams; ++i) right = right && AllAre(Read(dst[i], n), i + 1);
  std::printf("%s: every waiting stream released in %.2f ms, bytes %s\n", name, ms,
              right ? "right" : "WRONG");
  return 0;
}

// The copier's stream (of CTX) is made before the free; then each call it makes while the free
// waits is announced first, so that a hang names the call that waits.
int Free(CUcontext ctx, const char* name, const std::string& order) {
  const size_t n = 16 * kMiB;
  CHECK(cuCtxSetCurrent(g_primary));
  CUstream waiting = nullptr;
  CHECK(cuStreamCreate(&waiting, CU_STREAM_NON_BLOCKING));
  unsigned* go = Word();
  unsigned* copied = Word();
  CUdeviceptr dst = 0, spare = 0;
  CHECK(cuMemAlloc(&dst, n));
  CHECK(cuMemAlloc(&spare, 4096));
  void* src = PinnedHost(n, 0x77);
  CHECK(cuCtxSetCurrent(ctx));
  CUstream copier = nullptr;
  CHECK(cuStreamCreate(&copier, CU_STREAM_NON_BLOCKING));
  CHECK(cuCtxSetCurrent(g_primary));
  CHECK(cuStreamWaitValue32(waiting, DeviceOf(go), 1, CU_STREAM_WAIT_VALUE_GEQ));
  std::atomic<bool> freed{false};
  std::thread freer([&] {
    CHECK(cuCtxSetCurrent(g_primary));
    CHECK(cuMemFree(spare));
    freed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::printf("%s: the free %s while the stream waits\n", name,
              freed.load() ? "RETURNED (no implicit wait)" : "waits");
  CHECK(cuCtxSetCurrent(ctx));
  Watchdog(name);
  const auto start = Clock::now();
  const auto say = [&](const char* what) {
    std::printf("%s: %.2f ms: %s\n", name,
                std::chrono::duration<double, std::milli>(Clock::now() - start).count(), what);
    std::fflush(stdout);
  };
  for (char step : order) {
    if (step == 'w') {
      say("queueing a write of a word the primary stream does not wait for");
      CHECK(cuStreamWriteValue32(copier, DeviceOf(copied), 1, 0));
    } else if (step == 'c') {
      say("queueing the copy");
      CHECK(cuMemcpyHtoDAsync(dst, src, n, copier));
    } else if (step == 'g') {
      say("queueing the write the primary stream waits for");
      CHECK(cuStreamWriteValue32(copier, DeviceOf(go), 1, 0));
    }
  }
  say("queued; joining the free");
  freer.join();
  say("the free returned");
  CHECK(cuCtxSetCurrent(g_primary));
  CHECK(cuStreamSynchronize(waiting));
  std::printf("%s: bytes %s\n", name, AllAre(Read(dst, n), 0x77) ? "right" : "WRONG");
  return 0;
}

int Rate(CUcontext ctx, const char* name) {
  constexpr int kThreads = 16;
  const size_t n = 16 * kMiB;
  const char* env = std::getenv("PROBE_SECONDS");
  const double seconds = env != nullptr ? std::atof(env) : 3.0;
  std::vector<CUdeviceptr> dst(kThreads);
  std::vector<void*> src(kThreads);
  CHECK(cuCtxSetCurrent(g_primary));
  for (int i = 0; i < kThreads; ++i) {
    CHECK(cuMemAlloc(&dst[i], n));
    src[i] = PinnedHost(n, static_cast<unsigned char>(i + 1));
  }
  std::atomic<long> copies{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  Watchdog(name);
  const auto start = Clock::now();
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      CHECK(cuCtxSetCurrent(ctx));
      CUstream s = nullptr;
      CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
      CUevent ev[2];
      for (CUevent& e : ev) CHECK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
      long k = 0;
      for (; !stop.load(); ++k) {
        if (k >= 2) CHECK(cuEventSynchronize(ev[k % 2]));
        CHECK(cuMemcpyHtoDAsync(dst[i], src[i], n, s));
        CHECK(cuEventRecord(ev[k % 2], s));
      }
      CHECK(cuStreamSynchronize(s));
      copies += k;
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& t : threads) t.join();
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  bool right = true;
  for (int i = 0; i < kThreads; ++i) right = right && AllAre(Read(dst[i], n), i + 1);
  std::printf("%s: %d threads x 16 MiB copies, 2 in flight: %.1f GiB/s, bytes %s\n", name, kThreads,
              static_cast<double>(copies.load()) * n / s / (1 << 30), right ? "right" : "WRONG");
  return 0;
}

int Kernel(const char* ptx, CUcontext ctx, const char* name) {
  const size_t n = 256 * kMiB;
  CHECK(cuCtxSetCurrent(g_primary));
  CUmodule mod = nullptr;
  CHECK(cuModuleLoad(&mod, ptx));
  CUfunction fn = nullptr;
  CHECK(cuModuleGetFunction(&fn, mod, "copy_w4"));
  CUdeviceptr a = 0, b = 0;
  CHECK(cuMemAlloc(&a, n));
  CHECK(cuMemAlloc(&b, n));
  auto* table = static_cast<Table*>(PinnedHost(sizeof(Table), 0));
  table->count = 1;
  table->op[0] = Copy{b, a, n};
  CUdeviceptr table_dev = DeviceOf(table);
  CUstream s = nullptr;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUevent t0, t1;
  CHECK(cuEventCreate(&t0, 0));
  CHECK(cuEventCreate(&t1, 0));
  const auto timed = [&] {
    CHECK(cuCtxSetCurrent(g_primary));
    CHECK(cuEventRecord(t0, s));
    for (int i = 0; i < 20; ++i) {
      void* params[] = {&table_dev};
      CHECK(cuLaunchKernel(fn, 1056, 1, 1, 256, 1, 1, 0, s, params, nullptr));
    }
    CHECK(cuEventRecord(t1, s));
    CHECK(cuEventSynchronize(t1));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, t0, t1));
    return ms;
  };
  timed();  // loads and warms
  const float alone = timed();
  constexpr int kCopiers = 8;
  std::vector<CUdeviceptr> dst(kCopiers);
  std::vector<void*> src(kCopiers);
  for (int i = 0; i < kCopiers; ++i) {
    CHECK(cuMemAlloc(&dst[i], 16 * kMiB));
    src[i] = PinnedHost(16 * kMiB, 1);
  }
  std::atomic<bool> stop{false};
  std::atomic<long> copies{0};
  std::vector<std::thread> threads;
  Watchdog(name);
  for (int i = 0; i < kCopiers; ++i) {
    threads.emplace_back([&, i] {
      CHECK(cuCtxSetCurrent(ctx));
      CUstream cs = nullptr;
      CHECK(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING));
      long k = 0;
      for (; !stop.load(); ++k) {
        CHECK(cuMemcpyHtoDAsync(dst[i], src[i], 16 * kMiB, cs));
        CHECK(cuStreamSynchronize(cs));
      }
      copies += k;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = Clock::now();
  const float busy = timed();
  const double s_busy = std::chrono::duration<double>(Clock::now() - start).count();
  stop = true;
  for (std::thread& t : threads) t.join();
  std::printf(
      "%s: primary kernel 20 x 256 MiB device copy alone %.2f ms, with %d copier threads "
      "of CTX %.2f ms (%.2fx); copies meanwhile about %.1f GiB/s\n",
      name, alone, kCopiers, busy, busy / alone,
      static_cast<double>(copies.load()) * 16 * kMiB / (s_busy + 0.2) / (1 << 30));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PTX access|release|free|rate|kernel [aside|primary]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[2];
  const std::string ctx_name = argc > 3 ? argv[3] : "aside";
  g_primary = PrimaryContextOfDevice0(&g_dev);
  size_t free_before = 0, free_after = 0, free_limited = 0, total = 0;
  CHECK(cuMemGetInfo(&free_before, &total));
  const auto made = Clock::now();
  CHECK(cuCtxCreate(&g_aside, nullptr, 0, g_dev));
  const double make_ms = std::chrono::duration<double, std::milli>(Clock::now() - made).count();
  CHECK(cuMemGetInfo(&free_after, &total));
  // A context that runs no kernels needs no stack, heap or printf buffer of its own.
  const CUresult limits = cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0);
  cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 0);
  cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 0);
  CHECK(cuMemGetInfo(&free_limited, &total));
  CHECK(cuCtxSetCurrent(g_primary));
  std::printf(
      "# aside context made in %.1f ms; it took %.0f MiB of device memory, %.0f MiB after "
      "its limits were set to 0 (stack limit: %s)\n",
      make_ms, (free_before - free_after) / double(kMiB),
      (free_before - free_limited) / double(kMiB), limits == CUDA_SUCCESS ? "set" : "refused");
  const std::string label = mode + " " + ctx_name;
  const CUcontext ctx = Ctx(ctx_name);
  if (mode == "access") return Access();
  if (mode == "release") return Release(ctx, label.c_str());
  if (mode == "free") return Free(ctx, label.c_str(), argc > 4 ? argv[4] : "wcg");
  if (mode == "rate") return Rate(ctx, label.c_str());
  if (mode == "kernel") return Kernel(argv[1], ctx, label.c_str());
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
