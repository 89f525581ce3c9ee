// SPDX-License-Identifier: MIT
// What the driver open refuses: a GPU runtime with no usable device (hipFileDriverError, logged
// with the reason; implicit opens fail the same way and store nothing), and
// HIPFILE_ASYNC_STAGED=false where copies are made (logged; operations stay staged).
#include <fcntl.h>
#include <gtest/gtest.h>

#include <string>

#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

class DriverOpenTest : public CoreTest {};

TEST_F(DriverOpenTest, ARuntimeWithoutAUsableDeviceIsRefusedAndSaysWhy) {
  gpu_.FailAlways(GpuOp::kGetDeviceCount, hipErrorNoDevice);
  ::testing::internal::CaptureStderr();
  const Status opened = driver().Open();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(opened.IsOp(hipFileDriverError)) << opened.ToString();
  EXPECT_EQ(driver().UseCount(), 0);
  EXPECT_NE(err.find("hipFileDriverOpen: the "), std::string::npos) << err;
  EXPECT_NE(err.find("has no usable device (hipErrorNoDevice)"), std::string::npos) << err;

  // A registration would open it: refused, and nothing is left registered.
  const std::string path = MakeFile("f.bin", 4096);
  ScopedFd fd(path, O_RDWR);
  const Result<void*> handle = driver().RegisterHandle(fd.get());
  EXPECT_TRUE(handle.status().IsOp(hipFileDriverError)) << handle.status().ToString();
  EXPECT_EQ(driver().UseCount(), 0);
  void* host = HostAlloc(4096);
  EXPECT_TRUE(driver().RegisterBuffer(host, 4096, 0).IsOp(hipFileDriverError));
  EXPECT_EQ(driver().UseCount(), 0);

  // Once the runtime works, the same descriptor registers (it was not left behind).
  gpu_.Reset();
  const Result<void*> again = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(driver().UseCount(), 1);
  driver().DeregisterHandle(*again);
}

TEST_F(DriverOpenTest, AsyncStagedOffIsRefusedWhereCopiesAreMade) {
  sys_.Set("HIPFILE_ASYNC_STAGED", "false");
  ASSERT_FALSE(gpu_.DeviceMemoryIsHostMemory());  // this runtime stages device memory
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(driver().Open().ok());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("HIPFILE_ASYNC_STAGED=false is refused"), std::string::npos) << err;
  // A stream-ordered read of device memory still runs staged.
  const std::string path = MakeFile("f.bin", 1 << 20);
  ScopedFd fd(path, O_RDWR);
  const Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  void* device = DeviceAlloc(1 << 20);
  runtime::Stream stream = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream, 0), hipSuccess);
  size_t size = 1 << 20;
  off_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(driver()
                  .SubmitAsync(IoDirection::kRead, *handle, device, &size, &file_offset,
                               &buffer_offset, &bytes, stream)
                  .ok());
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, 1 << 20);
  EXPECT_EQ((*driver().async_executor())->StagedOperations(), 1u);
  ASSERT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
  driver().DeregisterHandle(*handle);
  ASSERT_TRUE(driver().Close().ok());
}

}  // namespace
}  // namespace hipfile::core
