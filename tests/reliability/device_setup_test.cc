// SPDX-License-Identifier: MIT
// Several GPUs (issue 23): each device's copy kernels are set up (GpuRuntime::SupportsCopyTable,
// SupportsStreamMemOps: on CUDA, loading a module, which blocks while any stream of the device
// waits) before the library queues anything that can make a stream of that device wait, and
// never for a device the program does not use (asking makes its context). A core::Driver over a
// recording FaultRuntime over the CPU runtime with 4 devices, taking a GPU's staged paths.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/batch/batch_manager.h"
#include "core/config.h"
#include "core/driver.h"
#include "fakes/batch_entry.h"
#include "fakes/fault_runtime.h"
#include "fakes/fault_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"
#include "util/mutex.h"

namespace hipfile::core {
namespace {

constexpr int kDevices = 4;
constexpr size_t kFile = (3 << 20) + 4321;  // two staging chunks and a partial one

// Records which devices were set up, and every stream operation queued on a device before it was
// (a module load there would then wait behind the queued operation: the hang to avoid).
class SetupRecorder : public testing::FaultRuntime {
 public:
  using testing::FaultRuntime::FaultRuntime;

  bool SupportsCopyTable(int device) override {
    Note(device, "SupportsCopyTable");
    return testing::FaultRuntime::SupportsCopyTable(device);
  }
  bool SupportsStreamMemOps(int device) override {
    Note(device, "SupportsStreamMemOps");
    return testing::FaultRuntime::SupportsStreamMemOps(device);
  }
  hipError_t StreamWaitValue32(runtime::Stream stream, uint32_t* addr, uint32_t value) override {
    Queued(stream, "StreamWaitValue32");
    return testing::FaultRuntime::StreamWaitValue32(stream, addr, value);
  }
  hipError_t LaunchHostFunc(runtime::Stream stream, runtime::HostFn fn, void* data) override {
    Queued(stream, "LaunchHostFunc");
    return testing::FaultRuntime::LaunchHostFunc(stream, fn, data);
  }
  hipError_t CopyTableAsync(const runtime::CopyTable* table, uint32_t token,
                            runtime::Stream stream) override {
    Queued(stream, "CopyTableAsync");
    return testing::FaultRuntime::CopyTableAsync(table, token, stream);
  }

  std::set<int> SetUp() {
    MutexLock lock(mu_);
    return set_up_;
  }
  std::vector<std::string> Problems() {
    MutexLock lock(mu_);
    return problems_;
  }

 private:
  void Note(int device, const char* what) {
    MutexLock lock(mu_);
    set_up_.insert(device);
    if (queued_.count(device) != 0) {
      problems_.push_back(std::string(what) + " of device " + std::to_string(device) +
                          " after the library queued work on its streams");
    }
  }
  void Queued(runtime::Stream stream, const char* what) {
    int device = -1;
    if (StreamGetDevice(stream, &device) != hipSuccess) return;
    MutexLock lock(mu_);
    queued_.insert(device);
    if (set_up_.count(device) == 0) {
      problems_.push_back(std::string(what) + " on a stream of device " + std::to_string(device) +
                          " before the device was set up");
    }
  }

  Mutex mu_;
  std::set<int> set_up_ GUARDED_BY(mu_);
  std::set<int> queued_ GUARDED_BY(mu_);
  std::vector<std::string> problems_ GUARDED_BY(mu_);
};

runtime::CpuRuntimeOptions FourDevices() {
  runtime::CpuRuntimeOptions options;
  options.devices = kDevices;
  options.hardware_queues = 2;
  return options;
}

class DeviceSetupTest : public ::testing::Test {
 protected:
  DeviceSetupTest() : cpu_(runtime::CreateCpuRuntime(FourDevices())), gpu_(*cpu_) {
    Config config = ParseConfig(sys_);
    config.page_cache_pin_ahead = 0;
    driver_ = std::make_unique<Driver>(sys_, gpu_, config);
    EXPECT_TRUE(driver_->Open().ok());
    path_ = dir_.File("f");
    testing::WriteFileOrDie(path_, testing::PatternBytes(kFile));
    fd_ = ::open(path_.c_str(), O_RDWR);
    EXPECT_GE(fd_, 0);
    Result<void*> fh = driver_->RegisterHandle(fd_);
    EXPECT_TRUE(fh.ok());
    fh_ = fh.ok() ? *fh : nullptr;
  }
  ~DeviceSetupTest() override {
    manager_.reset();
    EXPECT_EQ(gpu_.SetDevice(0), hipSuccess);
    for (runtime::Stream s : streams_) (void)gpu_.StreamSynchronize(s);
    driver_.reset();
    for (runtime::Stream s : streams_) (void)gpu_.StreamDestroy(s);
    for (void* p : memory_) (void)gpu_.Free(p);
    ::close(fd_);
  }

  // Device memory and a stream of `device`, made with it current; device 0 current after.
  void* DeviceMemory(int device) {
    void* p = nullptr;
    EXPECT_EQ(gpu_.SetDevice(device), hipSuccess);
    EXPECT_EQ(gpu_.Malloc(&p, kFile), hipSuccess);
    EXPECT_EQ(gpu_.SetDevice(0), hipSuccess);
    memory_.push_back(p);
    return p;
  }
  runtime::Stream StreamOf(int device) {
    runtime::Stream s = nullptr;
    EXPECT_EQ(gpu_.SetDevice(device), hipSuccess);
    EXPECT_EQ(gpu_.StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
    EXPECT_EQ(gpu_.SetDevice(0), hipSuccess);
    streams_.push_back(s);
    return s;
  }
  bool HoldsTheFile(void* device_memory) {
    std::vector<unsigned char> got(kFile);
    EXPECT_EQ(gpu_.Memcpy(got.data(), device_memory, kFile, hipMemcpyDeviceToHost), hipSuccess);
    return got == testing::PatternBytes(kFile);
  }

  testing::TempDir dir_;
  testing::FaultSys sys_;
  std::unique_ptr<runtime::GpuRuntime> cpu_;
  SetupRecorder gpu_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<BatchManager> manager_;
  std::string path_;
  int fd_ = -1;
  void* fh_ = nullptr;
  std::vector<runtime::Stream> streams_;
  std::vector<void*> memory_;
};

// Stream-ordered reads on devices 1 and 2, submitted from a thread on device 0, with nothing
// registered: each device is set up at its first submission, before its stream gets anything;
// device 3, never used, is never asked (before issue 23 the executor asked every device at its
// creation: a context on every GPU, and their kernels loaded while their streams might wait).
TEST_F(DeviceSetupTest, AStreamOrderedSubmissionSetsUpItsDeviceFirstAndNoOther) {
  EXPECT_EQ(gpu_.SetUp(), (std::set<int>{0})) << "the open sets up the opening thread's device";
  for (int device : {1, 2}) {
    void* dev = DeviceMemory(device);
    runtime::Stream s = StreamOf(device);
    size_t size = kFile;
    off_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = -1;
    ASSERT_TRUE(driver_
                    ->SubmitAsync(IoDirection::kRead, fh_, dev, &size, &file_offset, &buffer_offset,
                                  &bytes, s)
                    .ok());
    ASSERT_EQ(gpu_.StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(bytes, static_cast<ssize_t>(kFile));
    EXPECT_TRUE(HoldsTheFile(dev)) << "device " << device;
  }
  EXPECT_EQ(gpu_.SetUp(), (std::set<int>{0, 1, 2}));
  EXPECT_EQ(gpu_.Problems(), std::vector<std::string>{});
}

// A buffer registered on a device, or a stream registered on one, sets it up then, before any
// I/O: the program registers while its streams run, not while they wait on the library.
TEST_F(DeviceSetupTest, RegisteringABufferOrAStreamSetsUpItsDevice) {
  void* dev = DeviceMemory(2);
  ASSERT_TRUE(driver_->RegisterBuffer(dev, kFile, 0).ok());
  EXPECT_EQ(gpu_.SetUp().count(2), 1u);
  runtime::Stream s = StreamOf(3);
  ASSERT_TRUE(driver_->RegisterStream(s, 0).ok());
  EXPECT_EQ(gpu_.SetUp(), (std::set<int>{0, 2, 3}));
  EXPECT_TRUE(driver_->DeregisterStream(s).ok());
  EXPECT_TRUE(driver_->DeregisterBuffer(dev).ok());
  // Pinned host memory is no device's to set up.
  void* pinned = nullptr;
  ASSERT_EQ(gpu_.SetDevice(1), hipSuccess);
  ASSERT_EQ(gpu_.HostMalloc(&pinned, 4096, 0), hipSuccess);
  ASSERT_EQ(gpu_.SetDevice(0), hipSuccess);
  ASSERT_TRUE(driver_->RegisterBuffer(pinned, 4096, 0).ok());
  EXPECT_EQ(gpu_.SetUp().count(1), 0u);
  EXPECT_TRUE(driver_->DeregisterBuffer(pinned).ok());
  EXPECT_EQ(gpu_.HostFree(pinned), hipSuccess);
}

// One batch with entries on devices 1, 2 and 3 (unregistered memory): each device is set up at
// the submission, before its entries run, and every byte lands.
TEST_F(DeviceSetupTest, ABatchSetsUpEveryDeviceItsEntriesUse) {
  manager_ = std::make_unique<BatchManager>(*driver_);
  Result<hipFileBatchHandle_t> batch = manager_->SetUp(3);
  ASSERT_TRUE(batch.ok());
  std::vector<hipFileIOParams_t> entries;
  std::vector<void*> buffers;
  for (int device : {1, 2, 3}) {
    buffers.push_back(DeviceMemory(device));
    entries.push_back(testing::BatchEntry(hipFileBatchRead, fh_, buffers.back(), kFile, 0, 0));
  }
  ASSERT_TRUE(manager_->Submit(*batch, 3, entries.data()).ok());
  EXPECT_EQ(gpu_.SetUp(), (std::set<int>{0, 1, 2, 3}));
  unsigned done = 0;
  while (done < 3) {
    hipFileIOEvents_t events[3] = {};
    unsigned nr = 3 - done;
    ASSERT_TRUE(manager_->GetStatus(*batch, 1, &nr, events, nullptr).ok());
    for (unsigned i = 0; i < nr; ++i) {
      EXPECT_EQ(events[i].status, hipFileComplete);
      EXPECT_EQ(events[i].ret, kFile);
    }
    done += nr;
  }
  for (void* dev : buffers) EXPECT_TRUE(HoldsTheFile(dev));
  manager_->Destroy(*batch);
  EXPECT_EQ(gpu_.Problems(), std::vector<std::string>{});
}

}  // namespace
}  // namespace hipfile::core
