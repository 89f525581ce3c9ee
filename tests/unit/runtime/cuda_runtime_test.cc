// SPDX-License-Identifier: MIT
// CUDA-specific behaviour on a real GPU (skipped without one): primary-context interop, pinned
// memory shapes, read-only registration of a file mapping, stream memory operations.
#include "runtime/cuda/cuda_runtime.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fakes/cuda_capture.h"
#include "fakes/temp_dir.h"
#include "runtime/cuda/cuda_driver.h"

namespace hipfile::runtime {
namespace {

using hipfile::testing::PatternBytes;

class CudaRuntimeGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why_not;
    rt_ = CreateCudaRuntime(&why_not).release();  // shared by the suite, never destroyed
    if (rt_ == nullptr) why_not_ = new std::string(why_not);
  }

  void SetUp() override {
    if (rt_ == nullptr) GTEST_SKIP() << "no CUDA runtime: " << *why_not_;
    driver_ = SharedCudaDriver(nullptr);
    ASSERT_NE(driver_, nullptr);
  }

  static GpuRuntime* rt_;
  static std::string* why_not_;
  const CudaDriver* driver_ = nullptr;
};

GpuRuntime* CudaRuntimeGpu::rt_ = nullptr;
std::string* CudaRuntimeGpu::why_not_ = nullptr;

TEST_F(CudaRuntimeGpu, UsesThePrimaryContext) {
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  cu::CUdevice device = 0;
  ASSERT_EQ(driver_->cuDeviceGet(&device, 0), 0);
  cu::CUcontext primary = nullptr;
  ASSERT_EQ(driver_->cuDevicePrimaryCtxRetain(&primary, device), 0);
  cu::CUcontext current = nullptr;
  ASSERT_EQ(driver_->cuCtxGetCurrent(&current), 0);
  EXPECT_EQ(current, primary);
  EXPECT_EQ(driver_->cuDevicePrimaryCtxRelease(device), 0);
}

TEST_F(CudaRuntimeGpu, ThreadsThatNeverSetADeviceUseDeviceZero) {
  hipError_t malloc_result = hipErrorUnknown, free_result = hipErrorUnknown;
  int device = -1;
  std::thread thread([&] {
    void* p = nullptr;
    malloc_result = rt_->Malloc(&p, 4096);
    rt_->GetDevice(&device);
    free_result = rt_->Free(p);
  });
  thread.join();
  EXPECT_EQ(malloc_result, hipSuccess);
  EXPECT_EQ(free_result, hipSuccess);
  EXPECT_EQ(device, 0);
}

TEST_F(CudaRuntimeGpu, ASecondRuntimeComesAndGoesWithoutHarmingTheFirst) {
  void* p = nullptr;
  ASSERT_EQ(rt_->Malloc(&p, 1 << 20), hipSuccess);
  {
    std::string why_not;
    std::unique_ptr<GpuRuntime> other = CreateCudaRuntime(&why_not);
    ASSERT_NE(other, nullptr) << why_not;
    void* q = nullptr;
    ASSERT_EQ(other->Malloc(&q, 4096), hipSuccess);
    ASSERT_EQ(other->Free(q), hipSuccess);
  }
  const std::vector<unsigned char> pattern = PatternBytes(1 << 20, 3);
  std::vector<unsigned char> back(pattern.size());
  ASSERT_EQ(rt_->Memcpy(p, pattern.data(), pattern.size(), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back.data(), p, back.size(), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, pattern);
  EXPECT_EQ(rt_->Free(p), hipSuccess);
}

TEST_F(CudaRuntimeGpu, PinnedMemoryIsPageAlignedAndMapped) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t size : {size_t{1}, size_t{100}, page, size_t{3} << 20}) {
    void* p = nullptr;
    ASSERT_EQ(rt_->HostMalloc(&p, size, hipHostMallocDefault), hipSuccess) << size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % page, 0u) << size;
    PointerInfo info;
    ASSERT_EQ(rt_->PointerGetInfo(p, &info), hipSuccess);
    EXPECT_EQ(info.type, hipMemoryTypeHost) << size;
    EXPECT_NE(info.device_pointer, nullptr) << size;
    EXPECT_EQ(info.host_pointer, p) << size;
    EXPECT_EQ(rt_->HostFree(p), hipSuccess);
  }
}

TEST_F(CudaRuntimeGpu, RegisteredRangeHoldsInteriorPointers) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = 16 * page;
  void* region = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  auto* bytes = static_cast<char*>(region);
  ASSERT_EQ(rt_->HostRegister(bytes + page, 4 * page, hipHostRegisterDefault), hipSuccess);
  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(bytes + 2 * page + 5, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(info.base, bytes + page);
  EXPECT_EQ(info.size, 4 * page);
  ASSERT_EQ(rt_->PointerGetInfo(bytes + 6 * page, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(rt_->HostUnregister(bytes + page), hipSuccess);
  munmap(region, size);
}

// The page-cache path: a read-only file mapping is pinned and copied by the GPU.
TEST_F(CudaRuntimeGpu, ReadOnlyFileMappingCanBeRegisteredAndCopied) {
  hipfile::testing::TempDir dir;
  const std::string path = dir.File("data");
  const std::vector<unsigned char> pattern = PatternBytes(1 << 20, 9);
  hipfile::testing::WriteFileOrDie(path, pattern);
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* map = mmap(nullptr, pattern.size(), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(map, MAP_FAILED);
  ASSERT_EQ(rt_->HostRegister(map, pattern.size(), hipHostRegisterReadOnly), hipSuccess);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, pattern.size()), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(dev, map, pattern.size(), hipMemcpyHostToDevice, nullptr), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  std::vector<unsigned char> back(pattern.size());
  ASSERT_EQ(rt_->Memcpy(back.data(), dev, back.size(), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, pattern);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
  EXPECT_EQ(rt_->HostUnregister(map), hipSuccess);
  munmap(map, pattern.size());
}

TEST_F(CudaRuntimeGpu, HostToHostCopiesOfPageableMemory) {
  const std::vector<unsigned char> pattern = PatternBytes(100000, 5);
  std::vector<unsigned char> back(pattern.size());
  ASSERT_EQ(rt_->Memcpy(back.data(), pattern.data(), pattern.size(), hipMemcpyHostToHost),
            hipSuccess);
  EXPECT_EQ(back, pattern);
}

TEST_F(CudaRuntimeGpu, StreamMemOpsAreSupported) {
  EXPECT_TRUE(rt_->SupportsStreamMemOps(0)) << "the async design relies on them on this GPU";
  int count = 0;
  ASSERT_EQ(rt_->GetDeviceCount(&count), hipSuccess);
  EXPECT_FALSE(rt_->SupportsStreamMemOps(count));
}

TEST_F(CudaRuntimeGpu, StreamsOfOtherCudaCodeAreAccepted) {
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  cu::CUstream foreign = nullptr;
  ASSERT_EQ(driver_->cuStreamCreate(&foreign, cu::CU_STREAM_NON_BLOCKING), 0);
  auto stream = reinterpret_cast<Stream>(foreign);
  int device = -1;
  ASSERT_EQ(rt_->StreamGetDevice(stream, &device), hipSuccess);
  EXPECT_EQ(device, 0);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, 4096), hipSuccess);
  ASSERT_EQ(rt_->MemsetAsync(dev, 0x11, 4096, stream), hipSuccess);
  unsigned char back[16] = {};
  ASSERT_EQ(rt_->MemcpyAsync(back, dev, sizeof(back), hipMemcpyDeviceToHost, stream), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(back[0], 0x11);
  EXPECT_EQ(back[15], 0x11);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
  EXPECT_EQ(driver_->cuStreamDestroy(foreign), 0);
}

TEST_F(CudaRuntimeGpu, CapturingStreamsAreToldApartWithoutDisturbingTheCapture) {
  const testing::CudaCapture capture;
  ASSERT_TRUE(capture.ok());
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  Stream stream = nullptr;
  ASSERT_EQ(rt_->StreamCreate(&stream, hipStreamNonBlocking), hipSuccess);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, 4096), hipSuccess);  // before: a global capture refuses it
  bool capturing = true;
  ASSERT_EQ(rt_->StreamIsCapturing(stream, &capturing), hipSuccess);
  EXPECT_FALSE(capturing);
  ASSERT_EQ(capture.Begin(stream), 0);
  // Whatever fails below, the capture ends here: one left open refuses the suite's later calls.
  const hipError_t first = rt_->StreamIsCapturing(stream, &capturing);
  const bool first_answer = capturing;
  const hipError_t memset = rt_->MemsetAsync(dev, 0x22, 4096, stream);  // recorded, not run
  const hipError_t second = rt_->StreamIsCapturing(stream, &capturing);
  const bool second_answer = capturing;
  const int ended = capture.Finish(stream);
  EXPECT_EQ(first, hipSuccess);
  EXPECT_TRUE(first_answer);
  EXPECT_EQ(memset, hipSuccess);
  EXPECT_EQ(second, hipSuccess);
  EXPECT_TRUE(second_answer);
  EXPECT_EQ(ended, 0) << "asking invalidated the capture";
  ASSERT_EQ(rt_->StreamIsCapturing(stream, &capturing), hipSuccess);
  EXPECT_FALSE(capturing);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(stream), hipSuccess);
}

TEST_F(CudaRuntimeGpu, TheLegacyStreamIsRefusedWhileABlockingStreamCaptures) {
  const testing::CudaCapture capture;
  ASSERT_TRUE(capture.ok());
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  Stream blocking = nullptr;
  ASSERT_EQ(rt_->StreamCreate(&blocking, 0), hipSuccess);
  bool capturing = true;
  ASSERT_EQ(rt_->StreamIsCapturing(nullptr, &capturing), hipSuccess);
  EXPECT_FALSE(capturing);
  ASSERT_EQ(capture.Begin(blocking), 0);
  const hipError_t legacy = rt_->StreamIsCapturing(nullptr, &capturing);
  EXPECT_TRUE(legacy == hipErrorStreamCaptureUnsupported || (legacy == hipSuccess && capturing))
      << "the legacy stream would wait for the capture: " << legacy << " " << capturing;
  EXPECT_EQ(capture.Finish(blocking), 0) << "asking of the legacy stream invalidated the capture";
  EXPECT_EQ(rt_->StreamDestroy(blocking), hipSuccess);
}

TEST_F(CudaRuntimeGpu, DriverErrorsKeepTheirMeaning) {
  char host[64];
  EXPECT_EQ(rt_->Free(host), hipErrorInvalidValue);
  EXPECT_EQ(rt_->HostUnregister(host), hipErrorHostMemoryNotRegistered);
  void* p = nullptr;
  EXPECT_EQ(rt_->Malloc(&p, size_t{1} << 50), hipErrorOutOfMemory);
  char uuid[16] = {};
  ASSERT_EQ(rt_->GetDeviceUuid(0, uuid), hipSuccess);
  EXPECT_NE(std::string(uuid, 16), std::string(16, '\0'));
  EXPECT_EQ(rt_->GetDeviceUuid(99, uuid), hipErrorInvalidDevice);
}

TEST_F(CudaRuntimeGpu, ManyThreadsCopyAtOnce) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      const std::vector<unsigned char> pattern = PatternBytes(1 << 16, 100 + t);
      for (int i = 0; i < 20; ++i) {
        void* dev = nullptr;
        Stream s = nullptr;
        std::vector<unsigned char> back(pattern.size());
        const bool ok = rt_->Malloc(&dev, pattern.size()) == hipSuccess &&
                        rt_->StreamCreate(&s, hipStreamNonBlocking) == hipSuccess &&
                        rt_->MemcpyAsync(dev, pattern.data(), pattern.size(), hipMemcpyHostToDevice,
                                         s) == hipSuccess &&
                        rt_->MemcpyAsync(back.data(), dev, back.size(), hipMemcpyDeviceToHost, s) ==
                            hipSuccess &&
                        rt_->StreamSynchronize(s) == hipSuccess && back == pattern &&
                        rt_->StreamDestroy(s) == hipSuccess && rt_->Free(dev) == hipSuccess;
        if (!ok) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

// Destroying the last runtime releases the primary context to a count of zero (when nothing
// else in the process holds it), which destroys it while it is still current on this thread; a
// runtime created afterwards must work on the same thread. Run alone to exercise that case.
TEST(CudaRuntimeLifetime, ARuntimeCreatedAfterTheLastOneWasDestroyedWorks) {
  const std::vector<unsigned char> pattern = PatternBytes(4096, 11);
  for (int round = 0; round < 3; ++round) {
    std::string why_not;
    std::unique_ptr<GpuRuntime> rt = CreateCudaRuntime(&why_not);
    if (rt == nullptr) GTEST_SKIP() << "no CUDA runtime: " << why_not;
    ASSERT_EQ(rt->SetDevice(0), hipSuccess) << round;
    void* dev = nullptr;
    ASSERT_EQ(rt->Malloc(&dev, pattern.size()), hipSuccess) << round;
    Stream s = nullptr;
    ASSERT_EQ(rt->StreamCreate(&s, hipStreamNonBlocking), hipSuccess) << round;
    ASSERT_EQ(rt->MemcpyAsync(dev, pattern.data(), pattern.size(), hipMemcpyHostToDevice, s),
              hipSuccess)
        << round;
    ASSERT_EQ(rt->StreamSynchronize(s), hipSuccess) << round;
    std::vector<unsigned char> back(pattern.size());
    ASSERT_EQ(rt->Memcpy(back.data(), dev, back.size(), hipMemcpyDeviceToHost), hipSuccess)
        << round;
    EXPECT_EQ(back, pattern) << round;
    EXPECT_EQ(rt->StreamDestroy(s), hipSuccess) << round;
    EXPECT_EQ(rt->Free(dev), hipSuccess) << round;
  }
}

}  // namespace
}  // namespace hipfile::runtime
