// SPDX-License-Identifier: MIT
// cufile-bench: NVIDIA cuFile on the harness of hipfile-bench. Threads move a data set between a
// file and GPU memory with cuFileRead / cuFileWrite, and the program prints one JSON line in
// hipfile-bench's --json schema, with "ok": false and "error" naming the call that failed when
// cuFile cannot run (issue 4 asks to say so, with the error, rather than leave a row out).
//
//   cufile-bench -f FILE [-d GPU] [-w THREADS] [-s SIZE] [-i IOSIZE] [-I 0|1|2|3] [-T SECONDS]
//                [-b] [--buffered] [--fsync] [--json]
//
// Flags mean what they mean for hipfile-bench: -I 0 read, 1 write, 2 random read, 3 random
// write; without -T each thread passes once over its share of the data set, with -T threads loop
// until the time is up; -b registers each thread's buffer with cuFileBufRegister. The file is
// opened with O_DIRECT (as gdsio does, and as the GDS path needs) unless --buffered is given;
// since GDS 1.7 a buffered descriptor is accepted, which lets compat mode use the page cache.
// --json is accepted for symmetry: the output is always JSON. Reads need a file of at least
// SIZE bytes (hipfile-bench creates one); writes create the file.
//
// No CUDA library is linked (only libdl and threads): libcuda.so.1 and libcufile.so.0 are loaded
// with dlopen, so the program builds without a GPU and reports a missing library as its error.
// Types and driver-API signatures come from the toolkit's <cuda.h>; the CUDA 13.0 toolkit of the
// development machine ships no cufile.h, so the few cuFile declarations below are written from
// NVIDIA's cuFile API reference.
//
// Timing: buffers are allocated (and registered) before the clock starts (hipfile-bench
// allocates inside its timed threads: a few milliseconds per run); the clock stops after the
// threads joined and, with --fsync, fsync returned. With CUFILE_LOGFILE_PATH set, a failure's
// error also quotes the last error line of that log, where cuFile says why (for example "unable
// to get volume attributes").
#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---- cuFile declarations (cuFile API reference; C ABI of libcufile.so.0) ----

// CUfileError_t: `err` is a CUfileOpError (0 or 5001...), `cu_err` the CUresult behind a
// CU_FILE_CUDA_DRIVER_ERROR (5011) where there is one.
struct CuFileError {
  int err;
  CUresult cu_err;
};
constexpr int kCuFileSuccess = 0;
constexpr int kCuFileBaseErr = 5000;
constexpr int kCuFileHandleTypeOpaqueFd = 1;  // CU_FILE_HANDLE_TYPE_OPAQUE_FD

// CUfileDescr_t.
struct CuFileDescr {
  int type;
  union {
    int fd;
    void* handle;
  } handle;
  const void* fs_ops;
};
using CuFileHandle = void*;

// CUfileOpError names, by number, from the API reference's enum (5032 is unassigned there).
const char* CuFileOpErrorName(int err) {
  static const char* const kNames[] = {
      "CU_FILE_DRIVER_NOT_INITIALIZED",          // 5001
      "CU_FILE_DRIVER_INVALID_PROPS",            // 5002
      "CU_FILE_DRIVER_UNSUPPORTED_LIMIT",        // 5003
      "CU_FILE_DRIVER_VERSION_MISMATCH",         // 5004
      "CU_FILE_DRIVER_VERSION_READ_ERROR",       // 5005
      "CU_FILE_DRIVER_CLOSING",                  // 5006
      "CU_FILE_PLATFORM_NOT_SUPPORTED",          // 5007
      "CU_FILE_IO_NOT_SUPPORTED",                // 5008
      "CU_FILE_DEVICE_NOT_SUPPORTED",            // 5009
      "CU_FILE_NVFS_DRIVER_ERROR",               // 5010
      "CU_FILE_CUDA_DRIVER_ERROR",               // 5011
      "CU_FILE_CUDA_POINTER_INVALID",            // 5012
      "CU_FILE_CUDA_MEMORY_TYPE_INVALID",        // 5013
      "CU_FILE_CUDA_POINTER_RANGE_ERROR",        // 5014
      "CU_FILE_CUDA_CONTEXT_MISMATCH",           // 5015
      "CU_FILE_INVALID_MAPPING_SIZE",            // 5016
      "CU_FILE_INVALID_MAPPING_RANGE",           // 5017
      "CU_FILE_INVALID_FILE_TYPE",               // 5018
      "CU_FILE_INVALID_FILE_OPEN_FLAG",          // 5019
      "CU_FILE_DIO_NOT_SET",                     // 5020
      "CU_FILE_EXPECTED_FILE_MODE",              // 5021
      "CU_FILE_INVALID_VALUE",                   // 5022
      "CU_FILE_MEMORY_ALREADY_REGISTERED",       // 5023
      "CU_FILE_MEMORY_NOT_REGISTERED",           // 5024
      "CU_FILE_PERMISSION_DENIED",               // 5025
      "CU_FILE_DRIVER_ALREADY_OPEN",             // 5026
      "CU_FILE_HANDLE_NOT_REGISTERED",           // 5027
      "CU_FILE_HANDLE_ALREADY_REGISTERED",       // 5028
      "CU_FILE_DEVICE_NOT_FOUND",                // 5029
      "CU_FILE_INTERNAL_ERROR",                  // 5030
      "CU_FILE_GETNEWFD_FAILED",                 // 5031
      nullptr,                                   // 5032
      "CU_FILE_NVFS_SETUP_ERROR",                // 5033
      "CU_FILE_IO_DISABLED",                     // 5034
      "CU_FILE_BATCH_SUBMIT_FAILED",             // 5035
      "CU_FILE_GPU_MEMORY_PINNING_FAILED",       // 5036
      "CU_FILE_BATCH_FULL",                      // 5037
      "CU_FILE_ASYNC_NOT_SUPPORTED",             // 5038
      "CU_FILE_INTERNAL_BATCH_SETUP_ERROR",      // 5039
      "CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR",     // 5040
      "CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR",  // 5041
      "CU_FILE_INTERNAL_BATCH_CANCEL_ERROR",     // 5042
      "CU_FILE_NOMEM_ERROR",                     // 5043
      "CU_FILE_IO_ERROR",                        // 5044
      "CU_FILE_INTERNAL_BUF_REGISTER_ERROR",     // 5045
      "CU_FILE_HASH_OPR_ERROR",                  // 5046
      "CU_FILE_INVALID_CONTEXT_ERROR",           // 5047
      "CU_FILE_NVFS_INTERNAL_DRIVER_ERROR",      // 5048
      "CU_FILE_BATCH_NOCOMPAT_ERROR",            // 5049
  };
  const int index = err - kCuFileBaseErr - 1;
  if (index < 0 || index >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return nullptr;
  return kNames[index];
}

// ---- the two libraries ----

struct Cuda {
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) PrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) PrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemsetD8) MemsetD8 = nullptr;
};

struct CuFile {
  CuFileError (*DriverOpen)() = nullptr;
  CuFileError (*DriverClose)() = nullptr;
  CuFileError (*GetVersion)(int*) = nullptr;  // optional: newer libraries only
  CuFileError (*HandleRegister)(CuFileHandle*, CuFileDescr*) = nullptr;
  void (*HandleDeregister)(CuFileHandle) = nullptr;
  CuFileError (*BufRegister)(const void*, size_t, int) = nullptr;
  CuFileError (*BufDeregister)(const void*) = nullptr;
  ssize_t (*Read)(CuFileHandle, void*, size_t, off_t, off_t) = nullptr;
  ssize_t (*Write)(CuFileHandle, const void*, size_t, off_t, off_t) = nullptr;
  std::string path;  // the file the library was loaded from
};

// Opens the first of `names` that loads; on failure appends the first name's dlerror (which
// names the file) to *why, and how many names were tried.
void* OpenLibrary(std::initializer_list<const char*> names, std::string* why) {
  std::string first_error;
  for (const char* name : names) {
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    if (first_error.empty()) first_error = e ? e : std::string(name) + ": dlopen failed";
  }
  if (!why->empty()) *why += "; ";
  *why += first_error;
  if (names.size() > 1) *why += " (tried " + std::to_string(names.size()) + " names)";
  return nullptr;
}

// Resolves `symbol` into *fn; a missing required one is appended to *why.
template <class Fn>
void Resolve(void* lib, const char* symbol, Fn* fn, std::string* why, bool required = true) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (*fn == nullptr && required) {
    if (!why->empty()) *why += "; ";
    *why += std::string("dlsym ") + symbol + ": missing";
  }
}

// The ABI names <cuda.h> (CUDA 13.0) maps these API names to.
bool LoadCuda(Cuda* c, std::string* why) {
  void* lib = OpenLibrary({"libcuda.so.1", "libcuda.so"}, why);
  if (lib == nullptr) return false;
  const size_t before = why->size();
  Resolve(lib, "cuInit", &c->Init, why);
  Resolve(lib, "cuGetErrorName", &c->GetErrorName, why);
  Resolve(lib, "cuDeviceGet", &c->DeviceGet, why);
  Resolve(lib, "cuDevicePrimaryCtxRetain", &c->PrimaryCtxRetain, why);
  Resolve(lib, "cuDevicePrimaryCtxRelease_v2", &c->PrimaryCtxRelease, why);
  Resolve(lib, "cuCtxSetCurrent", &c->CtxSetCurrent, why);
  Resolve(lib, "cuMemAlloc_v2", &c->MemAlloc, why);
  Resolve(lib, "cuMemFree_v2", &c->MemFree, why);
  Resolve(lib, "cuMemsetD8_v2", &c->MemsetD8, why);
  return why->size() == before;
}

bool LoadCuFile(CuFile* f, std::string* why) {
  // The toolkit's library folder is often not on the loader's path.
  void* lib = OpenLibrary({"libcufile.so.0", "libcufile.so", "/usr/local/cuda/lib64/libcufile.so.0",
                           "/usr/local/cuda/targets/x86_64-linux/lib/libcufile.so.0"},
                          why);
  if (lib == nullptr) return false;
  const size_t before = why->size();
  Resolve(lib, "cuFileDriverOpen", &f->DriverOpen, why);
  // <cufile.h> maps cuFileDriverClose to the _v2 symbol where the library has one.
  Resolve(lib, "cuFileDriverClose_v2", &f->DriverClose, why, false);
  if (f->DriverClose == nullptr) Resolve(lib, "cuFileDriverClose", &f->DriverClose, why);
  Resolve(lib, "cuFileGetVersion", &f->GetVersion, why, false);
  Resolve(lib, "cuFileHandleRegister", &f->HandleRegister, why);
  Resolve(lib, "cuFileHandleDeregister", &f->HandleDeregister, why);
  Resolve(lib, "cuFileBufRegister", &f->BufRegister, why);
  Resolve(lib, "cuFileBufDeregister", &f->BufDeregister, why);
  Resolve(lib, "cuFileRead", &f->Read, why);
  Resolve(lib, "cuFileWrite", &f->Write, why);
  Dl_info info = {};
  if (f->Read != nullptr && dladdr(reinterpret_cast<void*>(f->Read), &info) != 0 &&
      info.dli_fname != nullptr) {
    f->path = info.dli_fname;
  }
  return why->size() == before;
}

// ---- errors as text ----

// `cuda` may be null (not loaded): the number alone then.
std::string CuResultText(const Cuda* cuda, CUresult r) {
  const char* name = nullptr;
  if (cuda != nullptr && cuda->GetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  return std::string(name ? name : "CUresult") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

std::string CuFileErrorText(const Cuda* cuda, CuFileError e) {
  const char* name = CuFileOpErrorName(e.err);
  std::string text = std::string(name ? name : "cuFile error") + " (" + std::to_string(e.err) + ")";
  if (e.cu_err != CUDA_SUCCESS) {
    text += ", CUDA " + CuResultText(cuda, e.cu_err);
  }
  return text;
}

// A cuFileRead / cuFileWrite result that is not the size asked for: -1 with errno, or
// -CUfileOpError, or a short count.
std::string IoResultText(ssize_t n, int saved_errno, size_t wanted) {
  if (n == -1) {
    return "-1, errno " + std::to_string(saved_errno) + " (" + std::strerror(saved_errno) + ")";
  }
  if (n < 0 && -n > kCuFileBaseErr) {
    return std::to_string(n) + ", " +
           CuFileErrorText(nullptr, {static_cast<int>(-n), CUDA_SUCCESS});
  }
  if (n < 0) {
    const int e = static_cast<int>(-n);
    return std::to_string(n) + " (" + std::strerror(e) + ")";
  }
  return "moved " + std::to_string(n) + " of " + std::to_string(wanted) + " bytes";
}

// The last line of cuFile's log (CUFILE_LOGFILE_PATH) that reports an error, or "".
std::string LastCuFileLogError() {
  const char* path = std::getenv("CUFILE_LOGFILE_PATH");
  if (path == nullptr || *path == '\0') return "";
  std::ifstream log(path);
  std::string line;
  std::string last;
  while (std::getline(log, line)) {
    if (line.find("ERROR") != std::string::npos || line.find("error") != std::string::npos) {
      last = line;
    }
  }
  last.erase(0, last.find_first_not_of(" \t"));
  if (last.size() > 240) last.resize(240);
  return last;
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

// ---- options ----

struct Options {
  std::string file;
  int device = 0;
  int threads = 1;
  uint64_t size = 1ull << 30;
  uint64_t io_size = 1ull << 20;
  int io_type = 0;  // 0 read, 1 write, 2 random read, 3 random write
  double seconds = 0;
  bool register_buffers = false;
  bool buffered = false;
  bool fsync = false;
};

bool IsWrite(const Options& o) { return o.io_type == 1 || o.io_type == 3; }
bool IsRandom(const Options& o) { return o.io_type == 2 || o.io_type == 3; }
const char* IoName(int t) {
  static const char* const kNames[] = {"READ", "WRITE", "RANDREAD", "RANDWRITE"};
  return kNames[t];
}

// Sizes take K, M, G suffixes (powers of 1024), as in hipfile-bench.
bool ParseSize(const char* text, uint64_t* out) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || v < 0) return false;
  double scale = 1;
  if (*end == 'k' || *end == 'K') scale = 1024.0;
  if (*end == 'm' || *end == 'M') scale = 1024.0 * 1024;
  if (*end == 'g' || *end == 'G') scale = 1024.0 * 1024 * 1024;
  if (scale != 1) ++end;
  if (*end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  *out = static_cast<uint64_t>(v * scale);
  return true;
}

void Usage() {
  std::fprintf(stderr,
               "usage: cufile-bench -f FILE [-d GPU] [-w THREADS] [-s SIZE] [-i IOSIZE] "
               "[-I 0|1|2|3] [-T SECONDS] [-b] [--buffered] [--fsync] [--json]\n");
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") continue;
    if (a == "-b") {
      o->register_buffers = true;
      continue;
    }
    if (a == "--buffered") {
      o->buffered = true;
      continue;
    }
    if (a == "--fsync") {
      o->fsync = true;
      continue;
    }
    if (a == "-h" || a == "--help") {
      Usage();
      std::exit(0);
    }
    const char* v = i + 1 < argc ? argv[++i] : nullptr;
    bool ok = true;
    if (v == nullptr) {
      ok = false;
    } else if (a == "-f") {
      o->file = v;
    } else if (a == "-d") {
      o->device = std::atoi(v);
    } else if (a == "-w") {
      o->threads = std::max(1, std::atoi(v));
    } else if (a == "-s") {
      ok = ParseSize(v, &o->size);
    } else if (a == "-i") {
      ok = ParseSize(v, &o->io_size) && o->io_size > 0;
    } else if (a == "-I") {
      o->io_type = std::atoi(v);
      ok = o->io_type >= 0 && o->io_type <= 3;
    } else if (a == "-T") {
      o->seconds = std::atof(v);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "cufile-bench: bad argument %s\n", a.c_str());
      Usage();
      return false;
    }
  }
  if (o->file.empty()) {
    Usage();
    return false;
  }
  if (o->io_size > o->size) o->size = o->io_size;
  return true;
}

// ---- the run ----

struct Run {
  const Options* o = nullptr;
  Cuda cuda;
  CuFile cufile;
  bool cuda_loaded = false;
  bool cufile_loaded = false;
  CUcontext ctx = nullptr;
  bool driver_open = false;
  int fd = -1;
  CuFileHandle fh = nullptr;
  std::vector<CUdeviceptr> buffers;  // one per thread
  std::vector<bool> registered;
  int version = -1;  // cuFileGetVersion: 1000 * major + 10 * minor

  std::mutex mu;
  std::string error;  // the first failure
  std::atomic<bool> stop{false};
  std::chrono::steady_clock::time_point deadline;

  void Fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    if (error.empty()) error = what;
    stop = true;
  }
};

struct ThreadResult {
  uint64_t bytes = 0;
  uint64_t ops = 0;
  std::vector<double> latencies_us;
};

bool CudaOk(Run* run, CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return true;
  run->Fail(std::string(call) + ": " + CuResultText(run->cuda_loaded ? &run->cuda : nullptr, r));
  return false;
}

bool CuFileOk(Run* run, CuFileError e, const std::string& call) {
  if (e.err == kCuFileSuccess) return true;
  run->Fail(call + ": " + CuFileErrorText(&run->cuda, e));
  return false;
}

// Everything before the clock starts: libraries, context, file, handle, buffers.
bool SetUp(Run* run) {
  const Options& o = *run->o;
  std::string why;
  run->cuda_loaded = LoadCuda(&run->cuda, &why);
  run->cufile_loaded = LoadCuFile(&run->cufile, &why);
  if (!run->cuda_loaded || !run->cufile_loaded) {
    run->Fail(why);
    return false;
  }
  if (run->cufile.GetVersion != nullptr) {
    int v = 0;
    if (run->cufile.GetVersion(&v).err == kCuFileSuccess) run->version = v;
  }
  const Cuda& c = run->cuda;
  CUdevice dev = 0;
  if (!CudaOk(run, c.Init(0), "cuInit") ||
      !CudaOk(run, c.DeviceGet(&dev, o.device), "cuDeviceGet") ||
      !CudaOk(run, c.PrimaryCtxRetain(&run->ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !CudaOk(run, c.CtxSetCurrent(run->ctx), "cuCtxSetCurrent")) {
    return false;
  }
  if (!CuFileOk(run, run->cufile.DriverOpen(), "cuFileDriverOpen")) return false;
  run->driver_open = true;

  int flags = (IsWrite(o) ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC;
  if (!o.buffered) flags |= O_DIRECT;
  run->fd = ::open(o.file.c_str(), flags, 0644);
  if (run->fd < 0) {
    const int e = errno;
    run->Fail(std::string("open ") + o.file + (o.buffered ? "" : " (O_DIRECT)") + ": " +
              std::strerror(e));
    return false;
  }
  struct stat st = {};
  if (!IsWrite(o) && ::fstat(run->fd, &st) == 0 && static_cast<uint64_t>(st.st_size) < o.size) {
    run->Fail(o.file + " holds " + std::to_string(st.st_size) + " bytes, fewer than -s " +
              std::to_string(o.size) + " (create it with hipfile-bench first)");
    return false;
  }
  CuFileDescr descr = {};
  descr.type = kCuFileHandleTypeOpaqueFd;
  descr.handle.fd = run->fd;
  if (!CuFileOk(run, run->cufile.HandleRegister(&run->fh, &descr), "cuFileHandleRegister")) {
    run->fh = nullptr;
    return false;
  }

  const size_t n = static_cast<size_t>(o.threads);
  run->buffers.assign(n, 0);
  run->registered.assign(n, false);
  for (size_t t = 0; t < n; ++t) {
    if (!CudaOk(run, c.MemAlloc(&run->buffers[t], o.io_size), "cuMemAlloc")) return false;
    // Writes store a constant byte; the figure does not depend on the data.
    if (IsWrite(o) && !CudaOk(run, c.MemsetD8(run->buffers[t], 0x5a, o.io_size), "cuMemsetD8")) {
      return false;
    }
    if (o.register_buffers) {
      const void* p = reinterpret_cast<const void*>(run->buffers[t]);
      if (!CuFileOk(run, run->cufile.BufRegister(p, o.io_size, 0), "cuFileBufRegister")) {
        return false;
      }
      run->registered[t] = true;
    }
  }
  return true;
}

void TearDown(Run* run) {
  for (size_t t = 0; t < run->buffers.size(); ++t) {
    const void* p = reinterpret_cast<const void*>(run->buffers[t]);
    if (run->registered[t]) (void)run->cufile.BufDeregister(p);
    if (run->buffers[t] != 0) (void)run->cuda.MemFree(run->buffers[t]);
  }
  if (run->fh != nullptr) run->cufile.HandleDeregister(run->fh);
  if (run->fd >= 0) ::close(run->fd);
  if (run->driver_open) (void)run->cufile.DriverClose();
  if (run->ctx != nullptr) {
    CUdevice dev = 0;
    if (run->cuda.DeviceGet(&dev, run->o->device) == CUDA_SUCCESS) {
      (void)run->cuda.PrimaryCtxRelease(dev);
    }
  }
}

// One thread: its share of the data set in order (or uniform offsets for random types), until
// one pass is done or the deadline passed, as hipfile-bench's threads do.
void RunThread(Run* run, int t, ThreadResult* r) {
  const Options& o = *run->o;
  if (!CudaOk(run, run->cuda.CtxSetCurrent(run->ctx), "cuCtxSetCurrent")) return;
  void* buf = reinterpret_cast<void*>(run->buffers[static_cast<size_t>(t)]);
  const size_t io = static_cast<size_t>(o.io_size);
  const uint64_t ios_total = std::max<uint64_t>(o.size / io, 1);
  const uint64_t per_thread = std::max<uint64_t>(ios_total / static_cast<uint64_t>(o.threads), 1);
  const uint64_t first = per_thread * static_cast<uint64_t>(t);
  std::mt19937_64 rng(1234 + static_cast<uint64_t>(t));
  for (uint64_t i = 0; !run->stop; ++i) {
    if (o.seconds > 0) {
      if (std::chrono::steady_clock::now() >= run->deadline) break;
    } else if (i >= per_thread) {
      break;
    }
    const uint64_t index = IsRandom(o) ? rng() % ios_total : (first + i % per_thread) % ios_total;
    const off_t off = static_cast<off_t>(index * io);
    const auto start = std::chrono::steady_clock::now();
    errno = 0;
    const ssize_t n = IsWrite(o) ? run->cufile.Write(run->fh, buf, io, off, 0)
                                 : run->cufile.Read(run->fh, buf, io, off, 0);
    const int saved_errno = errno;
    const auto end = std::chrono::steady_clock::now();
    if (n != static_cast<ssize_t>(io)) {
      run->Fail(std::string(IsWrite(o) ? "cuFileWrite" : "cuFileRead") + " at offset " +
                std::to_string(off) + ": " + IoResultText(n, saved_errno, io));
      return;
    }
    r->latencies_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    r->bytes += io;
    ++r->ops;
  }
}

double CpuSeconds() {
  struct rusage ru = {};
  ::getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
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
  if (!ParseArgs(argc, argv, &o)) return 2;
  Run run;
  run.o = &o;
  std::vector<ThreadResult> results(static_cast<size_t>(o.threads));
  double secs = 0;
  double cpu_cores = 0;
  if (SetUp(&run)) {
    std::vector<std::thread> threads;
    const double cpu_start = CpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    run.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(o.seconds));
    for (int t = 0; t < o.threads; ++t) {
      threads.emplace_back(RunThread, &run, t, &results[static_cast<size_t>(t)]);
    }
    for (std::thread& t : threads) t.join();
    if (o.fsync && IsWrite(o) && ::fsync(run.fd) != 0) {
      const int e = errno;
      run.Fail(std::string("fsync: ") + std::strerror(e));
    }
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cpu_cores = secs > 0 ? (CpuSeconds() - cpu_start) / secs : 0;
  }
  if (!run.error.empty() && run.cufile_loaded) {
    const std::string logged = LastCuFileLogError();
    if (!logged.empty()) run.error += "; cufile.log: " + logged;
  }
  TearDown(&run);

  uint64_t bytes = 0;
  uint64_t ops = 0;
  std::vector<double> lat;
  for (ThreadResult& r : results) {
    bytes += r.bytes;
    ops += r.ops;
    lat.insert(lat.end(), r.latencies_us.begin(), r.latencies_us.end());
  }
  double sum = 0;
  for (double l : lat) sum += l;
  const double avg = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
  const double gib_s = secs > 0 ? static_cast<double>(bytes) / secs / (1024.0 * 1024 * 1024) : 0;
  const double p50 = Percentile(lat, 0.50);
  const double p99 = Percentile(lat, 0.99);
  const bool ok = run.error.empty();
  std::printf(
      "{\"tool\": \"cufile-bench\", \"io_type\": \"%s\", \"xfer_type\": \"CUFILE\", \"xfer\": 0, "
      "\"threads\": %d, \"bytes\": %" PRIu64 ", \"dataset_bytes\": %" PRIu64
      ", \"io_size\": %" PRIu64
      ", \"throughput_gib_s\": %.4f, \"avg_latency_us\": %.2f, \"p50_latency_us\": %.2f, "
      "\"p99_latency_us\": %.2f, \"ops\": %" PRIu64
      ", \"total_time_s\": %.4f, \"iops\": %.1f, \"queue_depth\": 1, \"cpu_cores\": %.2f, "
      "\"cores_per_gib_s\": %.4f, \"verified\": false, \"o_direct\": %s, \"registered\": %s, "
      "\"cufile_version\": %d, \"cufile_library\": \"%s\", \"ok\": %s",
      IoName(o.io_type), o.threads, bytes, o.size, o.io_size, gib_s, avg, p50, p99, ops, secs,
      secs > 0 ? static_cast<double>(ops) / secs : 0, cpu_cores, gib_s > 0 ? cpu_cores / gib_s : 0,
      o.buffered ? "false" : "true", o.register_buffers ? "true" : "false", run.version,
      JsonEscape(run.cufile.path).c_str(), ok ? "true" : "false");
  if (!ok) std::printf(", \"error\": \"%s\"", JsonEscape(run.error).c_str());
  std::printf("}\n");
  return ok ? 0 : 1;
}
