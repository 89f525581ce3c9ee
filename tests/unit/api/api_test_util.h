// SPDX-License-Identifier: MIT
// The API tests share the process's driver: every test starts and ends with it closed (use count
// 0, nothing registered), and restores any parameter it changes.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/process_runtime.h"
#include "fakes/temp_dir.h"

namespace hipfile::api {

inline bool IsSuccess(hipFileError_t e) {
  return e.err == hipFileSuccess && e.hip_drv_err == hipSuccess;
}
inline bool IsOp(hipFileError_t e, hipFileOpError_t op) {
  return e.err == op && e.hip_drv_err == hipSuccess;
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hipFileUseCount(), 0) << "a previous test left it open"; }
  void TearDown() override {
    for (int fd : fds_) ::close(fd);
    while (hipFileUseCount() > 0) ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
    for (void* p : device_) (void)ProcessRuntime().Free(p);
    for (void* p : host_) (void)ProcessRuntime().HostFree(p);
  }

  int OpenFile(const std::string& name, size_t size, int flags) {
    const std::string path = dir_.File(name);
    testing::WriteFileOrDie(path, testing::PatternBytes(size));
    const int fd = ::open(path.c_str(), flags);
    EXPECT_GE(fd, 0);
    fds_.push_back(fd);
    return fd;
  }
  // `size` bytes of device memory, copied to the host.
  std::vector<unsigned char> DeviceBytes(const void* device, size_t size) {
    std::vector<unsigned char> bytes(size);
    EXPECT_EQ(hipMemcpy(bytes.data(), device, size, hipMemcpyDeviceToHost), hipSuccess);
    return bytes;
  }
  hipFileHandle_t Register(int fd) {
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = nullptr;
    EXPECT_TRUE(IsSuccess(hipFileHandleRegister(&fh, &descr)));
    return fh;
  }
  void* DeviceAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(ProcessRuntime().Malloc(&p, size), hipSuccess);
    device_.push_back(p);
    return p;
  }
  void* HostAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(ProcessRuntime().HostMalloc(&p, size, 0), hipSuccess);
    host_.push_back(p);
    return p;
  }

  testing::TempDir dir_;
  std::vector<int> fds_;
  std::vector<void*> device_, host_;
};

}  // namespace hipfile::api
