// SPDX-License-Identifier: MIT
// When the driver releases page-cache pins: at handle deregistration, unless a stream-ordered
// operation is in flight (unpinning waits for every stream, and such a stream waits for the
// driver), and at driver close.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/driver.h"
#include "core_test_util.h"
#include "fakes/gate.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

constexpr size_t kSize = 4 << 20;  // above the engine's residency threshold

class DriverPageCacheTest : public CoreTest {
 protected:
  // Reads the whole file twice: the second read pins its window (pin-after-uses 2).
  void ReadTwice(const void* handle, void* buffer) {
    for (int i = 0; i < 2; ++i) {
      Result<size_t> n = driver().Read(handle, buffer, kSize, 0, 0);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      ASSERT_EQ(*n, kSize);
    }
  }
};

TEST_F(DriverPageCacheTest, DeregisteringAHandleUnpinsItsWindows) {
  ScopedFd fd(MakeFile("data", kSize), O_RDONLY);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  void* buffer = DeviceAlloc(kSize);
  ReadTwice(*handle, buffer);
  const uint64_t pinned = gpu_.Calls(GpuOp::kHostRegister);
  ASSERT_GT(pinned, 0u) << "the second read pins the file's window";
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u);

  driver().DeregisterHandle(*handle);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), pinned);
}

TEST_F(DriverPageCacheTest, PinsOutliveADeregistrationWhileAStreamWaitsForTheDriver) {
  ScopedFd a(MakeFile("a", kSize), O_RDONLY), b(MakeFile("b", kSize), O_RDONLY);
  Result<void*> ha = driver().RegisterHandle(a.get());
  Result<void*> hb = driver().RegisterHandle(b.get());
  ASSERT_TRUE(ha.ok() && hb.ok());
  void* buffer = DeviceAlloc(kSize);
  ReadTwice(*ha, buffer);
  const uint64_t pinned = gpu_.Calls(GpuOp::kHostRegister);
  ASSERT_GT(pinned, 0u);

  // A stream-ordered read of b queued behind a held stream.
  runtime::Stream stream = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream, hipStreamNonBlocking), hipSuccess);
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream, testing::StreamGate::Wait, &gate), hipSuccess);
  size_t size = kSize;
  off_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(driver()
                  .SubmitAsync(IoDirection::kRead, *hb, buffer, &size, &file_offset, &buffer_offset,
                               &bytes, stream)
                  .ok());

  driver().DeregisterHandle(*ha);
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), 0u) << "unpinning now could deadlock on CUDA";

  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kSize));
  // The operation counts as finished a moment after its stream was released
  // (async_executor.h); from then on, any deregistration unpins what a's left behind.
  ScopedFd c(MakeFile("c", 4096), O_RDONLY);
  for (int i = 0; i < 1000 && gpu_.Calls(GpuOp::kHostUnregister) < pinned; ++i) {
    Result<void*> hc = driver().RegisterHandle(c.get());
    ASSERT_TRUE(hc.ok());
    driver().DeregisterHandle(*hc);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), pinned);
  driver().DeregisterHandle(*hb);
  ASSERT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
}

TEST_F(DriverPageCacheTest, ClosingTheDriverUnpinsEverything) {
  ScopedFd fd(MakeFile("data", kSize), O_RDONLY);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  void* buffer = DeviceAlloc(kSize);
  ReadTwice(*handle, buffer);
  ASSERT_GT(gpu_.Calls(GpuOp::kHostRegister), 0u);
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_EQ(gpu_.Calls(GpuOp::kHostUnregister), gpu_.Calls(GpuOp::kHostRegister));
}

}  // namespace
}  // namespace hipfile::core
