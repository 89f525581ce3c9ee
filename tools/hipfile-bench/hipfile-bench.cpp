// hipfile-bench: moves a data set between a file and GPU memory with several threads and prints
// gdsio's result line (or JSON), for hipFile's sync path and the baselines it must beat.
//
//   hipfile-bench -f /data/file -d 0 -w 8 -s 8G -i 8M -x 0 -I 0 [-T 10] [-V] [--json]
//
// Transfer types (gdsio's numbering where gdsio has one):
//   0  GPUD            hipFileRead / hipFileWrite into device memory
//   1  CPUONLY         O_DIRECT pread / pwrite of page-aligned host memory (no GPU)
//   2  CPU_GPU         pread into pinned host memory + hipMemcpy (and back for writes)
//   4  CPU_CACHED_GPU  hipMemcpy straight from (to) a shared mmap of the file: page cache + copy
//   9  HOST_GPU        hipMemcpy from pinned host memory only, no file: the link's bandwidth
//  10  CPU_PREAD       plain pread / pwrite of ordinary host memory (no GPU)
// Sizes take K, M, G suffixes (powers of 1024). Without -T, each thread passes once over its
// share of the data set; with -T, threads loop until the time is up.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string file;
  std::string dir;
  int device = 0;
  int threads = 1;
  uint64_t size = 1ull << 30;
  uint64_t io_size = 1ull << 20;
  int xfer = 0;
  int io_type = 0;  // 0 read, 1 write, 2 random read, 3 random write
  double seconds = 0;
  bool verify = false;
  bool json = false;
  bool register_buffers = false;  // -b: hipFileBufRegister the device buffers
  bool fsync = false;             // --fsync: writes count only once fsync returned
};

bool IsWrite(const Options& o) { return o.io_type == 1 || o.io_type == 3; }
bool IsRandom(const Options& o) { return o.io_type == 2 || o.io_type == 3; }

const char* XferName(int x) {
  switch (x) {
    case 0: return "GPUD";
    case 1: return "CPUONLY";
    case 2: return "CPU_GPU";
    case 4: return "CPU_CACHED_GPU";
    case 9: return "HOST_GPU";
    case 10: return "CPU_PREAD";
    default: return "UNKNOWN";
  }
}
const char* IoName(int t) {
  static const char* names[] = {"READ", "WRITE", "RANDREAD", "RANDWRITE"};
  return names[t];
}

bool ParseSize(const char* text, uint64_t* out) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || v < 0) return false;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; ++end; break;
    case 'm': case 'M': scale = 1024.0 * 1024; ++end; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; ++end; break;
    default: break;
  }
  if (*end == 'i' || *end == 'B' || *end == 'b') ++end;
  if (*end == 'B') ++end;
  if (*end != '\0') return false;
  *out = static_cast<uint64_t>(v * scale);
  return true;
}

void Usage() {
  std::fprintf(stderr,
               "usage: hipfile-bench (-f FILE | -D DIR) [-d GPU] [-w THREADS] [-s SIZE] "
               "[-i IOSIZE] [-x XFER] [-I 0|1|2|3] [-T SECONDS] [-b] [-V] [--json] [--fsync]\n"
               "  -x 0 hipFile sync, 1 O_DIRECT into host memory, 2 pread + hipMemcpy,\n"
               "     4 page cache (mmap) + hipMemcpy, 9 pinned host->GPU copy only,\n"
               "     10 plain pread into host memory\n"
               "  -I 0 read, 1 write, 2 random read, 3 random write\n");
}

int ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    bool ok = true;
    if (a == "--json") {
      o->json = true;
    } else if (a == "--fsync") {
      o->fsync = true;
    } else if (a == "-V") {
      o->verify = true;
    } else if (a == "-b") {
      o->register_buffers = true;
    } else if (a == "-h" || a == "--help") {
      Usage();
      std::exit(0);
    } else if ((v = next()) == nullptr) {
      ok = false;
    } else if (a == "-f") {
      o->file = v;
    } else if (a == "-D") {
      o->dir = v;
    } else if (a == "-d") {
      o->device = std::atoi(v);
    } else if (a == "-w") {
      o->threads = std::max(1, std::atoi(v));
    } else if (a == "-s") {
      ok = ParseSize(v, &o->size);
    } else if (a == "-i") {
      ok = ParseSize(v, &o->io_size) && o->io_size > 0;
    } else if (a == "-x") {
      o->xfer = std::atoi(v);
    } else if (a == "-I") {
      o->io_type = std::atoi(v);
      ok = o->io_type >= 0 && o->io_type <= 3;
    } else if (a == "-T") {
      o->seconds = std::atof(v);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "hipfile-bench: bad argument %s\n", a.c_str());
      Usage();
      return 1;
    }
  }
  if (o->file.empty() && o->dir.empty()) {
    Usage();
    return 1;
  }
  if (o->file.empty()) o->file = o->dir + "/hipfile-bench.dat";
  return 0;
}

// Byte `offset` of the data set: misplaced bytes show up in verification.
inline unsigned char Pattern(uint64_t offset) {
  const uint64_t x = offset * 0x9E3779B97F4A7C15ull;
  return static_cast<unsigned char>((x >> 56) ^ (offset >> 12));
}
void FillPattern(unsigned char* p, size_t n, uint64_t offset) {
  for (size_t i = 0; i < n; ++i) p[i] = Pattern(offset + i);
}
bool CheckPattern(const unsigned char* p, size_t n, uint64_t offset) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != Pattern(offset + i)) {
      std::fprintf(stderr, "hipfile-bench: verify failed at file offset %" PRIu64 "\n",
                   offset + i);
      return false;
    }
  }
  return true;
}

// Makes sure the file holds at least `size` bytes of the pattern (reads) or exists (writes).
bool PrepareFile(const Options& o) {
  const int fd = ::open(o.file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror(o.file.c_str());
    return false;
  }
  struct stat st = {};
  ::fstat(fd, &st);
  const bool need_data = !IsWrite(o) || o.xfer == 4;  // mmap writes need the file's length
  if (need_data && static_cast<uint64_t>(st.st_size) < o.size) {
    std::vector<unsigned char> block(8 << 20);
    for (uint64_t off = 0; off < o.size; off += block.size()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(block.size(), o.size - off));
      FillPattern(block.data(), n, off);
      if (::pwrite(fd, block.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
        std::perror("writing the data set");
        ::close(fd);
        return false;
      }
    }
    ::fsync(fd);
  }
  ::close(fd);
  return true;
}

struct ThreadResult {
  uint64_t bytes = 0;
  uint64_t ops = 0;
  std::vector<double> latencies_us;
  bool failed = false;
};

#define BENCH_HIP(call)                                                                 \
  do {                                                                                  \
    const hipError_t e_ = (call);                                                       \
    if (e_ != hipSuccess) {                                                             \
      std::fprintf(stderr, "hipfile-bench: %s failed: %s\n", #call, hipGetErrorName(e_)); \
      r->failed = true;                                                                 \
      return;                                                                           \
    }                                                                                   \
  } while (0)

struct Shared {
  const Options* o;
  hipFileHandle_t fh = nullptr;
  int fd = -1;
  int direct_fd = -1;
  unsigned char* map = nullptr;
  std::chrono::steady_clock::time_point deadline;
};

void RunThread(const Shared& s, int t, ThreadResult* r) {
  const Options& o = *s.o;
  BENCH_HIP(hipSetDevice(o.device));
  const size_t io = static_cast<size_t>(o.io_size);
  void* dev = nullptr;
  void* host = nullptr;
  if (o.xfer != 1 && o.xfer != 10) BENCH_HIP(hipMalloc(&dev, io));
  if (o.xfer == 2 || o.xfer == 9) BENCH_HIP(hipHostMalloc(&host, io, 0));
  if ((o.xfer == 1 || o.xfer == 10) && ::posix_memalign(&host, 4096, io) != 0) {
    r->failed = true;
    return;
  }
  if (o.xfer == 0 && o.register_buffers && hipFileBufRegister(dev, io, 0).err != hipFileSuccess) {
    std::fprintf(stderr, "hipfile-bench: hipFileBufRegister failed\n");
  }
  std::vector<unsigned char> check(o.verify ? io : 0);
  if (IsWrite(o) && o.xfer != 9) {
    // The data written is the pattern of the thread's first offset; verified per op below.
    std::vector<unsigned char> data(io);
    FillPattern(data.data(), io, 0);
    if (dev) BENCH_HIP(hipMemcpy(dev, data.data(), io, hipMemcpyHostToDevice));
    if (host) std::memcpy(host, data.data(), io);
  }

  const uint64_t ios_total = std::max<uint64_t>(o.size / io, 1);
  const uint64_t per_thread = std::max<uint64_t>(ios_total / o.threads, 1);
  const uint64_t first = per_thread * t;
  std::mt19937_64 rng(1234 + t);
  uint64_t i = 0;
  for (;;) {
    if (o.seconds > 0) {
      if (std::chrono::steady_clock::now() >= s.deadline) break;
    } else if (i >= per_thread) {
      break;
    }
    const uint64_t index = IsRandom(o) ? rng() % ios_total : (first + i % per_thread) % ios_total;
    const uint64_t off = index * io;
    ++i;
    if (o.verify && IsWrite(o) && dev) {
      std::vector<unsigned char> data(io);
      FillPattern(data.data(), io, off);
      BENCH_HIP(hipMemcpy(dev, data.data(), io, hipMemcpyHostToDevice));
      if (host) std::memcpy(host, data.data(), io);
    }
    const auto start = std::chrono::steady_clock::now();
    ssize_t n = static_cast<ssize_t>(io);
    switch (o.xfer) {
      case 0:
        n = IsWrite(o) ? hipFileWrite(s.fh, dev, io, static_cast<hoff_t>(off), 0)
                       : hipFileRead(s.fh, dev, io, static_cast<hoff_t>(off), 0);
        break;
      case 1:
        n = IsWrite(o) ? ::pwrite(s.direct_fd, host, io, static_cast<off_t>(off))
                       : ::pread(s.direct_fd, host, io, static_cast<off_t>(off));
        break;
      case 10:
        n = IsWrite(o) ? ::pwrite(s.fd, host, io, static_cast<off_t>(off))
                       : ::pread(s.fd, host, io, static_cast<off_t>(off));
        break;
      case 2:
        if (IsWrite(o)) {
          BENCH_HIP(hipMemcpy(host, dev, io, hipMemcpyDeviceToHost));
          n = ::pwrite(s.fd, host, io, static_cast<off_t>(off));
        } else {
          n = ::pread(s.fd, host, io, static_cast<off_t>(off));
          if (n > 0) BENCH_HIP(hipMemcpy(dev, host, static_cast<size_t>(n), hipMemcpyHostToDevice));
        }
        break;
      case 4:
        if (IsWrite(o)) {
          BENCH_HIP(hipMemcpy(s.map + off, dev, io, hipMemcpyDeviceToHost));
        } else {
          BENCH_HIP(hipMemcpy(dev, s.map + off, io, hipMemcpyHostToDevice));
        }
        break;
      case 9:
        BENCH_HIP(hipMemcpy(dev, host, io, hipMemcpyHostToDevice));
        break;
    }
    const auto end = std::chrono::steady_clock::now();
    if (n != static_cast<ssize_t>(io)) {
      std::fprintf(stderr, "hipfile-bench: %s at %" PRIu64 " returned %zd (errno %d)\n",
                   IsWrite(o) ? "write" : "read", off, n, errno);
      r->failed = true;
      break;
    }
    r->latencies_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    r->bytes += io;
    ++r->ops;
    if (o.verify && o.xfer != 9) {
      if (IsWrite(o)) {
        if (::pread(s.fd, check.data(), io, static_cast<off_t>(off)) != static_cast<ssize_t>(io) ||
            !CheckPattern(check.data(), io, off)) {
          r->failed = true;
          break;
        }
      } else {
        if (o.xfer == 1 || o.xfer == 10) {
          std::memcpy(check.data(), host, io);
        } else {
          BENCH_HIP(hipMemcpy(check.data(), dev, io, hipMemcpyDeviceToHost));
        }
        if (!CheckPattern(check.data(), io, off)) {
          r->failed = true;
          break;
        }
      }
    }
  }
  if (o.xfer == 0 && o.register_buffers) (void)hipFileBufDeregister(dev);
  if (dev) (void)hipFree(dev);
  if (host && (o.xfer == 1 || o.xfer == 10)) std::free(host);
  if (host && o.xfer != 1 && o.xfer != 10) (void)hipHostFree(host);
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (int rc = ParseArgs(argc, argv, &o)) return rc;
  if (o.xfer != 0 && o.xfer != 1 && o.xfer != 2 && o.xfer != 4 && o.xfer != 9 && o.xfer != 10) {
    std::fprintf(stderr, "hipfile-bench: transfer type %d is not supported yet\n", o.xfer);
    return 2;
  }
  if (o.io_size > o.size) o.size = o.io_size;
  if (o.xfer != 9 && !PrepareFile(o)) return 1;

  Shared s;
  s.o = &o;
  const int flags = (IsWrite(o) ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (o.xfer != 9) {
    s.fd = ::open(o.file.c_str(), flags);
    if (s.fd < 0) {
      std::perror(o.file.c_str());
      return 1;
    }
  }
  if (o.xfer == 1) {
    s.direct_fd = ::open(o.file.c_str(), flags | O_DIRECT);
    if (s.direct_fd < 0) {
      std::perror("O_DIRECT open");
      return 1;
    }
  }
  if (o.xfer == 4) {
    void* p = ::mmap(nullptr, o.size, IsWrite(o) ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                     s.fd, 0);
    if (p == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    s.map = static_cast<unsigned char*>(p);
  }
  if (o.xfer == 0) {
    const hipFileError_t opened = hipFileDriverOpen();
    if (opened.err != hipFileSuccess) {
      std::fprintf(stderr, "hipfile-bench: hipFileDriverOpen failed: %d\n", opened.err);
      return 1;
    }
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = s.fd;
    const hipFileError_t reg = hipFileHandleRegister(&s.fh, &descr);
    if (reg.err != hipFileSuccess) {
      std::fprintf(stderr, "hipfile-bench: hipFileHandleRegister failed: %d\n", reg.err);
      return 1;
    }
  }

  std::vector<ThreadResult> results(static_cast<size_t>(o.threads));
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  s.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(o.seconds));
  for (int t = 0; t < o.threads; ++t) {
    threads.emplace_back(RunThread, std::cref(s), t, &results[static_cast<size_t>(t)]);
  }
  for (std::thread& t : threads) t.join();
  if (o.fsync && IsWrite(o) && s.fd >= 0) {
    if (s.map) ::msync(s.map, o.size, MS_SYNC);
    ::fsync(s.fd);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (o.xfer == 0) {
    hipFileHandleDeregister(s.fh);
    (void)hipFileDriverClose();
  }
  if (s.map) ::munmap(s.map, o.size);
  if (s.direct_fd >= 0) ::close(s.direct_fd);
  if (s.fd >= 0) ::close(s.fd);

  uint64_t bytes = 0;
  uint64_t ops = 0;
  bool failed = false;
  std::vector<double> lat;
  for (ThreadResult& r : results) {
    bytes += r.bytes;
    ops += r.ops;
    failed |= r.failed;
    lat.insert(lat.end(), r.latencies_us.begin(), r.latencies_us.end());
  }
  double sum = 0;
  for (double l : lat) sum += l;
  const double avg = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
  const double gib_s = secs > 0 ? static_cast<double>(bytes) / secs / (1024.0 * 1024 * 1024) : 0;
  const double p50 = Percentile(lat, 0.50);
  const double p99 = Percentile(lat, 0.99);
  if (o.json) {
    std::printf("{\"io_type\": \"%s\", \"xfer_type\": \"%s\", \"xfer\": %d, \"threads\": %d, "
                "\"bytes\": %" PRIu64 ", \"dataset_bytes\": %" PRIu64 ", \"io_size\": %" PRIu64
                ", \"throughput_gib_s\": %.4f, \"avg_latency_us\": %.2f, \"p50_latency_us\": "
                "%.2f, \"p99_latency_us\": %.2f, \"ops\": %" PRIu64
                ", \"total_time_s\": %.4f, \"iops\": %.1f, \"verified\": %s, \"ok\": %s}\n",
                IoName(o.io_type), XferName(o.xfer), o.xfer, o.threads, bytes, o.size, o.io_size,
                gib_s, avg, p50, p99, ops, secs, secs > 0 ? static_cast<double>(ops) / secs : 0,
                o.verify ? "true" : "false", failed ? "false" : "true");
  } else {
    std::printf("IoType: %s XferType: %s Threads: %d DataSetSize: %" PRIu64 "/%" PRIu64
                "KiB IOSize: %" PRIu64 "KiB Throughput: %.6f GiB/sec, Avg_Latency: %.6f usecs "
                "ops: %" PRIu64 " total_time %.6f secs\n",
                IoName(o.io_type), XferName(o.xfer), o.threads, bytes / 1024, o.size / 1024,
                o.io_size / 1024, gib_s, avg, ops, secs);
  }
  return failed ? 1 : 0;
}
