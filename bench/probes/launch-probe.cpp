// SPDX-License-Identifier: MIT
// How much CPU does queueing small GPU copies cost, per copy, with many threads? Three ways of
// moving G pieces of S bytes from pinned host memory to device memory per round, one stream per
// thread, one cuStreamSynchronize per round:
//   copy    G cuMemcpyAsync calls
//   batch   one cuMemcpyBatchAsync call (CUDA 12.8+)
//   kernel  one launch of a gather kernel that copies all G pieces (the GPU reads host memory)
// Prints pieces/s and cores busy for each. Usage: launch-probe THREADS G S SECONDS
// (PROBE_WAIT=query polls cuStreamQuery instead, as the engine's waits begin).
#include <cuda.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cu_check.h"
#include "runtime/cuda/gather_kernel.h"

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s THREADS G S SECONDS\n", argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const size_t g = std::strtoul(argv[2], nullptr, 10);
  const size_t s = std::strtoul(argv[3], nullptr, 10);
  const double seconds = std::atof(argv[4]);
  // PROBE_WAIT=query: wait by polling cuStreamQuery instead of cuStreamSynchronize.
  const char* wait = std::getenv("PROBE_WAIT");
  const bool poll = wait != nullptr && std::strcmp(wait, "query") == 0;
  // PROBE_SPREAD_MB=n: each thread's pieces lie at random 4 KiB-aligned places of n MiB of
  // pinned memory and of device memory, changing every round, as a batch's staging slices and
  // destinations do (default: the same G * S bytes every round).
  const char* spread_env = std::getenv("PROBE_SPREAD_MB");
  const size_t spread = spread_env != nullptr ? std::strtoul(spread_env, nullptr, 10) << 20 : 0;
  if (g < 1 || g > 128) return 2;
  const CUcontext ctx = PrimaryContextOfDevice0();
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, hipfile::runtime::kGatherKernelPtx));
  CUfunction fn;
  CHECK(cuModuleGetFunction(&fn, mod, hipfile::runtime::kGatherKernelName));
  for (const char* mode : {"copy", "batch", "kernel"}) {
    std::atomic<bool> stop{false};
    std::atomic<unsigned long long> pieces{0};
    std::atomic<int> bad{0};
    std::atomic<unsigned long long> fewest{~0ull};
    std::vector<std::thread> ts;
    const double cpu0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        CHECK(cuCtxSetCurrent(ctx));
        CUstream st;
        CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
        void* host = nullptr;
        const size_t bytes = std::max(g * s, spread);
        CHECK(cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
        CUdeviceptr dev_mem;
        CHECK(cuMemAlloc(&dev_mem, bytes));
        std::memset(host, t + 1, bytes);
        unsigned long long rng = 0x9e3779b97f4a7c15ull * (t + 1);
        std::vector<CUdeviceptr> dsts(g), srcs(g);
        std::vector<size_t> sizes(g, s);
        hipfile::runtime::CopyTable args;
        args.count = g;
        for (size_t i = 0; i < g; ++i) {
          dsts[i] = dev_mem + i * s;
          srcs[i] = reinterpret_cast<CUdeviceptr>(host) + i * s;
          args.copy[i] = {dsts[i], srcs[i], s};
        }
        CUmemcpyAttributes attr{};
        attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
        size_t attr_idx = 0;
        unsigned long long n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          if (spread != 0) {
            const size_t places = (bytes - s) / 4096;
            for (size_t i = 0; i < g; ++i) {
              rng = rng * 6364136223846793005ull + 1442695040888963407ull;
              const size_t at = ((rng >> 33) % places) * 4096;
              srcs[i] = reinterpret_cast<CUdeviceptr>(host) + at;
              rng = rng * 6364136223846793005ull + 1442695040888963407ull;
              dsts[i] = dev_mem + ((rng >> 33) % places) * 4096;
              args.copy[i] = {dsts[i], srcs[i], s};
            }
          }
          if (mode[0] == 'c') {
            for (size_t i = 0; i < g; ++i) {
              CHECK(cuMemcpyHtoDAsync(dsts[i], reinterpret_cast<void*>(srcs[i]), s, st));
            }
          } else if (mode[0] == 'b') {
            CHECK(cuMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), g, &attr, &attr_idx, 1,
                                     st));
          } else {
            void* params[] = {&args};
            CHECK(cuLaunchKernel(fn, static_cast<unsigned>(g), 1, 1, 256, 1, 1, 0, st, params,
                                 nullptr));
          }
          if (poll) {
            CUresult q;
            while ((q = cuStreamQuery(st)) == CUDA_ERROR_NOT_READY) {
            }
            CHECK(q);
          } else {
            CHECK(cuStreamSynchronize(st));
          }
          n += g;
        }
        std::vector<unsigned char> check(spread != 0 ? s : g * s);
        CHECK(cuMemcpyDtoH(check.data(), spread != 0 ? dsts[0] : dev_mem, check.size()));
        for (size_t i = 0; i < check.size(); ++i) {
          if (check[i] != static_cast<unsigned char>(t + 1)) {
            if (bad.fetch_add(1) == 0) {
              std::fprintf(stderr, "%s: thread %d (%llu rounds): byte %zu is %d, want %d\n", mode,
                           t, n / g, i, check[i], t + 1);
            }
            break;
          }
        }
        for (unsigned long long f = fewest.load(); n / g < f;) {
          if (fewest.compare_exchange_weak(f, n / g)) break;
        }
        pieces.fetch_add(n);
        CHECK(cuMemFree(dev_mem));
        CHECK(cuMemFreeHost(host));
        CHECK(cuStreamDestroy(st));
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& th : ts) th.join();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = CpuSeconds() - cpu0;
    std::printf(
        "%-6s threads=%d G=%zu S=%zu pieces/s=%.0f cores=%.2f cpu_us_per_piece=%.2f "
        "fewest_rounds=%llu %s\n",
        mode, threads, g, s, pieces / wall, cpu / wall, cpu * 1e6 / pieces, fewest.load(),
        bad ? "DATA MISMATCH" : "verified");
  }
  return 0;
}
