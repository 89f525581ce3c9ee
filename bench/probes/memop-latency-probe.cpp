// SPDX-License-Identifier: MIT
// How long does a stream take to move on once the host releases it? The stream-ordered path's
// chain waits on a word in pinned host memory that the host stores when an operation's data is
// ready (cuStreamWaitValue32), then copies, then stores a word the host watches. Per round i, on
// one stream, queued ahead: a wait until A >= i, the mode's steps, a store B = i. The host then
// waits DELAY us (the stream is blocked meanwhile), stores A = i and spins until it sees B == i;
// that time is the round's latency. Modes:
//   memop         cuStreamWaitValue32(A), cuStreamWriteValue32(B)
//   memop-kernel  the same with a 4 KiB copy kernel between (the copy-table kernel's shape)
//   spin          a one-thread kernel that polls A and stores B itself
//   spin-memop    a one-thread kernel that polls A, then cuStreamWriteValue32(B)
//   write         no wait: the time from queueing cuStreamWriteValue32(B) to seeing it
// Prints mean, p50 and p90 in us for each mode and delay. PROBE_HOST_NAP_US=n: the host sleeps n
// us (clock_nanosleep, 1 us timer slack) between two looks at B instead of spinning, as the
// library's poller does once nothing has moved for a while.
// Usage: memop-latency-probe PTX ROUNDS [DELAY_US...]  (default delays 0 20 200 2000)
#include <cuda.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cu_check.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Copy {
  unsigned long long dst, src, bytes;
};
struct Table {
  unsigned long long count;
  Copy op[128];
};

void SpinFor(double us) {
  const auto until = Clock::now() + std::chrono::duration<double, std::micro>(us);
  while (Clock::now() < until) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PTX ROUNDS [DELAY_US...]\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[2]);
  std::vector<double> delays;
  for (int i = 3; i < argc; ++i) delays.push_back(std::atof(argv[i]));
  if (delays.empty()) delays = {0, 20, 200, 2000};
  if (rounds < 1) return 2;
  const char* nap_env = std::getenv("PROBE_HOST_NAP_US");
  const long nap_us = nap_env != nullptr ? std::atol(nap_env) : 0;
  if (nap_us > 0) (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  PrimaryContextOfDevice0();
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, argv[1]));
  CUfunction copy_fn, spin_fn;
  CHECK(cuModuleGetFunction(&copy_fn, mod, "copy_w1"));
  CHECK(cuModuleGetFunction(&spin_fn, mod, "spin_wait"));
  CUstream st;
  CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
  void* words_mem = nullptr;
  CHECK(cuMemHostAlloc(&words_mem, 4096, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  auto* words = static_cast<unsigned*>(words_mem);
  void* src = nullptr;
  CHECK(cuMemHostAlloc(&src, 4096, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  void* table_mem = nullptr;
  CHECK(cuMemHostAlloc(&table_mem, sizeof(Table), CU_MEMHOSTALLOC_PORTABLE));
  CUdeviceptr dst;
  CHECK(cuMemAlloc(&dst, 4096));
  auto* table = static_cast<Table*>(table_mem);
  table->count = 1;
  table->op[0] = {dst, reinterpret_cast<unsigned long long>(src), 4096};
  CUdeviceptr a_dev, b_dev;
  CHECK(cuMemHostGetDevicePointer(&a_dev, &words[0], 0));
  CHECK(cuMemHostGetDevicePointer(&b_dev, &words[16], 0));
  auto* a = reinterpret_cast<std::atomic<unsigned>*>(&words[0]);
  auto* b = reinterpret_cast<std::atomic<unsigned>*>(&words[16]);
  unsigned seq = 0;
  for (const std::string mode : {"write", "memop", "memop-kernel", "spin", "spin-memop"}) {
    for (const double delay : delays) {
      if (mode == "write" && delay != delays.front()) continue;
      std::vector<double> us;
      for (int r = 0; r < rounds + 5; ++r) {  // 5 rounds of warm-up
        const unsigned i = ++seq;
        Clock::time_point t0;
        if (mode == "write") {
          t0 = Clock::now();
          CHECK(cuStreamWriteValue32(st, b_dev, i, CU_STREAM_WRITE_VALUE_DEFAULT));
        } else {
          if (mode == "memop" || mode == "memop-kernel") {
            CHECK(cuStreamWaitValue32(st, a_dev, i, CU_STREAM_WAIT_VALUE_GEQ));
            if (mode == "memop-kernel") {
              void* params[] = {&table};
              CHECK(cuLaunchKernel(copy_fn, 1, 1, 1, 256, 1, 1, 0, st, params, nullptr));
            }
            CHECK(cuStreamWriteValue32(st, b_dev, i, CU_STREAM_WRITE_VALUE_DEFAULT));
          } else {
            CUdeviceptr done = mode == "spin" ? b_dev : 0;
            unsigned want = i;
            void* params[] = {&a_dev, &want, &done};
            CHECK(cuLaunchKernel(spin_fn, 1, 1, 1, 32, 1, 1, 0, st, params, nullptr));
            if (mode == "spin-memop") {
              CHECK(cuStreamWriteValue32(st, b_dev, i, CU_STREAM_WRITE_VALUE_DEFAULT));
            }
          }
          SpinFor(delay);
          t0 = Clock::now();
          a->store(i, std::memory_order_release);
        }
        while (b->load(std::memory_order_acquire) != i) {
          if (nap_us > 0) {
            const timespec ts{0, nap_us * 1000};
            clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
          }
        }
        const double took = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        if (r >= 5) us.push_back(took);
      }
      CHECK(cuStreamSynchronize(st));
      std::sort(us.begin(), us.end());
      double sum = 0;
      for (double v : us) sum += v;
      std::printf(
          "%-12s delay_us=%-6.0f host_nap_us=%ld rounds=%d mean_us=%.1f p50_us=%.1f p90_us=%.1f\n",
          mode.c_str(), delay, nap_us, rounds, sum / us.size(), us[us.size() / 2],
          us[us.size() * 9 / 10]);
    }
  }
  CHECK(cuMemFree(dst));
  CHECK(cuMemFreeHost(table_mem));
  CHECK(cuMemFreeHost(src));
  CHECK(cuMemFreeHost(words_mem));
  CHECK(cuStreamDestroy(st));
  return 0;
}
