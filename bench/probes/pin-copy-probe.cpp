// SPDX-License-Identifier: MIT
// pin-copy-probe: why pinning the page cache and copying from it slow each other down (issue 20
// item 1). first-pass-probe showed pins alone at ~46 GiB/s and copies at the link (~50), but a
// thread that pins a window and then copies it reaching 20-32 GiB/s. Each experiment below runs on
// fresh (never pinned) 1 GiB regions of FILE (24 GiB will do), which must be in the page cache:
//
//   copy D          copies from one pinned host buffer, 64 MiB each, D in flight on one stream:
//                   the link
//   pin W T         pins alone: T threads pinning W-MiB windows (then unpinned, untimed)
//   populate T      MADV_POPULATE_READ of the file mapping on T threads (page tables only), then
//                   pins of the populated windows on T threads
//   overlap T D     T threads pin a fresh region while one thread copies from a pinned buffer
//                   with D in flight: the pin rate and copy rate while both run, and the longest
//                   a single hipMemcpyAsync call took to return (submission blocked by pinning?)
//   pipeline P D    P threads pin windows in file order; one thread copies each window as soon
//                   as it is pinned, D copies in flight: the first pass a decoupled plan can reach
//   memcpy T        pread of 16 MiB pieces into a thread's own (pre-faulted, unpinned) buffer on T
//                   threads: the CPU's page-cache copy rate, no GPU
//   stage T         pread into pinned staging, each piece copied to the GPU (2 buffers a thread)
//   memcpy+copy T   memcpy T next to one thread copying from a pinned buffer: does the DMA's
//                   memory traffic slow the CPU's copies and the reverse
//
//   pin-copy-probe FILE
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace {

constexpr size_t kMiB = 1ull << 20;
constexpr size_t kGiB = 1ull << 30;
constexpr size_t kRegion = 1 * kGiB;
constexpr size_t kPiece = 64 * kMiB;

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void Check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, hipGetErrorString(e));
    std::exit(1);
  }
}

struct File {
  int fd = -1;
  char* map = nullptr;
  size_t size = 0;
  size_t next_region = 0;

  // A fresh 2 GiB region's offset; exits when the file has none left.
  size_t Fresh() {
    if (next_region + kRegion > size) {
      std::fprintf(stderr, "out of fresh 1 GiB regions: use a bigger file\n");
      std::exit(1);
    }
    const size_t at = next_region;
    next_region += kRegion;
    return at;
  }
};

struct Gpu {
  char* device = nullptr;  // kRegion bytes
  char* host = nullptr;    // kRegion bytes, pinned (hipHostMalloc)
};

// Copies `bytes` from the pinned host buffer to the device, kPiece each, `depth` in flight, until
// `bytes` are moved or `*stop` is set; returns bytes moved, the longest hipMemcpyAsync return.
struct CopyResult {
  size_t bytes = 0;
  double seconds = 0;
  double longest_submit_ms = 0;
};

CopyResult CopyLoop(const Gpu& g, size_t bytes, int depth, const std::atomic<bool>* stop) {
  hipStream_t s;
  Check(hipStreamCreate(&s), "hipStreamCreate");
  std::vector<hipEvent_t> done(static_cast<size_t>(depth));
  for (auto& e : done) Check(hipEventCreateWithFlags(&e, hipEventDisableTiming), "event");
  CopyResult r;
  const auto t0 = Clock::now();
  size_t issued = 0;
  for (size_t k = 0;; ++k) {
    if (stop != nullptr ? stop->load() : issued >= bytes) break;
    hipEvent_t e = done[k % done.size()];
    if (k >= done.size()) Check(hipEventSynchronize(e), "event sync");
    const size_t off = (k * kPiece) % kRegion;
    const auto c0 = Clock::now();
    Check(hipMemcpyAsync(g.device + off, g.host + off, kPiece, hipMemcpyHostToDevice, s), "copy");
    r.longest_submit_ms = std::max(r.longest_submit_ms, Seconds(c0, Clock::now()) * 1e3);
    Check(hipEventRecord(e, s), "record");
    issued += kPiece;
  }
  Check(hipStreamSynchronize(s), "sync");
  r.seconds = Seconds(t0, Clock::now());
  r.bytes = issued;
  for (auto& e : done) Check(hipEventDestroy(e), "event destroy");
  Check(hipStreamDestroy(s), "hipStreamDestroy");
  return r;
}

// Pins [at, at + kRegion) of the mapping in `window`-byte pieces on `threads` threads; returns
// seconds. The pieces are unpinned afterwards, untimed.
double PinRegion(File& f, size_t at, size_t window, int threads) {
  std::atomic<size_t> next{0};
  std::vector<std::vector<char*>> pinned(static_cast<size_t>(threads));
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) {
    ts.emplace_back([&, i] {
      for (;;) {
        const size_t off = next.fetch_add(window);
        if (off >= kRegion) break;
        char* p = f.map + at + off;
        Check(hipHostRegister(p, window, hipHostRegisterReadOnly), "hipHostRegister");
        pinned[static_cast<size_t>(i)].push_back(p);
      }
    });
  }
  for (auto& t : ts) t.join();
  const double s = Seconds(t0, Clock::now());
  for (auto& v : pinned) {
    for (char* p : v) Check(hipHostUnregister(p), "hipHostUnregister");
  }
  return s;
}

double Rate(size_t bytes, double s) { return static_cast<double>(bytes) / s / kGiB; }

void Copy(const Gpu& g, int depth) {
  const CopyResult r = CopyLoop(g, 8 * kGiB, depth, nullptr);
  std::printf("copy        depth %d: %6.2f GiB/s (longest submit %.2f ms)\n", depth,
              Rate(r.bytes, r.seconds), r.longest_submit_ms);
}

void Pin(File& f, size_t window, int threads) {
  const double s = PinRegion(f, f.Fresh(), window, threads);
  std::printf("pin         %3zu MiB x %d threads: %6.2f GiB/s\n", window / kMiB, threads,
              Rate(kRegion, s));
}

void Populate(File& f, int threads) {
  const size_t at = f.Fresh();
  std::atomic<size_t> next{0};
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) {
    ts.emplace_back([&] {
      for (;;) {
        const size_t off = next.fetch_add(kPiece);
        if (off >= kRegion) break;
        if (madvise(f.map + at + off, kPiece, MADV_POPULATE_READ) != 0) {
          std::perror("madvise(MADV_POPULATE_READ)");
          return;
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  const double populate = Seconds(t0, Clock::now());
  const double pin = PinRegion(f, at, kPiece, threads);
  std::printf("populate    %d threads: %6.2f GiB/s, then pins of it %6.2f GiB/s\n", threads,
              Rate(kRegion, populate), Rate(kRegion, pin));
}

void Overlap(File& f, const Gpu& g, int threads, int depth) {
  std::atomic<bool> stop{false};
  CopyResult c;
  std::thread copier([&] { c = CopyLoop(g, 0, depth, &stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // copies flowing first
  const double s = PinRegion(f, f.Fresh(), kPiece, threads);
  stop = true;
  copier.join();
  std::printf(
      "overlap     pin %d threads: pins %6.2f GiB/s; copies (depth %d) %6.2f GiB/s "
      "over %.2f s, longest submit %.2f ms\n",
      threads, Rate(kRegion, s), depth, Rate(c.bytes, c.seconds), c.seconds, c.longest_submit_ms);
}

void Pipeline(File& f, const Gpu& g, int pinners, int depth) {
  const size_t at = f.Fresh();
  const size_t windows = kRegion / kPiece;
  std::vector<std::atomic<int>> ready(windows);
  for (auto& r : ready) r = 0;
  std::atomic<size_t> next{0};
  std::vector<char*> pinned(windows, nullptr);
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < pinners; ++i) {
    ts.emplace_back([&] {
      for (;;) {
        const size_t k = next.fetch_add(1);
        if (k >= windows) break;
        char* p = f.map + at + k * kPiece;
        Check(hipHostRegister(p, kPiece, hipHostRegisterReadOnly), "hipHostRegister");
        pinned[k] = p;
        ready[k].store(1, std::memory_order_release);
      }
    });
  }
  hipStream_t s;
  Check(hipStreamCreate(&s), "hipStreamCreate");
  std::vector<hipEvent_t> done(static_cast<size_t>(depth));
  for (auto& e : done) Check(hipEventCreateWithFlags(&e, hipEventDisableTiming), "event");
  double waited = 0;
  for (size_t k = 0; k < windows; ++k) {
    const auto w0 = Clock::now();
    while (ready[k].load(std::memory_order_acquire) == 0) std::this_thread::yield();
    waited += Seconds(w0, Clock::now());
    hipEvent_t e = done[k % done.size()];
    if (k >= done.size()) Check(hipEventSynchronize(e), "event sync");
    Check(hipMemcpyAsync(g.device + k * kPiece, pinned[k], kPiece, hipMemcpyHostToDevice, s),
          "copy");
    Check(hipEventRecord(e, s), "record");
  }
  Check(hipStreamSynchronize(s), "sync");
  const double secs = Seconds(t0, Clock::now());
  for (auto& t : ts) t.join();
  for (auto& e : done) Check(hipEventDestroy(e), "event destroy");
  Check(hipStreamDestroy(s), "hipStreamDestroy");
  for (char* p : pinned) Check(hipHostUnregister(p), "hipHostUnregister");
  std::printf(
      "pipeline    pin %d threads, copy depth %d: %6.2f GiB/s (copier waited for pins "
      "%.0f%% of the time)\n",
      pinners, depth, Rate(kRegion, secs), 100 * waited / secs);
}

// pread of the region in 16 MiB pieces on `threads` threads into their own buffers; with `gpu`,
// each piece goes to pinned staging and on to the device (two buffers a thread).
double Memcpy(File& f, const Gpu* gpu, int threads) {
  const size_t at = f.Fresh();
  constexpr size_t kStage = 16 * kMiB;
  std::atomic<size_t> next{0};
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) {
    ts.emplace_back([&] {
      char* buf[2];
      hipStream_t s = nullptr;
      hipEvent_t done[2] = {};
      for (int b = 0; b < 2; ++b) {
        if (gpu != nullptr) {
          Check(hipHostMalloc(reinterpret_cast<void**>(&buf[b]), kStage, 0), "hipHostMalloc");
        } else {
          buf[b] = static_cast<char*>(std::malloc(kStage));
          std::memset(buf[b], 1, kStage);
        }
      }
      if (gpu != nullptr) {
        Check(hipStreamCreate(&s), "hipStreamCreate");
        for (auto& e : done) {
          Check(hipEventCreateWithFlags(&e, hipEventDisableTiming), "event");
          Check(hipEventRecord(e, s), "record");
        }
      }
      for (int b = 0;; b ^= 1) {
        const size_t off = next.fetch_add(kStage);
        if (off >= kRegion) break;
        if (gpu != nullptr) Check(hipEventSynchronize(done[b]), "event sync");
        for (size_t got = 0; got < kStage;) {
          const ssize_t n =
              pread(f.fd, buf[b] + got, kStage - got, static_cast<off_t>(at + off + got));
          if (n <= 0) {
            std::perror("pread");
            std::exit(1);
          }
          got += static_cast<size_t>(n);
        }
        if (gpu != nullptr) {
          Check(hipMemcpyAsync(gpu->device + off, buf[b], kStage, hipMemcpyHostToDevice, s),
                "copy");
          Check(hipEventRecord(done[b], s), "record");
        }
      }
      if (gpu != nullptr) {
        Check(hipStreamSynchronize(s), "sync");
        for (auto& e : done) Check(hipEventDestroy(e), "event destroy");
        Check(hipStreamDestroy(s), "hipStreamDestroy");
      }
      for (auto* p : buf) {
        if (gpu != nullptr) {
          Check(hipHostFree(p), "hipHostFree");
        } else {
          std::free(p);
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  return Seconds(t0, Clock::now());
}

void MemcpyAlone(File& f, int threads) {
  std::printf("memcpy      %2d threads: %6.2f GiB/s\n", threads,
              Rate(kRegion, Memcpy(f, nullptr, threads)));
}

void Stage(File& f, const Gpu& g, int threads) {
  std::printf("stage       %2d threads: %6.2f GiB/s\n", threads,
              Rate(kRegion, Memcpy(f, &g, threads)));
}

void MemcpyAndCopy(File& f, const Gpu& g, int threads) {
  std::atomic<bool> stop{false};
  CopyResult c;
  std::thread copier([&] { c = CopyLoop(g, 0, 4, &stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double s = Memcpy(f, nullptr, threads);
  stop = true;
  copier.join();
  std::printf("memcpy+copy %2d threads: memcpy %6.2f GiB/s; copies %6.2f GiB/s\n", threads,
              Rate(kRegion, s), Rate(c.bytes, c.seconds));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pin-copy-probe FILE\n");
    return 2;
  }
  File f;
  f.fd = open(argv[1], O_RDONLY);
  struct stat st {};
  if (f.fd < 0 || fstat(f.fd, &st) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  f.size = static_cast<size_t>(st.st_size);
  f.map = static_cast<char*>(mmap(nullptr, f.size, PROT_READ, MAP_SHARED, f.fd, 0));
  if (f.map == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  Gpu g;
  Check(hipMalloc(reinterpret_cast<void**>(&g.device), kRegion), "hipMalloc");
  Check(hipHostMalloc(reinterpret_cast<void**>(&g.host), kRegion, 0), "hipHostMalloc");
  std::memset(g.host, 1, kRegion);
  for (int d : {1, 2, 4}) Copy(g, d);
  for (size_t w : {16 * kMiB, 64 * kMiB, 256 * kMiB}) Pin(f, w, 2);
  Pin(f, 64 * kMiB, 1);
  Populate(f, 1);
  Populate(f, 4);
  for (int t : {1, 2}) Overlap(f, g, t, 2);
  Overlap(f, g, 2, 8);
  for (int p : {1, 2, 3}) Pipeline(f, g, p, 2);
  Pipeline(f, g, 2, 4);
  for (int t : {1, 2, 4, 8, 16}) MemcpyAlone(f, t);
  for (int t : {4, 8}) Stage(f, g, t);
  for (int t : {4, 8}) MemcpyAndCopy(f, g, t);
  Copy(g, 2);  // the link again, at the end
  return 0;
}
