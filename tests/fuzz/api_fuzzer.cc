// SPDX-License-Identifier: MIT
// api_fuzzer: a libFuzzer target that drives the hipFile C API (include/hipfile.h) on the CPU
// runtime. Each input is decoded into a sequence of up to kMaxCalls calls - driver open and close,
// handle and buffer (de)registration, sync, stream-ordered and batch I/O, parameters, statistics -
// with arguments that are sometimes valid and often not: NULLs, bogus and stale handles, pointers
// and streams, pipes, sockets, directories and descriptors that are not open, negative and
// overflowing offsets and sizes, enum values outside their enumerators.
//
// After every call the harness checks what must hold whatever the arguments, and aborts with a
// message (which libFuzzer records as a crash) when it does not:
//  - every hipFileError_t is a documented error, with hip_drv_err set exactly for
//    hipFileHipDriverError; every ssize_t result is bytes, -1 with errno set, or a negated code;
//  - the use count follows opens, closes and the calls that open the driver implicitly;
//  - output arguments of failed calls are untouched; getters return what a setter stored;
//  - a sync read or write moves at most what was asked; while no stream-ordered or batch work is
//    in flight it moves exactly the bytes up to end of file (reads) or all of them (writes), and
//    the buffer then matches the file;
//  - stream-ordered results and batch events are well formed and bounded by what was submitted;
//    events come only for accepted entries, once each;
//  - statistics counters never decrease.
// ASan and UBSan check the rest. At the end of each input the harness undoes everything (waits
// for the work it started, closes the driver, restores the parameters, frees its memory), so each
// input runs alone.
//
// Memory handed to the library is always memory the harness owns, of the extent it states.
// Pointers that are not (bogus values, pageable memory, memory freed already) are ones the API
// must reject without touching them. Streams and files outlive the inputs (see Process).
#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fakes/raw_enum.h"

namespace {

using hipfile::testing::RawEnum;

constexpr int kMaxCalls = 64;             // calls decoded from one input
constexpr size_t kMaxAlloc = 1 << 20;     // largest buffer the harness makes
constexpr size_t kMaxRw = 0x7ffff000;     // the most one call moves (hipfile.h)
constexpr size_t kMaxAllocations = 8;     // per input
constexpr size_t kMaxOpenFiles = 8;       // per input
constexpr size_t kMaxAsyncOps = 32;       // per input
constexpr size_t kMaxBatches = 4;         // per input
constexpr size_t kMaxBatchEntries = 130;  // entries one submission can describe (capacity + 2)
constexpr int64_t kExactCountLimit = 1LL << 41;  // below: no file size limit can cut a write
constexpr int kFileCount = 3;
constexpr size_t kFileSizes[kFileCount] = {0, 8191, 300 * 1024 + 5};
constexpr int kStreamCount = 4;  // 0, 1: blocking; 2, 3: non-blocking
constexpr int kParamCount = 12;  // size_t and bool parameters each
constexpr int kStringParamCount = 3;
// Known issue (docs/reliability.md, "Fuzzing the C API"): the engine pins its whole staging cap
// when the driver opens, so an accepted cap of terabytes exhausts memory. Valid caps above this
// are lowered to it.
constexpr size_t kMaxPinnedKiB = 16384;

// ---- failure reports ----------------------------------------------------------------------------

int g_report_fd = 2;  // a copy of stderr, which scripts/fuzz.sh closes (-close_fd_mask=2)

[[noreturn]] void Fail(const char* file, int line, const char* condition, const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  dprintf(g_report_fd, "api_fuzzer: %s:%d: invariant broken: %s: %s\n", file, line, condition,
          message);
  abort();
}

#define FUZZ_CHECK(condition, ...)                                       \
  do {                                                                   \
    if (!(condition)) Fail(__FILE__, __LINE__, #condition, __VA_ARGS__); \
  } while (0)

// ---- what a result may be -----------------------------------------------------------------------

int Raw(hipFileOpError_t e) {
  int raw;
  std::memcpy(&raw, &e, sizeof raw);
  return raw;
}

bool IsOpError(int64_t code) {
  return code > HIPFILE_BASE_ERR && code < HIPFILE_BASE_ERR + 39 && code != HIPFILE_BASE_ERR + 21 &&
         code != HIPFILE_BASE_ERR + 32;
}

bool IsErrno(int64_t code) { return code > 0 && code < 4096; }

bool Ok(hipFileError_t e) { return Raw(e.err) == hipFileSuccess && e.hip_drv_err == hipSuccess; }

bool Is(hipFileError_t e, hipFileOpError_t want) {
  return Raw(e.err) == Raw(want) && e.hip_drv_err == hipSuccess;
}

void CheckError(const char* call, hipFileError_t e) {
  const int err = Raw(e.err);
  FUZZ_CHECK(err == hipFileSuccess || IsOpError(err), "%s: err %d", call, err);
  FUZZ_CHECK((err == hipFileHipDriverError) == (e.hip_drv_err != hipSuccess), "%s: {%d, %d}", call,
             err, static_cast<int>(e.hip_drv_err));
}

// A hipFileRead/Write result: bytes, -1 with errno, -hipFileOpError_t or -hipError_t.
void CheckSsize(const char* call, ssize_t got, size_t size, int err) {
  if (got >= 0) {
    FUZZ_CHECK(static_cast<size_t>(got) <= std::min(size, kMaxRw), "%s: %zd of %zu bytes", call,
               got, size);
  } else if (got == -1) {
    FUZZ_CHECK(IsErrno(err), "%s: -1 with errno %d", call, err);
  } else {
    FUZZ_CHECK(IsOpError(-got) || -got < HIPFILE_BASE_ERR, "%s: %zd", call, got);
  }
}

// *bytes_p of a stream-ordered operation and ret of a failed batch entry: -errno or -op error.
void CheckNegativeCode(const char* what, int64_t code) {
  FUZZ_CHECK(IsErrno(-code) || IsOpError(-code), "%s: %lld", what, static_cast<long long>(code));
}

// ---- the process: files, descriptors and streams that outlive the inputs -----------------------

// Streams are made once: the library gives each stream that carries stream-ordered I/O a channel
// for the rest of the process (AsyncExecutor::kMaxChannels), so streams made per input would run
// it out and make inputs depend on the ones before.
struct Process {
  std::string dir;
  std::string paths[kFileCount];
  int reference_fd[kFileCount] = {};  // O_RDWR: resets each file and checks what the API moved
  std::vector<std::pair<int, hipFileOpError_t>> wrong_fds;  // and what registering them gives
  hipStream_t streams[kStreamCount] = {};
  hipStream_t destroyed_stream = nullptr;
  void* freed_pointer = nullptr;
  // The parameters every input starts from (the defaults, with a small staging pool).
  size_t size_params[kParamCount] = {};
  bool bool_params[kParamCount] = {};
  std::string string_params[kStringParamCount];
  std::vector<char> scratch;  // what the file holds, for comparisons
};

Process* g_process = nullptr;
char g_pageable[4096];  // host memory the runtime does not know

unsigned char Pattern(int file, uint64_t offset) {
  return static_cast<unsigned char>((offset * 131 + static_cast<uint64_t>(file) * 29 + 7) >> 1);
}

void Die(const char* what) {
  dprintf(g_report_fd, "api_fuzzer: set-up failed: %s: %s\n", what, std::strerror(errno));
  abort();
}

void InitProcess() {
  auto* p = new Process;
  const char* tmp = getenv("HIPFILE_FUZZ_TMPDIR");
  if (tmp == nullptr) tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/hipfile-fuzz.XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) Die("mkdtemp");
  p->dir = templ;
  // String parameters set from the input name files (a log file's path) relative to the working
  // directory: there, in this folder, not wherever the fuzzer was started (scripts/fuzz.sh gives
  // libFuzzer absolute paths).
  if (chdir(p->dir.c_str()) != 0) Die("chdir");
  for (int i = 0; i < kFileCount; ++i) {
    p->paths[i] = p->dir + "/file" + std::to_string(i);
    p->reference_fd[i] = open(p->paths[i].c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (p->reference_fd[i] < 0) Die("open");
  }
  // Descriptors registration must refuse (docs/reliability.md, "Bad input").
  int pipe_fds[2];
  int socket_fds[2];
  if (pipe(pipe_fds) != 0) Die("pipe");
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socket_fds) != 0) Die("socketpair");
  const int dir_fd = open(p->dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  const int path_fd = open(p->paths[1].c_str(), O_PATH | O_CLOEXEC);
  if (dir_fd < 0 || null_fd < 0 || path_fd < 0) Die("open");
  for (int fd : {pipe_fds[0], pipe_fds[1], socket_fds[0], socket_fds[1], dir_fd, null_fd}) {
    p->wrong_fds.emplace_back(fd, hipFileInvalidFileType);
  }
  p->wrong_fds.emplace_back(path_fd, hipFileInvalidFileOpenFlag);
  for (int fd : {-1, INT_MIN, INT_MAX, 1 << 20}) p->wrong_fds.emplace_back(fd, hipFileInvalidValue);

  for (int i = 0; i < kStreamCount; ++i) {
    const unsigned flags = i < 2 ? hipStreamDefault : hipStreamNonBlocking;
    if (hipStreamCreateWithFlags(&p->streams[i], flags) != hipSuccess) Die("hipStreamCreate");
  }
  if (hipStreamCreate(&p->destroyed_stream) != hipSuccess) Die("hipStreamCreate");
  if (hipStreamDestroy(p->destroyed_stream) != hipSuccess) Die("hipStreamDestroy");
  if (hipMalloc(&p->freed_pointer, 4096) != hipSuccess) Die("hipMalloc");
  if (hipFree(p->freed_pointer) != hipSuccess) Die("hipFree");

  // A staging pool of 4 x 1 MiB instead of 32 x 8 MiB: every input opens the driver, which pins
  // the whole pool at once.
  if (!Ok(hipFileSetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 4096)) ||
      !Ok(hipFileSetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 1024))) {
    Die("setting the staging pool's size");
  }
  for (int i = 0; i < kParamCount; ++i) {
    if (!Ok(hipFileGetParameterSizeT(RawEnum<hipFileSizeTConfigParameter_t>(i),
                                     &p->size_params[i])) ||
        !Ok(hipFileGetParameterBool(RawEnum<hipFileBoolConfigParameter_t>(i),
                                    &p->bool_params[i]))) {
      Die("reading the parameters");
    }
  }
  for (int i = 0; i < kStringParamCount; ++i) {
    char text[8192];
    if (!Ok(hipFileGetParameterString(RawEnum<hipFileStringConfigParameter_t>(i), text,
                                      sizeof text))) {
      Die("reading the string parameters");
    }
    p->string_params[i] = text;
  }
  p->scratch.resize(kMaxAlloc);
  g_process = p;
}

// ---- one input's state --------------------------------------------------------------------------

enum class MemoryKind { kDevice, kPinned, kHostRegistered, kPageable };

struct Allocation {
  char* ptr = nullptr;
  size_t size = 0;
  MemoryKind kind = MemoryKind::kDevice;
};

struct OpenedFile {
  int fd = -1;
  int file = 0;  // index into Process::paths
  int flags = 0;
  bool closed = false;
};

struct RegisteredHandle {
  hipFileHandle_t handle = nullptr;
  size_t opened = 0;  // index into Session::files
};

// Holds a non-blocking stream in a host function until opened, so that the arguments of the
// stream-ordered operations queued behind it can be changed before they run.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;

  static void Wait(void* arg) {
    Gate* gate = static_cast<Gate*>(arg);
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->cv.wait(lock, [gate] { return gate->open; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

// The arguments of one stream-ordered operation; they must stay put until its stream is synced.
struct AsyncOp {
  size_t size = 0;
  hoff_t file_offset = 0;
  hoff_t buffer_offset = 0;
  ssize_t bytes = 0;
  size_t submitted_size = 0;  // clamped as the library clamps it
  Gate* gate = nullptr;       // holding the stream when submitted, if any
  bool checked = false;
};

struct Batch {
  hipFileBatchHandle_t handle = nullptr;
  unsigned capacity = 0;
  std::map<void*, size_t> outstanding;  // cookie -> size, for entries whose event is not reaped
  bool destroyed = false;
};

constexpr ssize_t kUntouched = 0x5a5a5a5a;

struct Session {
  std::vector<Allocation> allocations;
  std::vector<OpenedFile> files;
  std::vector<RegisteredHandle> handles;  // every handle ever returned, live or not
  std::vector<std::unique_ptr<AsyncOp>> async_ops;
  std::vector<std::unique_ptr<Gate>> gates;
  Gate* holding[kStreamCount] = {};  // the closed gate on each stream, if any
  std::vector<Batch> batches;
  uintptr_t next_cookie = 1;
  int64_t use_count = 0;   // what hipFileUseCount must say
  bool in_flight = false;  // stream-ordered or batch work submitted since the last Quiesce
  hipFileStatsLevel1_t stats = {};
};

// ---- argument choices ---------------------------------------------------------------------------

size_t ChooseSize(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      return 0;
    case 1:
      return in.ConsumeIntegralInRange<size_t>(1, 64);
    case 2:
      return 4096 * in.ConsumeIntegralInRange<size_t>(1, 256);
    case 3:
      return 4096 * in.ConsumeIntegralInRange<size_t>(1, 256) + in.ConsumeIntegralInRange(-1, 1);
    case 4:
      return in.PickValueInArray<size_t>(
          {SIZE_MAX, SIZE_MAX - 4095, kMaxRw, kMaxRw + 1, size_t{1} << 31, size_t{1} << 63});
    default:
      return in.ConsumeIntegralInRange<size_t>(0, kMaxAlloc);
  }
}

int64_t ChooseOffset(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      return 0;
    case 1:
      return in.ConsumeIntegralInRange<int64_t>(1, 4096);
    case 2:
      return 4096 * in.ConsumeIntegralInRange<int64_t>(0, 512);
    case 3:
      return static_cast<int64_t>(kFileSizes[in.ConsumeIntegralInRange(0, kFileCount - 1)]) +
             in.ConsumeIntegralInRange(-2, 2);
    case 4:
      return in.PickValueInArray<int64_t>(
          {-1, -4096, INT64_MIN, INT64_MAX, INT64_MAX - 4095, int64_t{1} << 40, int64_t{1} << 62});
    case 5:
      return in.ConsumeIntegral<int64_t>();
    default:
      return in.ConsumeIntegralInRange<int64_t>(0, 2 * kMaxAlloc);
  }
}

// A pointer into one of the allocations (base, inside, one past the end) or one the API must
// refuse; *owner is the allocation it points into, or -1.
void* ChoosePointer(Session& s, FuzzedDataProvider& in, int* owner = nullptr) {
  int unused;
  if (owner == nullptr) owner = &unused;
  *owner = -1;
  const int pick = in.ConsumeIntegralInRange(0, 15);
  if (pick < 12 && !s.allocations.empty()) {
    const size_t i = in.ConsumeIntegralInRange<size_t>(0, s.allocations.size() - 1);
    const Allocation& a = s.allocations[i];
    if (pick < 8) {
      *owner = static_cast<int>(i);
      return a.ptr;
    }
    if (pick < 11) {
      *owner = static_cast<int>(i);
      return a.ptr + in.ConsumeIntegralInRange<size_t>(0, a.size - 1);
    }
    return a.ptr + a.size;  // may be the start of another allocation: the runtime says which
  }
  return in.PickValueInArray<void*>(
      {nullptr, reinterpret_cast<void*>(1), reinterpret_cast<void*>(4096),
       reinterpret_cast<void*>(UINTPTR_MAX), reinterpret_cast<void*>(UINTPTR_MAX - 4095),
       g_pageable, g_process->freed_pointer});
}

// A registered handle (perhaps deregistered since), or one that never was; *index is its entry
// in s.handles, or -1.
hipFileHandle_t ChooseHandle(Session& s, FuzzedDataProvider& in, int* index) {
  *index = -1;
  if (!s.handles.empty() && in.ConsumeIntegralInRange(0, 7) != 0) {
    *index = in.ConsumeIntegralInRange<int>(0, static_cast<int>(s.handles.size()) - 1);
    return s.handles[*index].handle;
  }
  static int not_a_handle;
  return in.PickValueInArray<hipFileHandle_t>(
      {nullptr, reinterpret_cast<hipFileHandle_t>(1), &not_a_handle});
}

// One of the process's streams, the null stream, a destroyed stream or a bogus value (the CPU
// runtime looks streams up by value). *index is the process stream's index, or -1.
hipStream_t ChooseStream(FuzzedDataProvider& in, int* index) {
  *index = -1;
  const int pick = in.ConsumeIntegralInRange(0, 7);
  if (pick < kStreamCount) {
    *index = pick;
    return g_process->streams[pick];
  }
  if (pick < 6) return nullptr;
  if (pick == 6) return g_process->destroyed_stream;
  return reinterpret_cast<hipStream_t>(&g_pageable[8]);
}

// An index into s.batches, or -1 for a batch handle that never was.
int ChooseBatch(Session& s, FuzzedDataProvider& in, hipFileBatchHandle_t* handle) {
  if (!s.batches.empty() && in.ConsumeIntegralInRange(0, 7) != 0) {
    const int i = in.ConsumeIntegralInRange<int>(0, static_cast<int>(s.batches.size()) - 1);
    *handle = s.batches[i].handle;
    return i;
  }
  // Batch handles are ids counted from 1 and never reused; these are never ids.
  *handle = in.PickValueInArray<hipFileBatchHandle_t>(
      {nullptr, reinterpret_cast<hipFileBatchHandle_t>(UINTPTR_MAX)});
  return -1;
}

// ---- invariants that need the model -------------------------------------------------------------

// The allocation holding [address, address + n), or nullptr. By address, not by how the pointer
// was chosen: one past the end of one allocation may be the start of another.
const Allocation* Holding(const Session& s, uintptr_t address, size_t n) {
  for (const Allocation& a : s.allocations) {
    const auto base = reinterpret_cast<uintptr_t>(a.ptr);
    if (address >= base && address - base <= a.size && n <= a.size - (address - base)) return &a;
  }
  return nullptr;
}

void CheckUseCount(const Session& s, const char* after) {
  const int64_t count = hipFileUseCount();
  FUZZ_CHECK(count == s.use_count, "after %s: use count %lld, expected %lld", after,
             static_cast<long long>(count), static_cast<long long>(s.use_count));
}

// A registration that succeeded at count 0 opened the driver.
void NoteImplicitOpen(Session& s, hipFileError_t e) {
  if (Ok(e) && s.use_count == 0) s.use_count = 1;
}

// The stream-ordered operations whose streams were synchronized since they were submitted.
void CheckAsyncResults(Session& s) {
  for (const auto& op : s.async_ops) {
    if (op->checked) continue;
    op->checked = true;
    if (op->bytes >= 0) {
      FUZZ_CHECK(static_cast<size_t>(op->bytes) <= op->submitted_size,
                 "stream-ordered op moved %zd bytes of %zu submitted", op->bytes,
                 op->submitted_size);
    } else {
      CheckNegativeCode("stream-ordered op's *bytes_p", op->bytes);
    }
  }
}

void OpenGates(Session& s) {
  for (Gate*& gate : s.holding) {
    if (gate != nullptr) gate->Open();
    gate = nullptr;
  }
}

// Waits for everything in flight: opens every gate, synchronizes the device, cancels the batches
// (which waits for their running entries).
void Quiesce(Session& s) {
  OpenGates(s);
  FUZZ_CHECK(hipDeviceSynchronize() == hipSuccess, "hipDeviceSynchronize");
  for (Batch& batch : s.batches) {
    if (!batch.destroyed) CheckError("BatchIOCancel", hipFileBatchIOCancel(batch.handle));
  }
  CheckAsyncResults(s);
  s.in_flight = false;
}

// After a sync transfer of `moved` bytes between the handle's file and memory at `memory`: when
// nothing else was in flight, the count is exact and the bytes are the file's.
void CheckTransfer(Session& s, bool write, int handle_index, const char* memory, size_t size,
                   int64_t file_offset, ssize_t moved) {
  if (moved < 0 || s.in_flight || handle_index < 0) return;
  const OpenedFile& opened = s.files[s.handles[handle_index].opened];
  if (opened.closed) return;  // its number may name another file now
  const int ref = g_process->reference_fd[opened.file];
  struct stat st;
  FUZZ_CHECK(fstat(ref, &st) == 0, "fstat: %s", std::strerror(errno));
  // Written as a difference: file_offset may be near INT64_MAX (a valid offset past any end).
  if (file_offset < kExactCountLimit - static_cast<int64_t>(std::min(size, kMaxRw))) {
    size_t expected = std::min(size, kMaxRw);
    if (!write) {
      expected = file_offset >= st.st_size
                     ? 0
                     : std::min<size_t>(expected, static_cast<size_t>(st.st_size - file_offset));
    }
    FUZZ_CHECK(static_cast<size_t>(moved) == expected,
               "%s of %zu bytes at %lld (file of %lld bytes) moved %zd, expected %zu",
               write ? "hipFileWrite" : "hipFileRead", size, static_cast<long long>(file_offset),
               static_cast<long long>(st.st_size), moved, expected);
  }
  if (moved == 0) return;
  char* scratch = g_process->scratch.data();
  const ssize_t got = pread(ref, scratch, static_cast<size_t>(moved), file_offset);
  FUZZ_CHECK(got == moved, "pread of what %s moved: %zd of %zd (%s)",
             write ? "hipFileWrite" : "hipFileRead", got, moved, std::strerror(errno));
  FUZZ_CHECK(std::memcmp(scratch, memory, static_cast<size_t>(moved)) == 0,
             "%s of %zd bytes at %lld: memory and file differ", write ? "write" : "read", moved,
             static_cast<long long>(file_offset));
}

void CheckStats(Session& s) {
  hipFileStatsLevel1_t now;
  CheckError("GetStatsL1", hipFileGetStatsL1(&now));
  const hipFileOpCounter_t* before[] = {&s.stats.read_ops,         &s.stats.write_ops,
                                        &s.stats.hdl_register_ops, &s.stats.hdl_deregister_ops,
                                        &s.stats.buf_register_ops, &s.stats.buf_deregister_ops};
  const hipFileOpCounter_t* after[] = {&now.read_ops,         &now.write_ops,
                                       &now.hdl_register_ops, &now.hdl_deregister_ops,
                                       &now.buf_register_ops, &now.buf_deregister_ops};
  for (size_t i = 0; i < sizeof before / sizeof before[0]; ++i) {
    FUZZ_CHECK(after[i]->ok >= before[i]->ok && after[i]->err >= before[i]->err,
               "stats counter %zu went down", i);
  }
  FUZZ_CHECK(now.read_bytes >= s.stats.read_bytes && now.write_bytes >= s.stats.write_bytes,
             "stats byte counts went down");
  s.stats = now;
}

// ---- the calls ----------------------------------------------------------------------------------

void Allocate(Session& s, FuzzedDataProvider& in) {
  if (s.allocations.size() >= kMaxAllocations) return;
  Allocation a;
  a.kind = static_cast<MemoryKind>(in.ConsumeIntegralInRange(0, 3));
  a.size = in.PickValueInArray<size_t>({1, 7, 4096, 4097, 65536, 300 * 1024, kMaxAlloc});
  if (in.ConsumeBool()) a.size = in.ConsumeIntegralInRange<size_t>(1, kMaxAlloc);
  void* p = nullptr;
  switch (a.kind) {
    case MemoryKind::kDevice:
      FUZZ_CHECK(hipMalloc(&p, a.size) == hipSuccess, "hipMalloc(%zu)", a.size);
      break;
    case MemoryKind::kPinned:
      FUZZ_CHECK(hipHostMalloc(&p, a.size, 0) == hipSuccess, "hipHostMalloc(%zu)", a.size);
      break;
    case MemoryKind::kHostRegistered:
    case MemoryKind::kPageable:
      p = malloc(a.size);
      FUZZ_CHECK(p != nullptr, "malloc(%zu)", a.size);
      if (a.kind == MemoryKind::kHostRegistered) {
        FUZZ_CHECK(hipHostRegister(p, a.size, 0) == hipSuccess, "hipHostRegister");
      }
      break;
  }
  a.ptr = static_cast<char*>(p);
  std::memset(a.ptr, 0xa5, a.size);  // device memory is host memory on the CPU runtime
  s.allocations.push_back(a);
}

void OpenFile(Session& s, FuzzedDataProvider& in) {
  if (s.files.size() >= kMaxOpenFiles) return;
  OpenedFile f;
  f.file = in.ConsumeIntegralInRange(0, kFileCount - 1);
  // Access mode 3 is Linux's "neither read nor write" (ioctl only).
  const int access = in.PickValueInArray({O_RDWR, O_RDWR, O_RDONLY, O_WRONLY, 3});
  const int extra = in.PickValueInArray(
      {0, 0, O_DIRECT, O_DIRECT, O_SYNC, O_DSYNC, O_APPEND, O_NOATIME, O_DIRECT | O_SYNC, O_PATH});
  f.flags = access | extra | O_CLOEXEC;
  f.fd = open(g_process->paths[f.file].c_str(), f.flags);
  if (f.fd < 0) return;  // e.g. O_DIRECT where the file system refuses it
  s.files.push_back(f);
}

void CloseFile(Session& s, FuzzedDataProvider& in) {
  if (s.files.empty()) return;
  OpenedFile& f = s.files[in.ConsumeIntegralInRange<size_t>(0, s.files.size() - 1)];
  if (f.closed) return;
  close(f.fd);
  f.closed = true;
}

void HandleRegister(Session& s, FuzzedDataProvider& in) {
  hipFileDescr_t descr;
  std::memset(&descr, 0, sizeof descr);
  const int type = in.ConsumeIntegralInRange(0, 15) != 0
                       ? hipFileHandleTypeOpaqueFD
                       : in.PickValueInArray({0, 2, 3, -1, INT_MAX});
  std::memcpy(&descr.type, &type, sizeof type);

  int opened = -1;
  hipFileOpError_t must = hipFileSuccess;  // the error registration must give, if known
  bool stale_number = false;
  if (!s.files.empty() && in.ConsumeIntegralInRange(0, 3) != 0) {
    opened = in.ConsumeIntegralInRange<int>(0, static_cast<int>(s.files.size()) - 1);
    if (s.files[opened].closed) return;  // its number may belong to the library by now
    descr.handle.fd = s.files[opened].fd;
    if (s.files[opened].flags & (O_APPEND | O_PATH)) must = hipFileInvalidFileOpenFlag;
    // The registry is keyed by the number: one closed and reused may still be registered, which
    // is checked first.
    for (const OpenedFile& f : s.files) {
      if (f.closed && f.fd == descr.handle.fd) stale_number = true;
    }
  } else {
    const auto& wrong = g_process->wrong_fds;
    const auto& [fd, error] = wrong[in.ConsumeIntegralInRange<size_t>(0, wrong.size() - 1)];
    descr.handle.fd = fd;
    must = error;
  }
  if (type != hipFileHandleTypeOpaqueFD) must = hipFileIONotSupported;

  const int null_arg = in.ConsumeIntegralInRange(0, 15);
  hipFileHandle_t fh = reinterpret_cast<hipFileHandle_t>(0x5a5a);
  const hipFileError_t e =
      hipFileHandleRegister(null_arg == 0 ? nullptr : &fh, null_arg == 1 ? nullptr : &descr);
  CheckError("HandleRegister", e);
  if (null_arg <= 1) {
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "HandleRegister(NULL): err %d", Raw(e.err));
    return;
  }
  if (type != hipFileHandleTypeOpaqueFD) stale_number = false;  // the type is checked first
  if (must != hipFileSuccess && !(stale_number && Is(e, hipFileHandleAlreadyRegistered))) {
    FUZZ_CHECK(Is(e, must), "HandleRegister(fd %d, type %d): err %d, expected %d", descr.handle.fd,
               type, Raw(e.err), Raw(must));
  }
  if (!Ok(e)) {
    FUZZ_CHECK(fh == reinterpret_cast<hipFileHandle_t>(0x5a5a), "a failed register wrote *fh");
    return;
  }
  FUZZ_CHECK(fh != nullptr, "HandleRegister returned a NULL handle");
  NoteImplicitOpen(s, e);
  // Handle values are never reused, so a stale one can never name this file.
  for (const RegisteredHandle& h : s.handles) {
    FUZZ_CHECK(h.handle != fh, "HandleRegister returned %p again", fh);
  }
  s.handles.push_back({fh, static_cast<size_t>(opened)});
}

void HandleDeregister(Session& s, FuzzedDataProvider& in) {
  int index;
  hipFileHandleDeregister(ChooseHandle(s, in, &index));
}

void BufRegister(Session& s, FuzzedDataProvider& in) {
  int owner;
  void* ptr = ChoosePointer(s, in, &owner);
  size_t length;
  if (owner >= 0 && in.ConsumeIntegralInRange(0, 3) != 0) {
    const Allocation& a = s.allocations[owner];
    const size_t room = a.size - static_cast<size_t>(static_cast<char*>(ptr) - a.ptr);
    length = in.PickValueInArray<size_t>({room, room, room - 1, room + 1, 1});
    if (in.ConsumeBool()) length = in.ConsumeIntegralInRange<size_t>(0, room);
  } else {
    length = ChooseSize(in);
  }
  const int flags = in.ConsumeBool() ? 0 : in.ConsumeIntegral<int>();
  const hipFileError_t e = hipFileBufRegister(ptr, length, flags);
  CheckError("BufRegister", e);
  if (ptr == nullptr || length == 0) {
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "BufRegister(%p, %zu): err %d", ptr, length, Raw(e.err));
  }
  if (owner >= 0 && s.allocations[owner].kind == MemoryKind::kPageable) {
    FUZZ_CHECK(!Ok(e), "pageable memory registered");
  }
  // hipFile opens the driver before it checks the arguments: refused or not.
  if (s.use_count == 0) s.use_count = 1;
}

void BufDeregister(Session& s, FuzzedDataProvider& in) {
  void* ptr = ChoosePointer(s, in);
  const hipFileError_t e = hipFileBufDeregister(ptr);
  CheckError("BufDeregister", e);
  if (ptr == nullptr) {
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "BufDeregister(NULL): err %d", Raw(e.err));
  } else if (s.use_count == 0) {
    FUZZ_CHECK(Is(e, hipFileDriverClosing), "BufDeregister closed: err %d", Raw(e.err));
  }
}

void SyncIo(Session& s, FuzzedDataProvider& in, bool write) {
  int handle_index;
  const hipFileHandle_t fh = ChooseHandle(s, in, &handle_index);
  void* ptr = ChoosePointer(s, in);
  const size_t size = ChooseSize(in);
  const int64_t file_offset = ChooseOffset(in);
  const int64_t buffer_offset = in.ConsumeBool() ? 0 : ChooseOffset(in);
  errno = 0;
  const ssize_t got = write ? hipFileWrite(fh, ptr, size, file_offset, buffer_offset)
                            : hipFileRead(fh, ptr, size, file_offset, buffer_offset);
  const int err = errno;
  CheckSsize(write ? "hipFileWrite" : "hipFileRead", got, size, err);
  if (s.use_count == 0) FUZZ_CHECK(got == -1 && err == EINVAL, "I/O with the driver closed");
  if (got < 0) return;
  const uintptr_t memory = reinterpret_cast<uintptr_t>(ptr) + static_cast<uint64_t>(buffer_offset);
  if (got > 0) {
    const Allocation* a = Holding(s, memory, static_cast<size_t>(got));
    FUZZ_CHECK(buffer_offset >= 0 && a != nullptr && a->kind != MemoryKind::kPageable,
               "%zd bytes moved through %p + %lld, not device or pinned memory of ours", got, ptr,
               static_cast<long long>(buffer_offset));
  }
  CheckTransfer(s, write, handle_index, reinterpret_cast<const char*>(memory), size, file_offset,
                got);
}

void AsyncIo(Session& s, FuzzedDataProvider& in, bool write) {
  if (s.async_ops.size() >= kMaxAsyncOps) return;
  auto op = std::make_unique<AsyncOp>();
  int handle_index;
  const hipFileHandle_t fh = ChooseHandle(s, in, &handle_index);
  void* ptr = ChoosePointer(s, in);
  op->size = ChooseSize(in);
  op->file_offset = ChooseOffset(in);
  op->buffer_offset = in.ConsumeBool() ? 0 : ChooseOffset(in);
  op->bytes = kUntouched;
  int stream_index;
  const hipStream_t stream = ChooseStream(in, &stream_index);
  const int null_arg = in.ConsumeIntegralInRange(0, 31);
  size_t* size_p = null_arg == 0 ? nullptr : &op->size;
  hoff_t* file_offset_p = null_arg == 1 ? nullptr : &op->file_offset;
  hoff_t* buffer_offset_p = null_arg == 2 ? nullptr : &op->buffer_offset;
  ssize_t* bytes_p = null_arg == 3 ? nullptr : &op->bytes;
  const size_t size = op->size;
  // The extension's entries take the values themselves (hipfile_ext.h): changed later behind a
  // gate, the op's copies are then nobody's.
  const bool fixed = in.ConsumeBool();
  hipFileError_t e;
  if (fixed && write) {
    e = hipFileExtWriteAsyncFixed(fh, ptr, size, op->file_offset, op->buffer_offset, bytes_p,
                                  stream);
  } else if (fixed) {
    e = hipFileExtReadAsyncFixed(fh, ptr, size, op->file_offset, op->buffer_offset, bytes_p,
                                 stream);
  } else if (write) {
    e = hipFileWriteAsync(fh, ptr, size_p, file_offset_p, buffer_offset_p, bytes_p, stream);
  } else {
    e = hipFileReadAsync(fh, ptr, size_p, file_offset_p, buffer_offset_p, bytes_p, stream);
  }
  CheckError(write ? "WriteAsync" : "ReadAsync", e);
  if (s.use_count == 0) {
    // hipFile's quirk, kept: the call opens the driver and is refused.
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "async I/O at count 0: err %d", Raw(e.err));
    s.use_count = 1;
  }
  if (!Ok(e)) {
    FUZZ_CHECK(op->bytes == kUntouched, "a failed submission wrote *bytes_p (%zd)", op->bytes);
    return;
  }
  FUZZ_CHECK(null_arg != 3 && (fixed || null_arg > 3) && ptr != nullptr,
             "a submission with a NULL argument was accepted");
  op->submitted_size = std::min(size, kMaxRw);
  if (stream_index >= 0) op->gate = s.holding[stream_index];
  s.in_flight = true;
  s.async_ops.push_back(std::move(op));
}

// Holds or releases a non-blocking stream; while held, changes the arguments of an operation
// queued behind the gate (they are read when it runs, unless the stream has fixed flags).
void GateStream(Session& s, FuzzedDataProvider& in) {
  const int i = in.ConsumeIntegralInRange(2, kStreamCount - 1);
  const int action = in.ConsumeIntegralInRange(0, 3);
  if (s.holding[i] == nullptr) {
    auto gate = std::make_unique<Gate>();
    FUZZ_CHECK(hipLaunchHostFunc(g_process->streams[i], Gate::Wait, gate.get()) == hipSuccess,
               "hipLaunchHostFunc");
    s.holding[i] = gate.get();
    s.gates.push_back(std::move(gate));
  } else if (action == 0) {
    s.holding[i]->Open();
    s.holding[i] = nullptr;
  } else {
    for (const auto& op : s.async_ops) {
      if (op->gate != s.holding[i] || op->checked) continue;
      if (action == 1) op->size = ChooseSize(in);
      if (action == 2) op->file_offset = ChooseOffset(in);
      if (action == 3) op->buffer_offset = ChooseOffset(in);
      break;
    }
  }
}

void StreamRegister(FuzzedDataProvider& in) {
  int index;
  const hipStream_t stream = ChooseStream(in, &index);
  const unsigned flags = in.ConsumeIntegralInRange(0, 3) != 0
                             ? in.ConsumeIntegralInRange<unsigned>(0, HIPFILE_STREAM_FLAGS_MASK)
                             : in.ConsumeIntegral<unsigned>();
  const hipFileError_t e = hipFileStreamRegister(stream, flags);
  CheckError("StreamRegister", e);
  if (flags & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) {
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "StreamRegister(flags %#x): err %d", flags, Raw(e.err));
  }
}

void StreamDeregister(FuzzedDataProvider& in) {
  int index;
  CheckError("StreamDeregister", hipFileStreamDeregister(ChooseStream(in, &index)));
}

void StreamSynchronize(Session& s, FuzzedDataProvider& in) {
  int index;
  const hipStream_t stream = ChooseStream(in, &index);
  if (stream == nullptr) {
    Quiesce(s);
    return;
  }
  if (index < 0) {
    FUZZ_CHECK(hipStreamSynchronize(stream) != hipSuccess, "synchronized a bogus stream");
    return;
  }
  if (s.holding[index] != nullptr) {
    s.holding[index]->Open();
    s.holding[index] = nullptr;
  }
  FUZZ_CHECK(hipStreamSynchronize(stream) == hipSuccess, "hipStreamSynchronize");
}

void BatchSetUp(Session& s, FuzzedDataProvider& in) {
  if (s.batches.size() >= kMaxBatches) return;
  size_t limit = 0;
  CheckError("GetParameterSizeT",
             hipFileGetParameterSizeT(hipFileParamPropertiesIOBatchsize, &limit));
  limit = std::min<size_t>(limit, 128);
  const unsigned max_nr = in.PickValueInArray<unsigned>(
      {0, 1, 2, 4, 8, 128, 129, UINT_MAX, in.ConsumeIntegralInRange<unsigned>(1, 16)});
  const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
  hipFileBatchHandle_t handle = reinterpret_cast<hipFileBatchHandle_t>(0x5a5a);
  const hipFileError_t e = hipFileBatchIOSetUp(null_arg ? nullptr : &handle, max_nr);
  CheckError("BatchIOSetUp", e);
  const bool valid = !null_arg && max_nr >= 1 && max_nr <= limit;
  FUZZ_CHECK(Ok(e) == valid, "BatchIOSetUp(max_nr %u, limit %zu): err %d", max_nr, limit,
             Raw(e.err));
  if (!Ok(e)) {
    FUZZ_CHECK(handle == reinterpret_cast<hipFileBatchHandle_t>(0x5a5a),
               "a failed set-up wrote *batch_idp");
    return;
  }
  Batch batch;
  batch.handle = handle;
  batch.capacity = max_nr;
  s.batches.push_back(batch);
}

void BatchSubmit(Session& s, FuzzedDataProvider& in) {
  hipFileBatchHandle_t handle;
  const int b = ChooseBatch(s, in, &handle);
  const unsigned nr = in.ConsumeIntegralInRange(0, 7) != 0
                          ? in.ConsumeIntegralInRange<unsigned>(0, 8)
                          : in.PickValueInArray<unsigned>({127, 128, 129, UINT_MAX});
  // The API reads nr entries. More than kMaxBatchEntries exceed every capacity and must be refused
  // before any is read. The first few come from the input, the rest repeat them.
  const size_t described = std::min<size_t>(nr, kMaxBatchEntries);
  std::vector<hipFileIOParams_t> entries(std::max<size_t>(described, 1));
  std::map<void*, size_t> cookies;
  for (size_t i = 0; i < described; ++i) {
    hipFileIOParams_t& p = entries[i];
    if (i >= 9) {
      p = entries[i % 9];
    } else {
      std::memset(&p, 0, sizeof p);
      const int mode =
          in.ConsumeIntegralInRange(0, 31) != 0 ? hipFileBatch : in.PickValueInArray({0, 2, -1});
      const int opcode = in.ConsumeIntegralInRange(0, 31) != 0 ? in.ConsumeIntegralInRange(0, 1)
                                                               : in.PickValueInArray({2, -1});
      std::memcpy(&p.mode, &mode, sizeof mode);
      std::memcpy(&p.opcode, &opcode, sizeof opcode);
      int index;
      p.fh = ChooseHandle(s, in, &index);
      p.u.batch.devPtr_base = ChoosePointer(s, in);
      p.u.batch.file_offset = ChooseOffset(in);
      p.u.batch.devPtr_offset = in.ConsumeBool() ? 0 : ChooseOffset(in);
      p.u.batch.size = ChooseSize(in);
    }
    p.cookie = reinterpret_cast<void*>(s.next_cookie++);
    cookies[p.cookie] = std::min(p.u.batch.size, kMaxRw);
  }
  const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
  const unsigned flags = in.ConsumeBool() ? 0 : in.ConsumeIntegral<unsigned>();
  const hipFileError_t e =
      hipFileBatchIOSubmit(handle, nr, null_arg ? nullptr : entries.data(), flags);
  CheckError("BatchIOSubmit", e);
  if (b < 0 || s.batches[b].destroyed || nr == 0 || null_arg) {
    FUZZ_CHECK(Is(e, hipFileInvalidValue), "BatchIOSubmit(unknown batch, NULL or 0): err %d",
               Raw(e.err));
  }
  if (!Ok(e)) return;
  Batch& batch = s.batches[b];
  FUZZ_CHECK(nr <= described && batch.outstanding.size() + nr <= batch.capacity,
             "BatchIOSubmit accepted %u entries into a batch of %u holding %zu", nr, batch.capacity,
             batch.outstanding.size());
  batch.outstanding.insert(cookies.begin(), cookies.end());
  s.in_flight = true;
}

void BatchGetStatus(Session& s, FuzzedDataProvider& in) {
  hipFileBatchHandle_t handle;
  const int b = ChooseBatch(s, in, &handle);
  const unsigned asked = in.ConsumeIntegralInRange<unsigned>(0, 10);
  const unsigned min_nr = in.PickValueInArray<unsigned>({0, 1, asked, asked + 1});
  std::vector<hipFileIOEvents_t> events(std::max(asked, 1u));
  unsigned nr = asked;
  timespec timeout = {};
  timespec* timeout_p = &timeout;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      timeout_p = nullptr;  // waits: every entry finishes
      break;
    case 1:
      timeout = {0, 1000000};
      break;
    case 2:
      timeout = {-1, 0};
      break;
    case 3:
      timeout = {0, -1};
      break;
    case 4:
      timeout = {0, 1000000000};
      break;
    case 5:
      timeout = {INT64_MAX, 0};  // waits, as NULL does
      break;
    default:
      break;  // {0, 0}: polls
  }
  const int null_arg = in.ConsumeIntegralInRange(0, 15);
  const hipFileError_t e =
      hipFileBatchIOGetStatus(handle, min_nr, null_arg == 0 ? nullptr : &nr,
                              null_arg == 1 ? nullptr : events.data(), timeout_p);
  CheckError("BatchIOGetStatus", e);
  const bool bad_timeout = timeout_p != nullptr && (timeout.tv_sec < 0 || timeout.tv_nsec < 0 ||
                                                    timeout.tv_nsec >= 1000000000L);
  const bool valid = b >= 0 && !s.batches[b].destroyed && null_arg > 1 && asked > 0 &&
                     min_nr <= asked && !bad_timeout;
  FUZZ_CHECK(Ok(e) == valid, "BatchIOGetStatus(min_nr %u, nr %u): err %d", min_nr, asked,
             Raw(e.err));
  if (!Ok(e)) {
    FUZZ_CHECK(nr == asked, "a failed GetStatus wrote *nr");
    return;
  }
  Batch& batch = s.batches[b];
  FUZZ_CHECK(nr <= asked, "GetStatus returned %u events for %u", nr, asked);
  const bool waits = timeout_p == nullptr || timeout.tv_sec == INT64_MAX;
  if (waits) {
    FUZZ_CHECK(nr >= std::min<size_t>(min_nr, batch.outstanding.size()),
               "GetStatus waited for %u of %zu and returned %u", min_nr, batch.outstanding.size(),
               nr);
  }
  for (unsigned i = 0; i < nr; ++i) {
    const hipFileIOEvents_t& event = events[i];
    const auto it = batch.outstanding.find(event.cookie);
    FUZZ_CHECK(it != batch.outstanding.end(), "event for cookie %p, not outstanding", event.cookie);
    int status;
    std::memcpy(&status, &event.status, sizeof status);
    const auto ret = static_cast<int64_t>(event.ret);
    if (status == hipFileComplete) {
      FUZZ_CHECK(event.ret <= it->second, "entry of %zu bytes completed with %zu", it->second,
                 event.ret);
    } else if (status == hipFileFailed) {
      CheckNegativeCode("failed entry's ret", ret);
    } else {
      FUZZ_CHECK(status == hipFileCanceled && event.ret == 0, "event status %d ret %zu", status,
                 event.ret);
    }
    batch.outstanding.erase(it);
  }
}

void BatchCancel(Session& s, FuzzedDataProvider& in) {
  hipFileBatchHandle_t handle;
  const int b = ChooseBatch(s, in, &handle);
  const hipFileError_t e = hipFileBatchIOCancel(handle);
  CheckError("BatchIOCancel", e);
  const bool live = b >= 0 && !s.batches[b].destroyed;
  FUZZ_CHECK(Ok(e) == live, "BatchIOCancel: err %d", Raw(e.err));
}

void BatchDestroy(Session& s, FuzzedDataProvider& in) {
  hipFileBatchHandle_t handle;
  const int b = ChooseBatch(s, in, &handle);
  hipFileBatchIODestroy(handle);
  if (b >= 0) {
    s.batches[b].destroyed = true;
    s.batches[b].outstanding.clear();
  }
}

// A value for hipFileParamPropertiesMaxDevicePinnedMemSizeKB no larger than kMaxPinnedKiB if valid.
size_t BoundPinnedCap(size_t kib) {
  const bool valid = kib > 0 && kib % 4 == 0 && kib <= SIZE_MAX / 1024;
  return valid ? std::min(kib, kMaxPinnedKiB) : kib;
}

int ChooseParam(FuzzedDataProvider& in, int count) {
  return in.ConsumeIntegralInRange(0, 7) != 0
             ? in.ConsumeIntegralInRange(0, count - 1)
             : in.PickValueInArray({-1, count, count + 1, INT_MIN, INT_MAX});
}

size_t ChooseParamValue(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return in.ConsumeIntegralInRange<size_t>(0, 8);
    case 1:
      return 4 * in.ConsumeIntegralInRange<size_t>(1, 4096);  // KiB, page multiples to 16 MiB
    case 2:
      return in.PickValueInArray<size_t>({3, 1023, 1024, 8192, UINT_MAX, size_t{UINT_MAX} + 1,
                                          SIZE_MAX / 1024, SIZE_MAX / 1024 + 1, SIZE_MAX});
    default:
      return in.ConsumeIntegral<size_t>();
  }
}

std::string ChooseString(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return in.PickValueInArray<std::string>(
          {"off", "error", "warn", "info", "debug", "trace", "0", "4", "5", "ERROR", "", " warn"});
    case 1:
      return std::string(in.ConsumeBool() ? 4095 : 4096, 'x');
    default:
      return in.ConsumeRandomLengthString(64);
  }
}

void Parameters(Session& s, FuzzedDataProvider& in) {
  const bool open = s.use_count > 0;
  switch (in.ConsumeIntegralInRange(0, 5)) {
    case 0: {  // GetParameterSizeT
      const int param = ChooseParam(in, kParamCount);
      size_t value = 0x5a5a;
      const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
      const hipFileError_t e = hipFileGetParameterSizeT(
          RawEnum<hipFileSizeTConfigParameter_t>(param), null_arg ? nullptr : &value);
      CheckError("GetParameterSizeT", e);
      FUZZ_CHECK(Ok(e) == (!null_arg && param >= 0 && param < kParamCount),
                 "GetParameterSizeT(%d): err %d", param, Raw(e.err));
      if (!Ok(e)) FUZZ_CHECK(value == 0x5a5a, "a failed getter wrote its output");
      break;
    }
    case 1: {  // GetParameterBool
      const int param = ChooseParam(in, kParamCount);
      bool value = true;
      const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
      const hipFileError_t e = hipFileGetParameterBool(RawEnum<hipFileBoolConfigParameter_t>(param),
                                                       null_arg ? nullptr : &value);
      CheckError("GetParameterBool", e);
      FUZZ_CHECK(Ok(e) == (!null_arg && param >= 0 && param < kParamCount),
                 "GetParameterBool(%d): err %d", param, Raw(e.err));
      break;
    }
    case 2: {  // GetParameterString into exactly len bytes
      const int param = ChooseParam(in, kStringParamCount);
      const int len = in.PickValueInArray({-1, 0, 1, 2, 6, 64, 4095, 4096, 4097});
      std::vector<char> text(static_cast<size_t>(std::max(len, 1)), 0x7f);
      const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
      const hipFileError_t e = hipFileGetParameterString(
          RawEnum<hipFileStringConfigParameter_t>(param), null_arg ? nullptr : text.data(), len);
      CheckError("GetParameterString", e);
      if (Ok(e)) {
        FUZZ_CHECK(len > 0 && std::memchr(text.data(), 0, static_cast<size_t>(len)) != nullptr,
                   "GetParameterString(len %d): no terminator", len);
      } else {
        FUZZ_CHECK(text[0] == 0x7f, "a failed getter wrote its output");
      }
      break;
    }
    case 3: {  // SetParameterSizeT, then read back
      const int param = ChooseParam(in, kParamCount);
      size_t value = ChooseParamValue(in);
      if (param == hipFileParamPropertiesMaxDevicePinnedMemSizeKB) value = BoundPinnedCap(value);
      const hipFileError_t e =
          hipFileSetParameterSizeT(RawEnum<hipFileSizeTConfigParameter_t>(param), value);
      CheckError("SetParameterSizeT", e);
      if (open) {
        FUZZ_CHECK(Is(e, hipFileDriverAlreadyOpen) || Is(e, hipFileInvalidValue),
                   "SetParameterSizeT while open: err %d", Raw(e.err));
      } else if (Ok(e)) {
        size_t stored = 0;
        CheckError(
            "GetParameterSizeT",
            hipFileGetParameterSizeT(RawEnum<hipFileSizeTConfigParameter_t>(param), &stored));
        FUZZ_CHECK(stored == value, "param %d set to %zu reads %zu", param, value, stored);
      } else {
        FUZZ_CHECK(Is(e, hipFileInvalidValue), "SetParameterSizeT: err %d", Raw(e.err));
      }
      break;
    }
    case 4: {  // SetParameterBool, then read back
      const int param = ChooseParam(in, kParamCount);
      const bool value = in.ConsumeBool();
      const hipFileError_t e =
          hipFileSetParameterBool(RawEnum<hipFileBoolConfigParameter_t>(param), value);
      CheckError("SetParameterBool", e);
      const bool known = param >= 0 && param < kParamCount;
      if (!known) {
        FUZZ_CHECK(Is(e, hipFileInvalidValue), "SetParameterBool(%d): err %d", param, Raw(e.err));
      } else if (open) {
        FUZZ_CHECK(Is(e, hipFileDriverAlreadyOpen), "SetParameterBool open: err %d", Raw(e.err));
      } else {
        FUZZ_CHECK(Ok(e), "SetParameterBool(%d): err %d", param, Raw(e.err));
        bool stored = !value;
        CheckError("GetParameterBool",
                   hipFileGetParameterBool(RawEnum<hipFileBoolConfigParameter_t>(param), &stored));
        FUZZ_CHECK(stored == value, "bool param %d does not read back", param);
      }
      break;
    }
    default: {  // SetParameterString, then read back
      const int param = ChooseParam(in, kStringParamCount);
      const std::string value = ChooseString(in);
      const bool null_arg = in.ConsumeIntegralInRange(0, 15) == 0;
      const hipFileError_t e = hipFileSetParameterString(
          RawEnum<hipFileStringConfigParameter_t>(param), null_arg ? nullptr : value.c_str());
      CheckError("SetParameterString", e);
      if (Ok(e)) {
        FUZZ_CHECK(!open, "SetParameterString succeeded while open");
        std::vector<char> text(value.size() + 1);
        CheckError("GetParameterString",
                   hipFileGetParameterString(RawEnum<hipFileStringConfigParameter_t>(param),
                                             text.data(), static_cast<int>(text.size())));
        // What the call saw ends at the first NUL.
        FUZZ_CHECK(std::strcmp(value.c_str(), text.data()) == 0,
                   "string param %d does not read back", param);
      }
      break;
    }
  }
}

void DriverSetters(Session& s, FuzzedDataProvider& in) {
  size_t value = ChooseParamValue(in);
  hipFileError_t e;
  hipFileSizeTConfigParameter_t param;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      e = hipFileDriverSetPollMode(in.ConsumeBool(), value);
      param = hipFileParamPollthresholdSizeKB;
      break;
    case 1:
      e = hipFileDriverSetMaxDirectIOSize(value);
      param = hipFileParamPropertiesMaxDirectIOSizeKB;
      break;
    case 2:
      e = hipFileDriverSetMaxCacheSize(value);
      param = hipFileParamPropertiesMaxDeviceCacheSizeKB;
      break;
    default:
      value = BoundPinnedCap(value);
      e = hipFileDriverSetMaxPinnedMemSize(value);
      param = hipFileParamPropertiesMaxDevicePinnedMemSizeKB;
      break;
  }
  CheckError("DriverSet*", e);
  FUZZ_CHECK(Ok(e) || Is(e, hipFileInvalidValue), "DriverSet*: err %d", Raw(e.err));
  if (Ok(e) && s.use_count == 0) {
    size_t stored = 0;
    CheckError("GetParameterSizeT", hipFileGetParameterSizeT(param, &stored));
    FUZZ_CHECK(stored == value, "DriverSet* of %zu reads %zu", value, stored);
  }
}

void DriverCalls(Session& s, FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: {
      const hipFileError_t e = hipFileDriverOpen();
      CheckError("DriverOpen", e);
      FUZZ_CHECK(Ok(e), "DriverOpen: err %d", Raw(e.err));
      ++s.use_count;
      break;
    }
    case 1: {
      // The last close frees the engine's pinned memory, which waits for every stream of the
      // device (as cudaFreeHost does); a stream held for this thread would never get there.
      if (s.use_count == 1) OpenGates(s);
      const hipFileError_t e = hipFileDriverClose();
      CheckError("DriverClose", e);
      if (s.use_count == 0) {
        FUZZ_CHECK(Is(e, hipFileDriverNotInitialized), "DriverClose at 0: err %d", Raw(e.err));
      } else {
        FUZZ_CHECK(Ok(e), "DriverClose: err %d", Raw(e.err));
        if (--s.use_count == 0) {
          // The last close drops every batch with the driver.
          for (Batch& batch : s.batches) {
            batch.destroyed = true;
            batch.outstanding.clear();
          }
        }
      }
      break;
    }
    case 2: {
      hipFileDriverProps_t props;
      const bool null_arg = in.ConsumeIntegralInRange(0, 7) == 0;
      const hipFileError_t e = hipFileDriverGetProperties(null_arg ? nullptr : &props);
      CheckError("DriverGetProperties", e);
      if (null_arg) {
        FUZZ_CHECK(Is(e, hipFileInvalidValue), "GetProperties(NULL): err %d", Raw(e.err));
      } else {
        FUZZ_CHECK(Ok(e) == (s.use_count > 0), "GetProperties at count %lld: err %d",
                   static_cast<long long>(s.use_count), Raw(e.err));
      }
      break;
    }
    default: {
      unsigned v[3] = {9, 9, 9};
      const int nulls = in.ConsumeIntegralInRange(0, 7);
      const hipFileError_t e = hipFileGetVersion(
          nulls & 1 ? nullptr : &v[0], nulls & 2 ? nullptr : &v[1], nulls & 4 ? nullptr : &v[2]);
      FUZZ_CHECK(Ok(e), "GetVersion: err %d", Raw(e.err));
      FUZZ_CHECK((nulls & 1 || v[0] == HIPFILE_VERSION_MAJOR) &&
                     (nulls & 2 || v[1] == HIPFILE_VERSION_MINOR) &&
                     (nulls & 4 || v[2] == HIPFILE_VERSION_PATCH),
                 "GetVersion: %u.%u.%u", v[0], v[1], v[2]);
      FUZZ_CHECK(
          hipFileGetOpErrorString(RawEnum<hipFileOpError_t>(in.ConsumeIntegral<int>())) != nullptr,
          "GetOpErrorString returned NULL");
      break;
    }
  }
}

void Statistics(Session& s, FuzzedDataProvider& in) {
  const bool null_arg = in.ConsumeIntegralInRange(0, 7) == 0;
  hipFileError_t e;
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: {
      auto stats = std::make_unique<hipFileStatsLevel1_t>();
      e = hipFileGetStatsL1(null_arg ? nullptr : stats.get());
      break;
    }
    case 1: {
      auto stats = std::make_unique<hipFileStatsLevel2_t>();
      e = hipFileGetStatsL2(null_arg ? nullptr : stats.get());
      break;
    }
    default: {
      auto stats = std::make_unique<hipFileStatsLevel3_t>();
      e = hipFileGetStatsL3(null_arg ? nullptr : stats.get());
      if (Ok(e)) FUZZ_CHECK(stats->num_gpus <= HIPFILE_MAX_GPUS, "num_gpus %u", stats->num_gpus);
      break;
    }
  }
  CheckError("GetStats", e);
  FUZZ_CHECK(Ok(e) != null_arg, "GetStats: err %d", Raw(e.err));
  CheckStats(s);
}

// ---- one input ----------------------------------------------------------------------------------

void ResetFiles() {
  std::vector<unsigned char> bytes(kFileSizes[kFileCount - 1]);
  for (int f = 0; f < kFileCount; ++f) {
    const int fd = g_process->reference_fd[f];
    FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate: %s", std::strerror(errno));
    for (size_t i = 0; i < kFileSizes[f]; ++i) bytes[i] = Pattern(f, i);
    FUZZ_CHECK(pwrite(fd, bytes.data(), kFileSizes[f], 0) == static_cast<ssize_t>(kFileSizes[f]),
               "pwrite: %s", std::strerror(errno));
  }
}

void Begin(Session& s) {
  ResetFiles();
  FUZZ_CHECK(hipFileUseCount() == 0, "an input started with the driver open");
  CheckError("GetStatsL1", hipFileGetStatsL1(&s.stats));
  // A device buffer and a pinned one to start with; more come from Allocate.
  for (const auto& [kind, size] :
       {std::pair{MemoryKind::kDevice, kMaxAlloc}, std::pair{MemoryKind::kPinned, size_t{65536}}}) {
    void* p = nullptr;
    FUZZ_CHECK((kind == MemoryKind::kDevice ? hipMalloc(&p, size) : hipHostMalloc(&p, size, 0)) ==
                   hipSuccess,
               "allocating %zu bytes", size);
    std::memset(p, 0x3c, size);
    s.allocations.push_back({static_cast<char*>(p), size, kind});
  }
  // Two registered handles to start with, so that inputs reach the data path in a few bytes:
  // file 1 buffered and file 2 with O_DIRECT (where the file system allows it). Registering opens
  // the driver.
  for (const auto& [file, flags] : {std::pair{1, O_RDWR}, std::pair{2, O_RDWR | O_DIRECT}}) {
    OpenedFile f;
    f.file = file;
    f.flags = flags | O_CLOEXEC;
    f.fd = open(g_process->paths[file].c_str(), f.flags);
    if (f.fd < 0) {
      f.flags &= ~O_DIRECT;
      f.fd = open(g_process->paths[file].c_str(), f.flags);
    }
    FUZZ_CHECK(f.fd >= 0, "open: %s", std::strerror(errno));
    s.files.push_back(f);
    hipFileDescr_t descr;
    std::memset(&descr, 0, sizeof descr);
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = f.fd;
    hipFileHandle_t fh = nullptr;
    const hipFileError_t e = hipFileHandleRegister(&fh, &descr);
    FUZZ_CHECK(Ok(e), "registering file %d: err %d", file, Raw(e.err));
    NoteImplicitOpen(s, e);
    s.handles.push_back({fh, s.files.size() - 1});
  }
  // And a batch of 8 entries.
  Batch batch;
  batch.capacity = 8;
  CheckError("BatchIOSetUp", hipFileBatchIOSetUp(&batch.handle, batch.capacity));
  FUZZ_CHECK(batch.handle != nullptr, "BatchIOSetUp: no handle");
  s.batches.push_back(batch);
}

// Undoes the input: waits for its work, closes the driver, restores the parameters, frees.
void End(Session& s) {
  Quiesce(s);
  for (Batch& batch : s.batches) {
    if (!batch.destroyed) hipFileBatchIODestroy(batch.handle);
  }
  for (int i = 0; i < kStreamCount; ++i) {
    (void)hipFileStreamDeregister(g_process->streams[i]);
  }
  (void)hipFileStreamDeregister(nullptr);
  while (s.use_count > 0) {
    const hipFileError_t e = hipFileDriverClose();
    FUZZ_CHECK(Ok(e), "DriverClose at the end: err %d", Raw(e.err));
    --s.use_count;
  }
  CheckUseCount(s, "the last close");
  const Process& p = *g_process;
  for (int i = 0; i < kParamCount; ++i) {
    FUZZ_CHECK(
        Ok(hipFileSetParameterSizeT(RawEnum<hipFileSizeTConfigParameter_t>(i), p.size_params[i])) &&
            Ok(hipFileSetParameterBool(RawEnum<hipFileBoolConfigParameter_t>(i), p.bool_params[i])),
        "restoring parameter %d", i);
  }
  for (int i = 0; i < kStringParamCount; ++i) {
    FUZZ_CHECK(Ok(hipFileSetParameterString(RawEnum<hipFileStringConfigParameter_t>(i),
                                            p.string_params[i].c_str())),
               "restoring string parameter %d", i);
  }
  for (const Allocation& a : s.allocations) {
    switch (a.kind) {
      case MemoryKind::kDevice:
        FUZZ_CHECK(hipFree(a.ptr) == hipSuccess, "hipFree");
        break;
      case MemoryKind::kPinned:
        FUZZ_CHECK(hipHostFree(a.ptr) == hipSuccess, "hipHostFree");
        break;
      case MemoryKind::kHostRegistered:
        FUZZ_CHECK(hipHostUnregister(a.ptr) == hipSuccess, "hipHostUnregister");
        free(a.ptr);
        break;
      case MemoryKind::kPageable:
        free(a.ptr);
        break;
    }
  }
  for (const OpenedFile& f : s.files) {
    if (!f.closed) close(f.fd);
  }
}

void RunInput(FuzzedDataProvider& in) {
  Session s;
  Begin(s);
  for (int call = 0; call < kMaxCalls && in.remaining_bytes() > 0; ++call) {
    switch (in.ConsumeIntegralInRange(0, 22)) {
      case 0:
        Allocate(s, in);
        break;
      case 1:
        OpenFile(s, in);
        break;
      case 2:
        CloseFile(s, in);
        break;
      case 3:
      case 4:
        HandleRegister(s, in);
        break;
      case 5:
        HandleDeregister(s, in);
        break;
      case 6:
        BufRegister(s, in);
        break;
      case 7:
        BufDeregister(s, in);
        break;
      case 8:
      case 9:
        SyncIo(s, in, in.ConsumeBool());
        break;
      case 10:
      case 11:
        AsyncIo(s, in, in.ConsumeBool());
        break;
      case 12:
        GateStream(s, in);
        break;
      case 13:
        if (in.ConsumeBool()) {
          StreamRegister(in);
        } else {
          StreamDeregister(in);
        }
        break;
      case 14:
        StreamSynchronize(s, in);
        break;
      case 15:
        BatchSetUp(s, in);
        break;
      case 16:
        BatchSubmit(s, in);
        break;
      case 17:
        BatchGetStatus(s, in);
        break;
      case 18:
        if (in.ConsumeBool()) {
          BatchCancel(s, in);
        } else {
          BatchDestroy(s, in);
        }
        break;
      case 19:
        Parameters(s, in);
        break;
      case 20:
        DriverSetters(s, in);
        break;
      case 21:
        DriverCalls(s, in);
        break;
      default:
        if (in.ConsumeBool()) {
          Statistics(s, in);
        } else {
          Quiesce(s);
        }
        break;
    }
    CheckUseCount(s, "a call");
  }
  End(s);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Before the first hipFile call: the runtime is chosen once per process.
  setenv("HIPFILE_RUNTIME", "cpu", 1);
  setenv("HIPFILE_LOG_LEVEL", "error", 0);
  g_report_fd = dup(2);
  // Writes to the pipe (if one were ever accepted) must fail, not kill the process; and writes
  // past the file size limit return EFBIG.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  InitProcess();
  const char* runtime = hipFileExtRuntimeName();
  FUZZ_CHECK(std::strcmp(runtime, "cpu") == 0, "runtime %s, not cpu", runtime);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  RunInput(in);
  return 0;
}
