// SPDX-License-Identifier: MIT
// Real resource limits, in a forked child so the test process keeps its own: a process limit
// (RLIMIT_NPROC: no thread can be started) and an address-space limit (RLIMIT_AS: allocations,
// pinning and thread stacks fail). Under each, the C API's main calls - a multi-chunk read, a
// stream-ordered read, a batch - must return or report hipFile's documented errors, never abort
// the process; and once the limit is lifted, the same calls must work. Root ignores RLIMIT_NPROC,
// so a root child drops to the unprivileged user `nobody` first.
//
// The parent touches nothing of the library before it forks: each test runs in a process of its
// own (gtest_discover_tests), so the child starts with the library untouched.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kFileBytes = size_t{24} << 20;  // several chunks: the engine wants helpers

bool IsSuccess(hipFileError_t e) { return e.err == hipFileSuccess && e.hip_drv_err == hipSuccess; }

// The child's checks: a failed one prints why and exits with its line number.
#define CHILD_CHECK(cond)                                                       \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "child: check failed at line %d: %s\n", __LINE__, #cond); \
      _exit(__LINE__ % 250 + 1);                                                \
    }                                                                           \
  } while (0)

struct ChildFile {
  std::string dir;
  std::string path;
  int fd = -1;
  std::vector<unsigned char> data;
};

ChildFile MakeFile() {
  ChildFile f;
  char dir[] = "/tmp/hipfile-limits-XXXXXX";
  CHILD_CHECK(mkdtemp(dir) != nullptr);
  f.dir = dir;
  f.path = f.dir + "/in.bin";
  f.data.resize(kFileBytes);
  for (size_t i = 0; i < kFileBytes; ++i) f.data[i] = static_cast<unsigned char>(i * 131 + 7);
  const int w = open(f.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHILD_CHECK(w >= 0);
  CHILD_CHECK(write(w, f.data.data(), kFileBytes) == static_cast<ssize_t>(kFileBytes));
  close(w);
  f.fd = open(f.path.c_str(), O_RDWR);
  CHILD_CHECK(f.fd >= 0);
  return f;
}

void RemoveFile(const ChildFile& f) {
  close(f.fd);
  unlink(f.path.c_str());
  rmdir(f.dir.c_str());
}

hipFileHandle_t Register(int fd) {
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  const hipFileError_t e = hipFileHandleRegister(&fh, &descr);
  return IsSuccess(e) ? fh : nullptr;
}

bool DeviceHolds(void* device, const std::vector<unsigned char>& data, size_t n) {
  std::vector<unsigned char> back(n);
  if (hipMemcpy(back.data(), device, n, hipMemcpyDeviceToHost) != hipSuccess) return false;
  return std::memcmp(back.data(), data.data(), n) == 0;
}

// One stream-ordered read of the whole file on `stream`: true when it completed with every byte.
bool ReadAsyncWorks(hipFileHandle_t fh, void* device, hipStream_t stream) {
  size_t size = kFileBytes;
  hoff_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = -999;
  if (!IsSuccess(hipFileReadAsync(fh, device, &size, &file_offset, &buffer_offset, &bytes, stream)))
    return false;
  if (hipStreamSynchronize(stream) != hipSuccess) return false;
  return bytes == static_cast<ssize_t>(kFileBytes);
}

// A batch of 4 reads: the submission's error, and when it was accepted, whether every entry
// ended (complete, or failed) within 10 s.
hipFileError_t SubmitBatch(hipFileHandle_t fh, void* device, bool* all_ended) {
  *all_ended = false;
  hipFileBatchHandle_t batch = nullptr;
  hipFileError_t e = hipFileBatchIOSetUp(&batch, 4);
  if (!IsSuccess(e)) return e;
  hipFileIOParams_t params[4] = {};
  for (unsigned i = 0; i < 4; ++i) {
    params[i].mode = hipFileBatch;
    params[i].fh = fh;
    params[i].opcode = hipFileBatchRead;
    params[i].u.batch.devPtr_base = device;
    params[i].u.batch.devPtr_offset = static_cast<hoff_t>(i) << 20;
    params[i].u.batch.file_offset = static_cast<hoff_t>(i) << 20;
    params[i].u.batch.size = 1 << 20;
  }
  e = hipFileBatchIOSubmit(batch, 4, params, 0);
  if (IsSuccess(e)) {
    unsigned seen = 0;
    while (seen < 4) {
      hipFileIOEvents_t events[4];
      unsigned nr = 4;
      timespec timeout{10, 0};
      if (!IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events, &timeout)) || nr == 0) break;
      seen += nr;
    }
    *all_ended = seen == 4;
  } else {
    // Nothing was accepted: a poll finds no event.
    hipFileIOEvents_t events[4];
    unsigned nr = 4;
    timespec poll{0, 0};
    *all_ended = IsSuccess(hipFileBatchIOGetStatus(batch, 0, &nr, events, &poll)) && nr == 0;
  }
  hipFileBatchIODestroy(batch);
  return e;
}

// Once a limit is lifted: a stream-ordered read on `stream` moves the whole file and a batch
// completes; then the stream, the handle, the driver and the file go.
void StreamAndBatchWorkThenCleanUp(const ChildFile& f, hipFileHandle_t fh, void* device,
                                   hipStream_t stream) {
  CHILD_CHECK(ReadAsyncWorks(fh, device, stream));
  CHILD_CHECK(DeviceHolds(device, f.data, kFileBytes));
  bool ended = false;
  CHILD_CHECK(IsSuccess(SubmitBatch(fh, device, &ended)));
  CHILD_CHECK(ended);
  CHILD_CHECK(hipStreamDestroy(stream) == hipSuccess);
  hipFileHandleDeregister(fh);
  CHILD_CHECK(IsSuccess(hipFileDriverClose()));
  RemoveFile(f);
}

void DropRootPrivileges() {
  if (geteuid() != 0) return;
  CHILD_CHECK(setgid(65534) == 0);
  CHILD_CHECK(setuid(65534) == 0);  // nobody: root would ignore RLIMIT_NPROC
}

// Runs body in a forked child; the child's exit status (0: every check held).
template <class Body>
int InChild(Body body) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(RealLimitsTest, NoThreadCanBeStarted) {
  const int status = InChild([] {
    DropRootPrivileges();
    ChildFile f = MakeFile();
    void* device = nullptr;
    CHILD_CHECK(hipMalloc(&device, kFileBytes) == hipSuccess);
    hipFileHandle_t fh = Register(f.fd);
    CHILD_CHECK(fh != nullptr);

    rlimit saved{};
    CHILD_CHECK(getrlimit(RLIMIT_NPROC, &saved) == 0);
    rlimit one = saved;
    one.rlim_cur = 1;  // this process already counts
    CHILD_CHECK(setrlimit(RLIMIT_NPROC, &one) == 0);

    // The engine's helpers are refused: the caller moves every byte itself.
    CHILD_CHECK(hipFileRead(fh, device, kFileBytes, 0, 0) == static_cast<ssize_t>(kFileBytes));
    CHILD_CHECK(DeviceHolds(device, f.data, kFileBytes));
    // A stream is a thread on the CPU runtime, and the stream-ordered poller is one: refused.
    hipStream_t stream = nullptr;
    const hipError_t created = hipStreamCreate(&stream);
    CHILD_CHECK(created == hipErrorOutOfMemory || created == hipSuccess);
    CHILD_CHECK(!ReadAsyncWorks(fh, device, created == hipSuccess ? stream : nullptr));
    // The batch workers are refused: nothing is accepted, nothing is left pending.
    bool ended = false;
    CHILD_CHECK(!IsSuccess(SubmitBatch(fh, device, &ended)));
    CHILD_CHECK(ended);

    // Threads can be had again: everything works.
    CHILD_CHECK(setrlimit(RLIMIT_NPROC, &saved) == 0);
    if (created != hipSuccess) CHILD_CHECK(hipStreamCreate(&stream) == hipSuccess);
    StreamAndBatchWorkThenCleanUp(f, fh, device, stream);
  });
  EXPECT_EQ(status, 0);
}

// The address space the process uses now, in bytes.
size_t AddressSpaceBytes() {
  FILE* statm = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  CHILD_CHECK(statm != nullptr && fscanf(statm, "%lu", &pages) == 1);
  fclose(statm);
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(RealLimitsTest, AddressSpaceIsExhausted) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's runtime reserves the address space itself and aborts when it "
                  "cannot map more";
#endif
  const int status = InChild([] {
    ChildFile f = MakeFile();
    void* device = nullptr;
    CHILD_CHECK(hipMalloc(&device, kFileBytes) == hipSuccess);
    CHILD_CHECK(IsSuccess(hipFileDriverOpen()));

    rlimit saved{};
    CHILD_CHECK(getrlimit(RLIMIT_AS, &saved) == 0);
    // Room for a few small allocations only: no thread stack (8 MiB), no staging buffer.
    rlimit tight = saved;
    tight.rlim_cur = AddressSpaceBytes() + (size_t{1} << 20);
    CHILD_CHECK(setrlimit(RLIMIT_AS, &tight) == 0);

    // Each call succeeds or fails; none may abort the process.
    hipFileHandle_t fh = Register(f.fd);
    if (fh != nullptr) {
      const ssize_t got = hipFileRead(fh, device, kFileBytes, 0, 0);
      CHILD_CHECK(got == static_cast<ssize_t>(kFileBytes) || got == -1 || got < -1);
      (void)ReadAsyncWorks(fh, device, nullptr);
      bool ended = false;
      (void)SubmitBatch(fh, device, &ended);
      CHILD_CHECK(ended);
      hipFileHandleDeregister(fh);
    }

    CHILD_CHECK(setrlimit(RLIMIT_AS, &saved) == 0);
    fh = Register(f.fd);
    CHILD_CHECK(fh != nullptr);
    CHILD_CHECK(hipFileRead(fh, device, kFileBytes, 0, 0) == static_cast<ssize_t>(kFileBytes));
    CHILD_CHECK(DeviceHolds(device, f.data, kFileBytes));
    hipStream_t stream = nullptr;
    CHILD_CHECK(hipStreamCreate(&stream) == hipSuccess);
    StreamAndBatchWorkThenCleanUp(f, fh, device, stream);
  });
  EXPECT_EQ(status, 0);
}

}  // namespace
