// SPDX-License-Identifier: MIT
// IoPathTest: a fixture that runs one transfer on any of the three API paths - Driver::Read/Write
// (sync), Driver::SubmitAsync on a CPU-runtime stream (stream-ordered) and a BatchManager of its
// own (batch) - and reports it the same way, so one scenario is checked on all three. The Driver
// sits on a GateSys (a FaultSys that can also hold transfers) and a FaultRuntime over the CPU
// runtime, so the engine takes the staged path of a GPU (fakes/fault_runtime.h).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/async/async_executor.h"
#include "core/batch/batch_manager.h"
#include "core/config.h"
#include "core/driver.h"
#include "fakes/fault_runtime.h"
#include "fakes/gate.h"
#include "fakes/gate_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {

enum class Path { kSync, kAsync, kBatch };

inline std::string PathName(const ::testing::TestParamInfo<Path>& info) {
  switch (info.param) {
    case Path::kSync:
      return "Sync";
    case Path::kAsync:
      return "Async";
    case Path::kBatch:
      return "Batch";
  }
  return "Unknown";
}

// Faults injected or staged by the reliability tests; the total is printed at exit as
// "faults injected: N".
inline uint64_t g_faults = 0;

class FaultPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("faults injected: %llu\n", static_cast<unsigned long long>(g_faults));
  }
};
inline const ::testing::Environment* const kFaultPrinter =
    ::testing::AddGlobalTestEnvironment(new FaultPrinter);

// Aborts the process when a test runs longer than `limit`: a hang is reported as one, not as a
// ctest timeout minutes later.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit)
      : thread_([this, limit] {
          std::unique_lock<std::mutex> lock(mu_);
          if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
          const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
          std::fprintf(stderr, "hang: %s.%s ran past %lld s\n",
                       test != nullptr ? test->test_suite_name() : "?",
                       test != nullptr ? test->name() : "?", static_cast<long long>(limit.count()));
          std::abort();
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;  // guarded by mu_
  std::thread thread_;
};

// The outcome of one transfer, whatever the path: bytes moved, or the error.
struct Outcome {
  bool ok = false;
  size_t bytes = 0;
  Status error;
};

// The device buffer's size unless a test asks for another.
inline constexpr size_t kIoPathBufferBytes = 64 * 1024;

class IoPathTest : public ::testing::TestWithParam<Path> {
 protected:
  explicit IoPathTest(size_t buffer_bytes = kIoPathBufferBytes,
                      const runtime::CpuRuntimeOptions& options = {})
      : cpu_(runtime::CreateCpuRuntime(options)), gpu_(*cpu_) {
    // Pin-ahead off: these tests count and fail the engine's GPU calls one read at a time, and
    // pinner threads pinning windows on their own would make those counts depend on timing
    // (PinAheadTest and PageCacheTest cover pin-ahead).
    // Stream-ordered operations are always queued on their stream: these tests are of the queued
    // way (AsyncRunAtOnceTest and AsyncCopyAtSubmissionTest cover what is done at submission).
    driver_ = std::make_unique<Driver>(sys_, gpu_, QueuedWayConfig(sys_));
    EXPECT_TRUE(driver_->Open().ok());
    EXPECT_EQ(gpu_.Malloc(&dev_, buffer_bytes), hipSuccess);
  }
  // The configuration these tests run under (above), the rest from `sys`'s environment.
  static Config QueuedWayConfig(platform::Sys& sys) {
    Config config = ParseConfig(sys);
    config.page_cache_pin_ahead = 0;
    config.async_run_idle_kb = 0;
    config.async_copy_at_submission = false;
    config.async_read_at_submission = false;
    return config;
  }
  // A fresh driver under `config` in place of the fixture's, opened (files registered with the
  // old one are not registered with it).
  void ReplaceDriver(const Config& config) {
    driver_.reset();
    driver_ = std::make_unique<Driver>(sys_, gpu_, config);
    ASSERT_TRUE(driver_->Open().ok());
  }
  // A fresh driver with the configuration above changed by `adjust`.
  void Remake(const std::function<void(Config&)>& adjust) {
    Config config = QueuedWayConfig(sys_);
    adjust(config);
    ReplaceDriver(config);
  }
  ~IoPathTest() override {
    sys_.OpenGate();
    sys_.Reset();
    manager_.reset();
    if (stream_ != nullptr) (void)gpu_.StreamDestroy(stream_);
    driver_.reset();
    for (int fd : fds_) ::close(fd);
    (void)gpu_.Free(dev_);
  }

  // A registered file of `size` pattern bytes, opened read-write, in the test's directory.
  void* OpenFile(const std::string& name, size_t size) {
    path_ = dir_.File(name);
    testing::WriteFileOrDie(path_, testing::PatternBytes(size));
    return Register(path_);
  }
  // Opens `path` (created if missing) read-write and registers it.
  void* Register(const std::string& path) {
    path_ = path;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    EXPECT_GE(fd, 0) << path;
    fds_.push_back(fd);
    return Register(fd);
  }
  // Registers `fd`, which the test closes.
  void* Register(int fd) {
    Result<void*> handle = driver_->RegisterHandle(fd);
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return handle.ok() ? *handle : nullptr;
  }

  // The fixture's stream for the stream-ordered path, made on first use.
  runtime::Stream Stream() {
    if (stream_ == nullptr) {
      EXPECT_EQ(gpu_.StreamCreate(&stream_, 0), hipSuccess);
    }
    return stream_;
  }
  BatchManager& Manager() {
    if (manager_ == nullptr) manager_ = std::make_unique<BatchManager>(*driver_);
    return *manager_;
  }

  // One transfer on the test's path, waited for.
  Outcome Run(IoDirection direction, void* fh, size_t size, off_t file_offset) {
    Outcome out;
    switch (GetParam()) {
      case Path::kSync: {
        const Result<size_t> r = direction == IoDirection::kRead
                                     ? driver_->Read(fh, dev_, size, file_offset, 0)
                                     : driver_->Write(fh, dev_, size, file_offset, 0);
        out.ok = r.ok();
        if (r.ok()) out.bytes = *r;
        if (!r.ok()) out.error = r.status();
        break;
      }
      case Path::kAsync: {
        size_t s = size;
        off_t fo = file_offset, bo = 0;
        ssize_t bytes = 12345;
        const Status submitted =
            driver_->SubmitAsync(direction, fh, dev_, &s, &fo, &bo, &bytes, Stream());
        EXPECT_TRUE(submitted.ok()) << submitted.ToString();
        EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
        out = FromBytesP(bytes);
        break;
      }
      case Path::kBatch: {
        Result<hipFileBatchHandle_t> batch = Manager().SetUp(1);
        EXPECT_TRUE(batch.ok());
        const hipFileIOParams_t p = Entry(direction, fh, size, file_offset);
        const Status submitted = manager_->Submit(*batch, 1, &p);
        EXPECT_TRUE(submitted.ok()) << submitted.ToString();
        out = WaitEvent(*batch);
        manager_->Destroy(*batch);
        break;
      }
    }
    return out;
  }

  // A batch entry for the fixture's buffer.
  hipFileIOParams_t Entry(IoDirection direction, void* fh, size_t size, off_t file_offset) {
    hipFileIOParams_t p = {};
    p.mode = hipFileBatch;
    p.opcode = direction == IoDirection::kRead ? hipFileBatchRead : hipFileBatchWrite;
    p.fh = fh;
    p.u.batch.devPtr_base = dev_;
    p.u.batch.size = size;
    p.u.batch.file_offset = file_offset;
    return p;
  }
  // Waits for the one event of `batch`.
  Outcome WaitEvent(hipFileBatchHandle_t batch) {
    hipFileIOEvents_t ev = {};
    unsigned nr = 1;
    EXPECT_TRUE(manager_->GetStatus(batch, 1, &nr, &ev, nullptr).ok());
    EXPECT_EQ(nr, 1u);
    return FromEvent(ev);
  }
  // A finished batch entry: bytes, or the negated errno in ret.
  static Outcome FromEvent(const hipFileIOEvents_t& ev) {
    Outcome out;
    out.ok = ev.status == hipFileComplete;
    if (out.ok) out.bytes = ev.ret;
    if (!out.ok) {
      EXPECT_EQ(ev.status, hipFileFailed);
      out.error = Status::Errno(static_cast<int>(-static_cast<ssize_t>(ev.ret)));
    }
    return out;
  }
  // *bytes_p of a finished stream-ordered operation: bytes, or a negated errno (system errors
  // are below HIPFILE_BASE_ERR).
  static Outcome FromBytesP(ssize_t bytes) {
    Outcome out;
    out.ok = bytes >= 0;
    if (out.ok) out.bytes = static_cast<size_t>(bytes);
    if (!out.ok) out.error = Status::Errno(static_cast<int>(-bytes));
    return out;
  }

  // Reads `file_size` bytes cleanly and checks them against the pattern: nothing was left broken.
  void ExpectCleanRead(void* fh, size_t file_size) {
    sys_.Reset();
    const Outcome out = Run(IoDirection::kRead, fh, file_size, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, file_size);
    EXPECT_EQ(DeviceBytes(file_size), testing::PatternBytes(file_size));
  }

  std::vector<unsigned char> DeviceBytes(size_t size) {
    std::vector<unsigned char> bytes(size);
    EXPECT_EQ(gpu_.Memcpy(bytes.data(), dev_, size, hipMemcpyDeviceToHost), hipSuccess);
    return bytes;
  }
  void FillDevice(const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(gpu_.Memcpy(dev_, bytes.data(), bytes.size(), hipMemcpyHostToDevice), hipSuccess);
  }

  // The driver's stream-ordered executor.
  AsyncExecutor& Executor() { return **driver_->async_executor(); }
  // Bytes read so far by `path` (hipFileExtGetPathStats), and by every path.
  uint64_t ReadBytes(hipFileExtPath path) {
    hipFileExtPathStats_t p = {};
    driver_->stats().FillPaths(&p);
    return p.read_bytes[path];
  }
  uint64_t AllReadBytes() {
    hipFileExtPathStats_t p = {};
    driver_->stats().FillPaths(&p);
    uint64_t sum = 0;
    for (const uint64_t b : p.read_bytes) sum += b;
    return sum;
  }
  // Stream-ordered operations by the way they went so far (hipFileExtGetAsyncWayStats).
  hipFileExtAsyncWayStats_t AsyncWays() {
    hipFileExtAsyncWayStats_t w = {};
    driver_->stats().FillAsyncWays(&w);
    return w;
  }
  // A stream-ordered operation's variables, which must live until its stream has passed it.
  struct AsyncSlot {
    size_t size = 0;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
    ssize_t bytes = 12345;
  };
  // Submits one operation on the fixture's stream_ into (or out of) dev_.
  Status SubmitSlot(void* fh, AsyncSlot* slot, IoDirection direction = IoDirection::kRead) {
    return SubmitSlotOn(stream_, fh, dev_, slot, direction);
  }
  // The same on `stream`, into (or out of) device memory `buffer`.
  Status SubmitSlotOn(runtime::Stream stream, void* fh, void* buffer, AsyncSlot* slot,
                      IoDirection direction = IoDirection::kRead) {
    return driver_->SubmitAsync(direction, fh, buffer, &slot->size, &slot->file_offset,
                                &slot->buffer_offset, &slot->bytes, stream);
  }

  testing::TempDir dir_;
  testing::GateSys sys_;
  std::unique_ptr<runtime::GpuRuntime> cpu_;
  testing::FaultRuntime gpu_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<BatchManager> manager_;
  runtime::Stream stream_ = nullptr;
  void* dev_ = nullptr;
  std::string path_;
  std::vector<int> fds_;
};

}  // namespace hipfile::core
