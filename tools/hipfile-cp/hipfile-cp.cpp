// SPDX-License-Identifier: MIT
// hipfile-cp: copies a file through GPU memory with the hipFile API (AMD's aiscp, improved): two
// GPU buffers, so one block is read while the one before is written; a progress bar on a terminal,
// a summary with the throughput and the paths the bytes took,
// --verify, and nothing half-written under the destination's name - the copy goes to a temporary
// file beside it, renamed over it only once complete (and verified).
//
//   hipfile-cp [-d GPU] [-b SIZE] [--verify] [-q] SRC DST
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "path_shares.h"
#include "progress.h"

namespace hipfile_cp {
namespace {

volatile std::sig_atomic_t g_signal = 0;
void OnSignal(int sig) { g_signal = sig; }

struct Options {
  int gpu = 0;
  uint64_t block = 64ull << 20;
  bool verify = false;
  bool quiet = false;
  std::string src, dst;
};

void Usage(std::FILE* out) {
  std::fprintf(out,
               "usage: hipfile-cp [-d GPU] [-b SIZE] [--verify] [-q] SRC DST\n"
               "Copies SRC to DST through GPU memory: each block is read into the GPU with\n"
               "hipFileRead and written from it with hipFileWrite. DST may be a directory.\n"
               "The copy is made in a temporary file beside DST and renamed over DST once it is\n"
               "complete, so DST is never left half-written.\n"
               "  -d GPU      the GPU to copy through (default 0)\n"
               "  -b SIZE     bytes per block, with K, M or G (default 64M)\n"
               "  --verify    compare the copy with SRC before it replaces DST\n"
               "  -q          no progress bar and no summary line\n"
               "  -h, --help  this text\n"
               "Exit status: 0 copied; 1 an error (DST unchanged); 2 a bad argument;\n"
               "128+N stopped by signal N (DST unchanged).\n");
}

int Bad(const std::string& what) {
  std::fprintf(stderr, "hipfile-cp: %s (hipfile-cp -h for usage)\n", what.c_str());
  return 2;
}

bool ParseSize(const char* text, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || text[0] == '-' || v == 0) return false;
  uint64_t unit = 1;
  if (*end == 'K') unit = 1ull << 10;
  if (*end == 'M') unit = 1ull << 20;
  if (*end == 'G') unit = 1ull << 30;
  if (unit != 1) ++end;
  if (*end != '\0' || v > (1ull << 31) / unit) return false;  // at most 2 GiB per block
  *out = v * unit;
  return true;
}

// 0, or 2 after a message.
int Parse(int argc, char** argv, Options* o) {
  std::vector<std::string> operands;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      Usage(stdout);
      std::exit(0);
    } else if (a == "--verify") {
      o->verify = true;
    } else if (a == "-q") {
      o->quiet = true;
    } else if (a == "-d" || a == "-b") {
      if (i + 1 >= argc) return Bad(a + " needs a value");
      const char* v = argv[++i];
      if (a == "-d") {
        char* end = nullptr;
        const long gpu = std::strtol(v, &end, 10);
        if (end == v || *end != '\0' || gpu < 0 || gpu > 1023) {
          return Bad("-d '" + std::string(v) + "': not a GPU number");
        }
        o->gpu = static_cast<int>(gpu);
      } else if (!ParseSize(v, &o->block)) {
        return Bad("-b '" + std::string(v) + "': not a size from 1 to 2G");
      }
    } else if (a.size() > 1 && a[0] == '-') {
      return Bad("unknown flag '" + a + "'");
    } else {
      operands.push_back(a);
    }
  }
  if (operands.size() != 2) return Bad("give SRC and DST");
  o->src = operands[0];
  o->dst = operands[1];
  return 0;
}

// What a failed hipFileRead/hipFileWrite return value means (hipfile.h, Conventions).
std::string IoError(ssize_t ret, int saved_errno) {
  if (ret == -1) return std::strerror(saved_errno);
  if (ret <= -HIPFILE_BASE_ERR) return hipFileExtOpErrorName(static_cast<int>(-ret));
  return std::string("GPU runtime error ") + hipGetErrorName(static_cast<hipError_t>(-ret));
}

std::string HipFileError(hipFileError_t e) {
  if (e.err == hipFileHipDriverError) {
    return std::string("GPU runtime error ") + hipGetErrorName(e.hip_drv_err);
  }
  return hipFileExtOpErrorName(static_cast<int>(e.err));
}

// Everything a copy holds; the destructor gives it back, and removes the temporary file unless
// the copy was renamed into place.
class Copy {
 public:
  explicit Copy(const Options& o) : o_(o) {}
  ~Copy() {
    for (void* buf : buf_) {
      if (buf == nullptr) continue;
      (void)hipFileBufDeregister(buf);
      (void)hipFree(buf);
    }
    if (src_fh_ != nullptr) hipFileHandleDeregister(src_fh_);
    if (tmp_fh_ != nullptr) hipFileHandleDeregister(tmp_fh_);
    if (driver_open_) (void)hipFileDriverClose();
    if (src_fd_ >= 0) ::close(src_fd_);
    if (tmp_fd_ >= 0) ::close(tmp_fd_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }

  // 0, or 1 after a message.
  int Run() {
    src_fd_ = ::open(o_.src.c_str(), O_RDONLY | O_CLOEXEC);
    if (src_fd_ < 0) return Fail("cannot open " + o_.src + ": " + std::strerror(errno));
    struct stat st = {};
    if (::fstat(src_fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      return Fail(o_.src + " is not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    std::string dst = o_.dst;
    struct stat dst_st = {};
    if (::stat(dst.c_str(), &dst_st) == 0 && S_ISDIR(dst_st.st_mode)) {
      const size_t slash = o_.src.find_last_of('/');
      dst += "/" + (slash == std::string::npos ? o_.src : o_.src.substr(slash + 1));
    }
    if (::stat(dst.c_str(), &dst_st) == 0 && dst_st.st_dev == st.st_dev &&
        dst_st.st_ino == st.st_ino) {
      return Fail(o_.src + " and " + dst + " are the same file");
    }
    dst_ = dst;
    const size_t slash = dst.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : dst.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? dst : dst.substr(slash + 1);
    std::string pattern =
        (slash == std::string::npos ? "" : dir) + "." + name + ".hipfile-cp-XXXXXX";
    tmp_fd_ = ::mkstemp(pattern.data());
    if (tmp_fd_ < 0)
      return Fail("cannot create a file beside " + dst + ": " + std::strerror(errno));
    tmp_ = pattern;
    (void)::fchmod(tmp_fd_, st.st_mode & 07777);

    if (const hipError_t h = hipSetDevice(o_.gpu); h != hipSuccess) {
      return Fail("GPU " + std::to_string(o_.gpu) + ": " + hipGetErrorName(h));
    }
    if (hipFileError_t e = hipFileDriverOpen(); e.err != hipFileSuccess) {
      return Fail("hipFileDriverOpen: " + HipFileError(e));
    }
    driver_open_ = true;
    if (!Register(src_fd_, &src_fh_, o_.src) || !Register(tmp_fd_, &tmp_fh_, tmp_)) return 1;
    const uint64_t block = std::max<uint64_t>(1, std::min(o_.block, size_));
    // Two buffers when there is more than one block: block k+1 is read while block k is written.
    for (size_t i = 0; i < (size_ > block ? 2u : 1u); ++i) {
      if (const hipError_t h = hipMalloc(&buf_[i], block); h != hipSuccess) {
        buf_[i] = nullptr;
        return Fail("cannot allocate " + std::to_string(block) + " bytes on GPU " +
                    std::to_string(o_.gpu) + ": " + hipGetErrorName(h));
      }
      if (hipFileError_t e = hipFileBufRegister(buf_[i], block, 0); e.err != hipFileSuccess) {
        (void)hipFree(buf_[i]);
        buf_[i] = nullptr;
        return Fail("hipFileBufRegister: " + HipFileError(e));
      }
    }

    hipFileExtPathStats_t before = {}, after = {};
    (void)hipFileExtGetPathStats(&before);
    const auto start = std::chrono::steady_clock::now();
    Progress progress(stderr, size_);
    const uint64_t blocks = (size_ + block - 1) / block;
    std::thread reader;
    try {
      reader = std::thread([&] { ReadBlocks(block, blocks); });
    } catch (const std::system_error& e) {
      return Fail(std::string("cannot start the reading thread: ") + e.what());
    }
    WriteBlocks(block, blocks, &progress);
    reader.join();
    if (!error_.empty()) {
      progress.Finish();
      return Fail(error_);
    }
    if (g_signal != 0) return Stopped(progress);
    progress.Finish();
    if (::fsync(tmp_fd_) != 0) return Fail("fsync " + tmp_ + ": " + std::strerror(errno));
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    (void)hipFileExtGetPathStats(&after);
    if (o_.verify && !Verify()) return 1;
    if (g_signal != 0) return Stopped(progress);
    if (::rename(tmp_.c_str(), dst_.c_str()) != 0) {
      return Fail("cannot rename " + tmp_ + " to " + dst_ + ": " + std::strerror(errno));
    }
    tmp_.clear();  // in place: the destructor must not remove it
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
      (void)::fsync(dir_fd);  // the rename itself survives a crash
      ::close(dir_fd);
    }
    if (!o_.quiet) Summary(secs, before, after);
    return 0;
  }

 private:
  // Stops both sides with `error` (the first one kept).
  void Stop(const std::string& error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = error;
    stop_ = true;
    moved_.notify_all();
  }

  // Waits (a tenth of a second at a time, so a signal is seen) until `ready`, or a stop; false
  // for a stop.
  template <typename Ready>
  bool WaitFor(Ready ready) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_ && !ready()) {
      if (g_signal != 0) {
        stop_ = true;
        moved_.notify_all();
        break;
      }
      moved_.wait_for(lock, std::chrono::milliseconds(100));
    }
    return !stop_;
  }

  // The reader's thread: block k into buffer k % 2 once block k - 2 was written from it.
  void ReadBlocks(uint64_t block, uint64_t blocks) {
    (void)hipSetDevice(o_.gpu);  // the current device is per thread
    for (uint64_t k = 0; k < blocks; ++k) {
      if (!WaitFor([&] { return k - written_ < 2; })) return;
      const uint64_t off = k * block;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(block, size_ - off));
      const ssize_t r = hipFileRead(src_fh_, buf_[k % 2], n, static_cast<hoff_t>(off), 0);
      if (r != static_cast<ssize_t>(n)) {
        return Stop(r >= 0 ? o_.src + " ended at " + std::to_string(off + r) + " bytes, not " +
                                 std::to_string(size_) + " (it changed during the copy)"
                           : "reading " + o_.src + " at offset " + std::to_string(off) + ": " +
                                 IoError(r, errno));
      }
      std::lock_guard<std::mutex> lock(mu_);
      ++read_;
      moved_.notify_all();
    }
  }

  // The calling thread: block k from buffer k % 2 once it was read.
  void WriteBlocks(uint64_t block, uint64_t blocks, Progress* progress) {
    for (uint64_t k = 0; k < blocks; ++k) {
      if (!WaitFor([&] { return read_ > k; })) return;
      const uint64_t off = k * block;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(block, size_ - off));
      const ssize_t w = hipFileWrite(tmp_fh_, buf_[k % 2], n, static_cast<hoff_t>(off), 0);
      if (w != static_cast<ssize_t>(n)) {
        return Stop("writing " + tmp_ + " at offset " + std::to_string(off) + ": " +
                    (w >= 0 ? "short write" : IoError(w, errno)));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++written_;
        moved_.notify_all();
      }
      progress->Update(off + n);
    }
  }

  bool Register(int fd, hipFileHandle_t* fh, const std::string& path) {
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    if (hipFileError_t e = hipFileHandleRegister(fh, &descr); e.err != hipFileSuccess) {
      *fh = nullptr;
      Fail("hipFileHandleRegister " + path + ": " + HipFileError(e));
      return false;
    }
    return true;
  }

  // Compares the copy with SRC on the CPU, through the page cache.
  bool Verify() {
    std::vector<char> a(8 << 20), b(8 << 20);
    for (uint64_t off = 0; off < size_;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(a.size(), size_ - off));
      if (::pread(src_fd_, a.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n) ||
          ::pread(tmp_fd_, b.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
        Fail("verify: cannot read back at offset " + std::to_string(off));
        return false;
      }
      if (std::memcmp(a.data(), b.data(), n) != 0) {
        size_t i = 0;
        while (a[i] == b[i]) ++i;
        Fail("verify: the copy differs from " + o_.src + " at offset " + std::to_string(off + i) +
             "; " + dst_ + " was not changed");
        return false;
      }
      off += n;
    }
    return true;
  }

  void Summary(double secs, const hipFileExtPathStats_t& before,
               const hipFileExtPathStats_t& after) const {
    char bytes[32];
    FormatBytes(size_, bytes, sizeof bytes);
    const double gib_s = secs > 0 ? static_cast<double>(size_) / secs / (1 << 30) : 0;
    using hipfile_tools::PathShares;
    std::printf("hipfile-cp: %s -> %s: %s in %.3f s, %.2f GiB/s; read: %s; write: %s%s\n",
                o_.src.c_str(), dst_.c_str(), bytes, secs, gib_s,
                PathShares::Between(before, after, PathShares::kReads).Text().c_str(),
                PathShares::Between(before, after, PathShares::kWrites).Text().c_str(),
                o_.verify ? "; verified" : "");
  }

  int Stopped(Progress& progress) {
    progress.Finish();
    std::fprintf(stderr, "hipfile-cp: stopped by signal %d; %s was not changed\n",
                 static_cast<int>(g_signal), dst_.c_str());
    return 128 + static_cast<int>(g_signal);
  }

  int Fail(const std::string& what) {
    std::fprintf(stderr, "hipfile-cp: %s\n", what.c_str());
    return 1;
  }

  const Options& o_;
  std::string dst_, tmp_;
  int src_fd_ = -1, tmp_fd_ = -1;
  uint64_t size_ = 0;
  bool driver_open_ = false;
  hipFileHandle_t src_fh_ = nullptr, tmp_fh_ = nullptr;
  void* buf_[2] = {nullptr, nullptr};
  // The pipeline: blocks read and written so far, and the first error (which stops both sides).
  std::mutex mu_;
  std::condition_variable moved_;
  uint64_t read_ = 0, written_ = 0;
  bool stop_ = false;
  std::string error_;
};

}  // namespace
}  // namespace hipfile_cp

int main(int argc, char** argv) {
  hipfile_cp::Options o;
  if (const int bad = hipfile_cp::Parse(argc, argv, &o); bad != 0) return bad;
  struct sigaction sa = {};
  sa.sa_handler = hipfile_cp::OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  return hipfile_cp::Copy(o).Run();
}
