// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstdlib>

#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

class HipPointerTest : public HipRtTest {};

TEST_F(HipPointerTest, DeviceMemory) {
  char* p = nullptr;
  ASSERT_HIP_OK(hipMalloc(&p, 10000));
  int current = -1;
  ASSERT_HIP_OK(hipGetDevice(&current));
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p + 1234));
  EXPECT_EQ(attributes.type, hipMemoryTypeDevice);
  EXPECT_EQ(attributes.device, current);
  EXPECT_EQ(attributes.devicePointer, p + 1234);
  EXPECT_EQ(attributes.isManaged, 0);
  ASSERT_HIP_OK(hipFree(p));
}

TEST_F(HipPointerTest, PinnedHostMemory) {
  char* p = nullptr;
  ASSERT_HIP_OK(hipHostMalloc(&p, 8192, hipHostMallocMapped));
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p + 10));
  EXPECT_EQ(attributes.type, hipMemoryTypeHost);
  EXPECT_EQ(attributes.hostPointer, p + 10);
  EXPECT_NE(attributes.devicePointer, nullptr);  // mapped: the device can reach it
  EXPECT_EQ(attributes.isManaged, 0);
  ASSERT_HIP_OK(hipHostFree(p));
}

// HIP >= 6: plain host memory is not an error.
TEST_F(HipPointerTest, UnregisteredHostMemory) {
  int on_stack = 0;
  hipPointerAttribute_t attributes;
  attributes.type = hipMemoryTypeDevice;
  attributes.device = 7;
  attributes.devicePointer = &on_stack;
  attributes.hostPointer = &on_stack;
  attributes.isManaged = 1;
  attributes.allocationFlags = 3;
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, &on_stack));
  EXPECT_EQ(attributes.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(attributes.device, -1);
  EXPECT_EQ(attributes.devicePointer, nullptr);
  EXPECT_EQ(attributes.hostPointer, nullptr);
  EXPECT_EQ(attributes.isManaged, 0);
  EXPECT_EQ(attributes.allocationFlags, 0u);
}

TEST_F(HipPointerTest, AttributesArguments) {
  int on_stack = 0;
  EXPECT_HIP_FAILS(hipPointerGetAttributes(nullptr, &on_stack), hipErrorInvalidValue);
  hipPointerAttribute_t attributes{};
  EXPECT_HIP_FAILS(hipPointerGetAttributes(&attributes, nullptr), hipErrorInvalidValue);
}

TEST_F(HipPointerTest, AddressRangeOfDeviceMemory) {
  char* p = nullptr;
  ASSERT_HIP_OK(hipMalloc(&p, 10000));
  void* base = nullptr;
  size_t size = 0;
  ASSERT_HIP_OK(hipMemGetAddressRange(&base, &size, p + 9999));
  EXPECT_EQ(base, p);
  EXPECT_GE(size, 10000u);
  // Either out-pointer may be left out.
  base = nullptr;
  ASSERT_HIP_OK(hipMemGetAddressRange(&base, nullptr, p + 1));
  EXPECT_EQ(base, p);
  size_t size_only = 0;
  ASSERT_HIP_OK(hipMemGetAddressRange(nullptr, &size_only, p));
  EXPECT_EQ(size_only, size);
  ASSERT_HIP_OK(hipFree(p));
}

TEST_F(HipPointerTest, AddressRangeOfPinnedAndRegisteredHostMemory) {
  char* pinned = nullptr;
  ASSERT_HIP_OK(hipHostMalloc(&pinned, 5000, hipHostMallocDefault));
  void* base = nullptr;
  size_t size = 0;
  ASSERT_HIP_OK(hipMemGetAddressRange(&base, &size, pinned + 4999));
  EXPECT_EQ(base, pinned);
  EXPECT_GE(size, 5000u);
  ASSERT_HIP_OK(hipHostFree(pinned));

  char* plain = static_cast<char*>(std::aligned_alloc(4096, 8 * 4096));
  ASSERT_HIP_OK(hipHostRegister(plain, 8 * 4096, hipHostRegisterDefault));
  ASSERT_HIP_OK(hipMemGetAddressRange(&base, &size, plain + 3 * 4096));
  EXPECT_EQ(base, plain);
  EXPECT_EQ(size, 8u * 4096);
  ASSERT_HIP_OK(hipHostUnregister(plain));
  EXPECT_HIP_FAILS(hipMemGetAddressRange(&base, &size, plain), hipErrorNotFound);
  std::free(plain);
}

TEST_F(HipPointerTest, AddressRangeOfUnknownPointer) {
  int on_stack = 0;
  void* base = &on_stack;
  size_t size = 77;
  EXPECT_HIP_FAILS(hipMemGetAddressRange(&base, &size, &on_stack), hipErrorNotFound);
  EXPECT_EQ(base, &on_stack);  // untouched on failure
  EXPECT_EQ(size, 77u);
  EXPECT_HIP_FAILS(hipMemGetAddressRange(&base, &size, nullptr), hipErrorNotFound);
}

}  // namespace
}  // namespace hipfile::testing
