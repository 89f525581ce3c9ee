// SPDX-License-Identifier: MIT
// first-pass-probe: how fast can a file already in the page cache reach GPU memory in ONE pass,
// and by which mix of ways (issue 20 item 1)? Each run moves its own, never-pinned region of FILE
// into one device buffer, with T threads taking 64 MiB windows from a shared counter:
//   pin      pin the window's page-cache pages read-only (hipHostRegister of the file mapping),
//            copy them to the GPU, and leave them pinned (unpinned after the run)
//   stage    pread the window 16 MiB at a time into the thread's two pinned staging buffers,
//            each copied to the GPU while the next is read
//   hybrid   P threads pin, S threads stage, from the same counter
//   pinonly  the pins alone (no copies): the pin rate
// Prints one line per run: mode, threads, GiB/s. The file must be in the page cache (cat it first)
// and hold (runs x region) bytes; regions are not reused, so each run's pins are first pins.
//
//   first-pass-probe FILE REGION_GIB
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kWindow = 64ull << 20;
constexpr size_t kStage = 16ull << 20;

struct Region {
  int fd;
  char* map;  // the whole file's mapping
  size_t begin;
  size_t bytes;
  char* device;
};

void Check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, hipGetErrorString(e));
    std::exit(1);
  }
}

// One thread pinning windows: pins (and, unless pin_only, copies) each window it takes.
void Pinner(const Region& r, std::atomic<size_t>& next, bool pin_only, std::vector<char*>* pinned) {
  hipStream_t s;
  Check(hipStreamCreate(&s), "hipStreamCreate");
  for (;;) {
    const size_t k = next.fetch_add(1);
    const size_t off = k * kWindow;
    if (off >= r.bytes) break;
    char* base = r.map + r.begin + off;
    Check(hipHostRegister(base, kWindow, hipHostRegisterReadOnly), "hipHostRegister");
    pinned->push_back(base);
    if (!pin_only) {
      Check(hipMemcpyAsync(r.device + off, base, kWindow, hipMemcpyHostToDevice, s), "copy");
      Check(hipStreamSynchronize(s), "sync");
    }
  }
  Check(hipStreamDestroy(s), "hipStreamDestroy");
}

// One thread staging windows: pread into two pinned buffers in turn, each copied while the next
// is read.
void Stager(const Region& r, std::atomic<size_t>& next) {
  hipStream_t s;
  Check(hipStreamCreate(&s), "hipStreamCreate");
  void* buf[2];
  hipEvent_t done[2];
  for (int i = 0; i < 2; ++i) {
    Check(hipHostMalloc(&buf[i], kStage, 0), "hipHostMalloc");
    Check(hipEventCreate(&done[i]), "hipEventCreate");
    Check(hipEventRecord(done[i], s), "record");
  }
  int b = 0;
  for (;;) {
    const size_t k = next.fetch_add(1);
    const size_t off = k * kWindow;
    if (off >= r.bytes) break;
    for (size_t p = 0; p < kWindow; p += kStage) {
      Check(hipEventSynchronize(done[b]), "event sync");
      size_t got = 0;
      while (got < kStage) {
        const ssize_t n = pread(r.fd, static_cast<char*>(buf[b]) + got, kStage - got,
                                static_cast<off_t>(r.begin + off + p + got));
        if (n <= 0) {
          std::perror("pread");
          std::exit(1);
        }
        got += static_cast<size_t>(n);
      }
      Check(hipMemcpyAsync(r.device + off + p, buf[b], kStage, hipMemcpyHostToDevice, s), "copy");
      Check(hipEventRecord(done[b], s), "record");
      b ^= 1;
    }
  }
  Check(hipStreamSynchronize(s), "sync");
  for (int i = 0; i < 2; ++i) {
    Check(hipHostFree(buf[i]), "hipHostFree");
    Check(hipEventDestroy(done[i]), "hipEventDestroy");
  }
  Check(hipStreamDestroy(s), "hipStreamDestroy");
}

double Run(const Region& r, int pinners, int stagers, bool pin_only) {
  std::atomic<size_t> next{0};
  std::vector<std::vector<char*>> pinned(static_cast<size_t>(pinners));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < pinners; ++i) {
    threads.emplace_back(Pinner, std::cref(r), std::ref(next), pin_only, &pinned[i]);
  }
  for (int i = 0; i < stagers; ++i) threads.emplace_back(Stager, std::cref(r), std::ref(next));
  for (auto& t : threads) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto& v : pinned) {
    for (char* p : v) Check(hipHostUnregister(p), "hipHostUnregister");
  }
  return static_cast<double>(r.bytes) / s / (1ull << 30);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: first-pass-probe FILE REGION_GIB\n");
    return 2;
  }
  const size_t region = static_cast<size_t>(std::atof(argv[2]) * (1ull << 30)) / kWindow * kWindow;
  Region r{};
  r.fd = open(argv[1], O_RDONLY);
  struct stat st {};
  if (r.fd < 0 || fstat(r.fd, &st) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  r.map = static_cast<char*>(mmap(nullptr, size, PROT_READ, MAP_SHARED, r.fd, 0));
  if (r.map == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  Check(hipMalloc(reinterpret_cast<void**>(&r.device), region), "hipMalloc");
  r.bytes = region;
  struct Case {
    const char* name;
    int pinners, stagers;
    bool pin_only;
  };
  const std::vector<Case> cases = {
      {"pinonly", 1, 0, true}, {"pinonly", 2, 0, true},  {"pinonly", 4, 0, true},
      {"pinonly", 8, 0, true}, {"pin", 2, 0, false},     {"pin", 4, 0, false},
      {"pin", 8, 0, false},    {"stage", 0, 8, false},   {"stage", 0, 16, false},
      {"hybrid", 2, 8, false}, {"hybrid", 4, 8, false},  {"hybrid", 4, 12, false},
      {"hybrid", 8, 8, false}, {"hybrid", 2, 14, false},
  };
  size_t begin = 0;
  for (const Case& c : cases) {
    if (begin + region > size) begin = 0;  // out of fresh data: say so
    r.begin = begin;
    const bool fresh = begin + region <= size;
    const double gib_s = Run(r, c.pinners, c.stagers, c.pin_only);
    std::printf("%-8s pin %2d stage %2d  %6.2f GiB/s%s\n", c.name, c.pinners, c.stagers, gib_s,
                fresh ? "" : " (region reused)");
    std::fflush(stdout);
    begin += region;
  }
  return 0;
}
