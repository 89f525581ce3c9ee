// SPDX-License-Identifier: MIT
// pageable-behind-wait: does a host-to-device copy from pageable memory queued on a stream that is
// blocked (a cuStreamWaitValue32 on a host word nobody has set yet) return at once, with its
// source free to reuse, or does the driver first wait for the stream? CUDA documents only that it
// "may synchronize with the stream" when pageable memory must be staged. A read at submission on a
// stream with fixed parameters (issue 21) could queue such a copy only if it returns at once: the
// stream may wait for something the caller does after the call.
//
// For each size: the stream waits on the word; the copy is queued and timed; the source is
// overwritten at once; a watchdog sets the word 300 ms after the copy was started, if the call
// has not returned by then. After the stream drains the destination must hold the source as it
// was at the call. Prints the call's time and whether the bytes are the call-time ones.
//
// Then bursts: the stream blocked again, COUNT copies of one size queued behind the wait, each
// from the same pageable buffer refilled with its own number, each into its own slot; the
// watchdog sets the word once no call has returned for 300 ms. Prints how many were queued
// before one waited (all of them: none did), the slowest call, and whether every slot holds its
// copy's number.
//   pageable-behind-wait
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cu_check.h"

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

int main() {
  PrimaryContextOfDevice0();
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  uint32_t* word = nullptr;
  CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&word), 64,
                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr word_dev = 0;
  CHECK(cuMemHostGetDevicePointer(&word_dev, word, 0));
  constexpr size_t kMax = size_t{16} << 20;
  CUdeviceptr dev = 0;
  CHECK(cuMemAlloc(&dev, kMax));
  std::vector<unsigned char> src(kMax), got(kMax);
  uint32_t round = 0;
  int failures = 0;
  for (const size_t size : {size_t{4096}, size_t{16384}, size_t{65536}, size_t{65540},
                            size_t{262144}, size_t{1} << 20, size_t{16} << 20}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      ++round;
      __atomic_store_n(word, 0, __ATOMIC_RELEASE);
      CHECK(cuMemsetD8(dev, 0, kMax));
      CHECK(cuStreamWaitValue32(stream, word_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
      std::memset(src.data(), static_cast<int>(round & 0xff), size);
      std::atomic<bool> returned{false};
      std::atomic<bool> released{false};
      std::thread watchdog([&] {
        const auto until = Clock::now() + std::chrono::milliseconds(300);
        while (Clock::now() < until && !returned.load()) std::this_thread::yield();
        if (!returned.load()) {
          released = true;
          __atomic_store_n(word, 1, __ATOMIC_RELEASE);
        }
      });
      const auto t0 = Clock::now();
      CHECK(cuMemcpyHtoDAsync(dev, src.data(), size, stream));
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      returned = true;
      std::memset(src.data(), 0xee, size);  // reused at once
      watchdog.join();
      // Hold the stream a little longer before letting it go: the copy must not have run yet.
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      __atomic_store_n(word, 1, __ATOMIC_RELEASE);
      CHECK(cuStreamSynchronize(stream));
      CHECK(cuMemcpyDtoH(got.data(), dev, size));
      bool call_time = true;
      for (size_t i = 0; i < size; ++i) {
        if (got[i] != static_cast<unsigned char>(round & 0xff)) {
          call_time = false;
          break;
        }
      }
      if (!call_time || released) ++failures;
      std::printf("%9zu bytes  call %10.1f us  %s  %s\n", size, us,
                  released ? "WAITED FOR THE STREAM" : "returned while the stream waited",
                  call_time ? "bytes as at the call" : "BYTES CHANGED AFTER THE CALL");
      std::fflush(stdout);
    }
  }
  for (const size_t size : {size_t{4096}, size_t{65536}}) {
    const size_t count = std::min<size_t>(kMax / size, 4096);
    __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    CHECK(cuStreamWaitValue32(stream, word_dev, 1, CU_STREAM_WAIT_VALUE_GEQ));
    std::atomic<int64_t> last_return{Clock::now().time_since_epoch().count()};
    std::atomic<bool> finished{false};
    std::atomic<long> released_at{-1};
    std::atomic<size_t> issued{0};
    std::thread watchdog([&] {
      while (!finished.load()) {
        const auto last = Clock::time_point(Clock::duration(last_return.load()));
        if (Clock::now() - last > std::chrono::milliseconds(300)) {
          released_at = static_cast<long>(issued.load());
          __atomic_store_n(word, 1, __ATOMIC_RELEASE);
          return;
        }
        std::this_thread::yield();
      }
    });
    double slowest = 0;
    for (size_t i = 0; i < count; ++i) {
      std::memset(src.data(), static_cast<int>((i * 7 + 1) & 0xff), size);
      issued = i;
      const auto t0 = Clock::now();
      CHECK(cuMemcpyHtoDAsync(dev + i * size, src.data(), size, stream));
      const auto t1 = Clock::now();
      last_return = t1.time_since_epoch().count();
      slowest = std::max(slowest, std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    finished = true;
    watchdog.join();
    __atomic_store_n(word, 1, __ATOMIC_RELEASE);
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(got.data(), dev, count * size));
    bool right = true;
    for (size_t i = 0; i < count && right; ++i) {
      for (size_t b = 0; b < size; ++b) {
        if (got[i * size + b] != static_cast<unsigned char>((i * 7 + 1) & 0xff)) {
          right = false;
          break;
        }
      }
    }
    if (released_at.load() >= 0 || !right) ++failures;
    std::printf(
        "burst %zu x %zu bytes behind a wait: %s, slowest call %.1f us, %s\n", count, size,
        released_at.load() >= 0
            ? ("copy " + std::to_string(released_at.load()) + " WAITED FOR THE STREAM").c_str()
            : "none waited",
        slowest, right ? "every slot right" : "SLOTS WRONG");
    std::fflush(stdout);
  }
  std::printf("%s\n", failures == 0 ? "every copy returned at once with its source taken"
                                    : "some copies waited or read their source late");
  return 0;
}
