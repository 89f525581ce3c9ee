// SPDX-License-Identifier: MIT
// Teardown with work outstanding (issue 6): dlclose() of libhipfile.so, process exit and
// hipFileDriverClose while a file, a buffer and a stream are registered, stream-ordered reads are
// queued behind a held stream and a batch is in flight. The library is reached only through
// dlopen/dlsym, as a plugin loader would. Each scenario runs in a child process; this program
// exits 0 only if every child exited 0 in time - no crash, no hang.
//
//   teardown_program DIR [SCENARIO...]   (default: every scenario)
#include <dlfcn.h>
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kFileBytes = 1 << 20;
constexpr size_t kOpBytes = 64 << 10;
constexpr unsigned kAsyncOps = 8;  // the first half of the file, stream-ordered
constexpr unsigned kBatchOps = 8;  // the second half, in one batch
constexpr int kChildSeconds = 60;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "teardown: %s\n", what);
  std::_Exit(1);
}

template <class Fn>
Fn Sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == nullptr) Fail(name);
  return reinterpret_cast<Fn>(p);
}

// The entry points used, resolved from one dlopen handle.
struct Api {
  explicit Api(void* lib)
      : driver_open(Sym<decltype(&hipFileDriverOpen)>(lib, "hipFileDriverOpen")),
        driver_close(Sym<decltype(&hipFileDriverClose)>(lib, "hipFileDriverClose")),
        handle_register(Sym<decltype(&hipFileHandleRegister)>(lib, "hipFileHandleRegister")),
        buf_register(Sym<decltype(&hipFileBufRegister)>(lib, "hipFileBufRegister")),
        stream_register(Sym<decltype(&hipFileStreamRegister)>(lib, "hipFileStreamRegister")),
        read(Sym<decltype(&hipFileRead)>(lib, "hipFileRead")),
        read_async(Sym<decltype(&hipFileReadAsync)>(lib, "hipFileReadAsync")),
        batch_setup(Sym<decltype(&hipFileBatchIOSetUp)>(lib, "hipFileBatchIOSetUp")),
        batch_submit(Sym<decltype(&hipFileBatchIOSubmit)>(lib, "hipFileBatchIOSubmit")),
        batch_status(Sym<decltype(&hipFileBatchIOGetStatus)>(lib, "hipFileBatchIOGetStatus")),
        malloc(Sym<hipError_t (*)(void**, size_t)>(lib, "hipMalloc")),
        memcpy(Sym<decltype(&hipMemcpy)>(lib, "hipMemcpy")),
        stream_create(Sym<decltype(&hipStreamCreate)>(lib, "hipStreamCreate")),
        stream_synchronize(Sym<decltype(&hipStreamSynchronize)>(lib, "hipStreamSynchronize")),
        launch_host_func(Sym<decltype(&hipLaunchHostFunc)>(lib, "hipLaunchHostFunc")) {}

  decltype(&hipFileDriverOpen) driver_open;
  decltype(&hipFileDriverClose) driver_close;
  decltype(&hipFileHandleRegister) handle_register;
  decltype(&hipFileBufRegister) buf_register;
  decltype(&hipFileStreamRegister) stream_register;
  decltype(&hipFileRead) read;
  decltype(&hipFileReadAsync) read_async;
  decltype(&hipFileBatchIOSetUp) batch_setup;
  decltype(&hipFileBatchIOSubmit) batch_submit;
  decltype(&hipFileBatchIOGetStatus) batch_status;
  hipError_t (*malloc)(void**, size_t);
  decltype(&hipMemcpy) memcpy;
  decltype(&hipStreamCreate) stream_create;
  decltype(&hipStreamSynchronize) stream_synchronize;
  decltype(&hipLaunchHostFunc) launch_host_func;
};

void* Load() {
  void* lib = dlopen(HIPFILE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) Fail(dlerror());
  return lib;
}

unsigned char Pattern(size_t i) { return static_cast<unsigned char>(i * 131 + (i >> 12)); }

// Holds the stream in a host function until Release (a pipe, so the gate needs no library).
int g_gate[2] = {-1, -1};
void HoldStream(void*) {
  char c;
  while (read(g_gate[0], &c, 1) < 0) {
  }
}
void Release() {
  if (write(g_gate[1], "x", 1) != 1) Fail("release");
}

// Everything left outstanding by Start.
struct Work {
  int fd = -1;
  hipFileHandle_t fh = nullptr;
  unsigned char* dev = nullptr;
  hipStream_t stream = nullptr;
  size_t sizes[kAsyncOps] = {};
  off_t file_offsets[kAsyncOps] = {}, buffer_offsets[kAsyncOps] = {};
  ssize_t bytes[kAsyncOps] = {};
  hipFileBatchHandle_t batch = nullptr;
  hipFileIOParams_t params[kBatchOps] = {};
};

int OpenFile(const std::string& dir) {
  const std::string path = dir + "/teardown-" + std::to_string(getpid()) + ".bin";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Fail("open");
  unlink(path.c_str());  // gone with the process, however it ends
  std::vector<unsigned char> data(kFileBytes);
  for (size_t i = 0; i < kFileBytes; ++i) data[i] = Pattern(i);
  if (pwrite(fd, data.data(), data.size(), 0) != static_cast<ssize_t>(data.size())) Fail("pwrite");
  return fd;
}

hipFileHandle_t Register(const Api& api, int fd) {
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (api.handle_register(&fh, &descr).err != hipFileSuccess) Fail("hipFileHandleRegister");
  return fh;
}

// Registers a file, a buffer and a stream; queues stream-ordered reads behind a held stream and
// submits a batch. Nothing is cleaned up.
void Start(const Api& api, const std::string& dir, Work* w) {
  if (pipe(g_gate) != 0) Fail("pipe");
  if (api.driver_open().err != hipFileSuccess) Fail("hipFileDriverOpen");
  w->fd = OpenFile(dir);
  w->fh = Register(api, w->fd);
  void* dev = nullptr;
  if (api.malloc(&dev, kFileBytes) != hipSuccess) Fail("hipMalloc");
  w->dev = static_cast<unsigned char*>(dev);
  if (api.buf_register(dev, kFileBytes, 0).err != hipFileSuccess) Fail("hipFileBufRegister");
  if (api.stream_create(&w->stream) != hipSuccess) Fail("hipStreamCreate");
  if (api.stream_register(w->stream, 0).err != hipFileSuccess) Fail("hipFileStreamRegister");
  if (api.launch_host_func(w->stream, HoldStream, nullptr) != hipSuccess) Fail("hold");
  for (unsigned i = 0; i < kAsyncOps; ++i) {
    w->sizes[i] = kOpBytes;
    w->file_offsets[i] = w->buffer_offsets[i] = static_cast<off_t>(i * kOpBytes);
    if (api.read_async(w->fh, dev, &w->sizes[i], &w->file_offsets[i], &w->buffer_offsets[i],
                       &w->bytes[i], w->stream)
            .err != hipFileSuccess) {
      Fail("hipFileReadAsync");
    }
  }
  if (api.batch_setup(&w->batch, kBatchOps).err != hipFileSuccess) Fail("hipFileBatchIOSetUp");
  for (unsigned i = 0; i < kBatchOps; ++i) {
    hipFileIOParams_t& p = w->params[i];
    p.mode = hipFileBatch;
    p.opcode = hipFileBatchRead;
    p.fh = w->fh;
    p.u.batch.devPtr_base = dev;
    p.u.batch.file_offset = p.u.batch.devPtr_offset = (kAsyncOps + i) * kOpBytes;
    p.u.batch.size = kOpBytes;
  }
  if (api.batch_submit(w->batch, kBatchOps, w->params, 0).err != hipFileSuccess) {
    Fail("hipFileBatchIOSubmit");
  }
}

// After Release: every stream-ordered read reports its full size, and the batch's events too -
// unless the driver's last close dropped the batch (batch_dropped): then its handle is refused,
// and only the stream-ordered half of the bytes is checked (the close cancels batch entries that
// had not started). (A hang here is caught by the parent's deadline.)
void ExpectWorkDone(const Api& api, Work* w, bool batch_dropped = false) {
  if (api.stream_synchronize(w->stream) != hipSuccess) Fail("hipStreamSynchronize");
  for (unsigned i = 0; i < kAsyncOps; ++i) {
    if (w->bytes[i] != static_cast<ssize_t>(kOpBytes)) Fail("a stream-ordered read failed");
  }
  hipFileIOEvents_t events[kBatchOps] = {};
  unsigned nr = kBatchOps;
  const hipFileError_t status = api.batch_status(w->batch, kBatchOps, &nr, events, nullptr);
  if (batch_dropped) {
    if (status.err != hipFileInvalidValue || nr != kBatchOps) {
      Fail("hipFileBatchIOGetStatus on a batch the close dropped");
    }
  } else {
    if (status.err != hipFileSuccess || nr != kBatchOps) Fail("hipFileBatchIOGetStatus");
    for (const hipFileIOEvents_t& ev : events) {
      if (ev.status != hipFileComplete || ev.ret != kOpBytes) Fail("a batch read failed");
    }
  }
  const size_t checked = batch_dropped ? kAsyncOps * kOpBytes : kFileBytes;
  std::vector<unsigned char> host(kFileBytes);
  if (api.memcpy(host.data(), w->dev, kFileBytes, hipMemcpyDeviceToHost) != hipSuccess) {
    Fail("hipMemcpy");
  }
  for (size_t i = 0; i < checked; ++i) {
    if (host[i] != Pattern(i)) Fail("the bytes read are not the file's");
  }
}

// A fresh registration of the same file reads it in full: the library still works.
void ExpectLaterReadWorks(const Api& api, const Work& w) {
  const int fd = dup(w.fd);
  const hipFileHandle_t fh = Register(api, fd);
  if (api.read(fh, w.dev, kFileBytes, 0, 0) != static_cast<ssize_t>(kFileBytes)) {
    Fail("a later hipFileRead");
  }
}

int Scenario(const std::string& name, const std::string& dir) {
  void* lib = Load();
  const Api api(lib);
  Work w;
  Start(api, dir, &w);
  if (name == "dlclose") {
    // Unloaded with everything outstanding; the work then runs, and a second load finds it done.
    if (dlclose(lib) != 0) Fail(dlerror());
    if (dlopen(HIPFILE_LIBRARY, RTLD_NOW | RTLD_NOLOAD) == nullptr) {
      Fail("dlclose unloaded libhipfile.so under its own threads");
    }
    Release();
    void* again = Load();
    const Api api2(again);
    ExpectWorkDone(api2, &w);
    ExpectLaterReadWorks(api2, w);
    if (dlclose(again) != 0) Fail(dlerror());
    return 0;
  }
  if (name == "exit-queued") std::exit(0);  // the stream still held
  if (name == "exit-running") {
    Release();
    std::exit(0);  // while the reads run
  }
  if (name == "dlclose-exit") {
    Release();
    if (dlclose(lib) != 0) Fail(dlerror());
    std::exit(0);
  }
  if (name == "driver-close") {
    // Registrations and the batch dropped under queued work; the stream-ordered work then
    // completes; the driver reopens.
    if (api.driver_close().err != hipFileSuccess) Fail("hipFileDriverClose");
    Release();
    ExpectWorkDone(api, &w, /*batch_dropped=*/true);
    if (api.driver_open().err != hipFileSuccess) Fail("hipFileDriverOpen again");
    ExpectLaterReadWorks(api, w);
    return 0;  // and exit with the driver open and a file registered
  }
  Fail("unknown scenario");
}

// Runs a scenario in a child; true when it exited 0 within kChildSeconds.
bool RunChild(const std::string& name, const std::string& dir) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) Fail("fork");
  if (pid == 0) std::exit(Scenario(name, dir));
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::printf("teardown %s: FAILED (hung; killed after %d s)\n", name.c_str(), kChildSeconds);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::printf("teardown %s: OK\n", name.c_str());
    return true;
  }
  if (WIFSIGNALED(status)) {
    std::printf("teardown %s: FAILED (signal %d, %s)\n", name.c_str(), WTERMSIG(status),
                strsignal(WTERMSIG(status)));
  } else {
    std::printf("teardown %s: FAILED (exit status %d)\n", name.c_str(), WEXITSTATUS(status));
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [SCENARIO...]\n", argv[0]);
    return 2;
  }
  std::vector<std::string> scenarios(argv + 2, argv + argc);
  if (scenarios.empty()) {
    scenarios = {"dlclose", "dlclose-exit", "exit-queued", "exit-running", "driver-close"};
  }
  bool ok = true;
  for (const std::string& name : scenarios) ok = RunChild(name, argv[1]) && ok;
  return ok ? 0 : 1;
}
