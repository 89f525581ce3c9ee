// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

void* const kSentinel = reinterpret_cast<void*>(0x1234);

class HipMemoryTest : public HipRtTest {};

TEST_F(HipMemoryTest, MallocAndFree) {
  void* p = nullptr;
  ASSERT_HIP_OK(hipMalloc(&p, 1 << 20));
  ASSERT_NE(p, nullptr);
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p));
  EXPECT_EQ(attributes.type, hipMemoryTypeDevice);
  ASSERT_HIP_OK(hipFree(p));
}

TEST_F(HipMemoryTest, MallocZeroBytesGivesNull) {
  void* p = kSentinel;
  ASSERT_HIP_OK(hipMalloc(&p, 0));
  EXPECT_EQ(p, nullptr);
}

TEST_F(HipMemoryTest, MallocNullOutPointer) {
  EXPECT_HIP_FAILS(hipMalloc(nullptr, 64), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMalloc(nullptr, 0), hipErrorInvalidValue);
}

TEST_F(HipMemoryTest, MallocTooMuch) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers abort on impossible allocations instead of failing them";
#endif
  void* p = kSentinel;
  const hipError_t e = hipMalloc(&p, SIZE_MAX / 2);
  EXPECT_NE(e, hipSuccess);
  EXPECT_EQ(hipGetLastError(), e);
}

TEST_F(HipMemoryTest, FreeNullIsSuccess) {
  ASSERT_HIP_OK(hipFree(nullptr));
  ASSERT_HIP_OK(hipHostFree(nullptr));
}

TEST_F(HipMemoryTest, FreeOfUnknownPointerFails) {
  int on_stack = 0;
  const hipError_t e = hipFree(&on_stack);
  EXPECT_NE(e, hipSuccess);
  EXPECT_EQ(hipGetLastError(), e);
}

TEST_F(HipMemoryTest, HostMallocIsPinnedPageAlignedHostMemory) {
  for (unsigned flags : {hipHostMallocDefault, hipHostMallocPortable, hipHostMallocMapped,
                         hipHostMallocWriteCombined, hipHostMallocPortable | hipHostMallocMapped}) {
    SCOPED_TRACE(flags);
    unsigned char* p = nullptr;
    ASSERT_HIP_OK(hipHostMalloc(&p, 3 * 4096 + 5, flags));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
    std::memset(p, 0x5a, 3 * 4096 + 5);  // host-accessible, whole length
    hipPointerAttribute_t attributes{};
    ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p));
    EXPECT_EQ(attributes.type, hipMemoryTypeHost);
    ASSERT_HIP_OK(hipHostFree(p));
  }
}

TEST_F(HipMemoryTest, HostMallocArguments) {
  void* p = kSentinel;
  ASSERT_HIP_OK(hipHostMalloc(&p, 0, hipHostMallocDefault));
  EXPECT_EQ(p, nullptr);
  EXPECT_HIP_FAILS(hipHostMalloc(nullptr, 64, hipHostMallocDefault), hipErrorInvalidValue);
  p = kSentinel;
  EXPECT_HIP_FAILS(hipHostMalloc(&p, 64, 0x100), hipErrorInvalidValue);
  EXPECT_EQ(p, kSentinel);  // untouched on failure
}

// Page-aligned plain host memory that the test owns.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t n)
      : size(n), data(static_cast<char*>(std::aligned_alloc(4096, n))) {}
  ~AlignedBuffer() { std::free(data); }
  size_t size;
  char* data;
};

TEST_F(HipMemoryTest, HostRegisterAndUnregister) {
  AlignedBuffer buffer(16 * 4096);
  ASSERT_NE(buffer.data, nullptr);
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, buffer.data));
  EXPECT_EQ(attributes.type, hipMemoryTypeUnregistered);

  ASSERT_HIP_OK(hipHostRegister(buffer.data, buffer.size, hipHostRegisterDefault));
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, buffer.data + 100));
  EXPECT_EQ(attributes.type, hipMemoryTypeHost);
  EXPECT_EQ(attributes.hostPointer, buffer.data + 100);
  EXPECT_HIP_FAILS(hipHostRegister(buffer.data, buffer.size, hipHostRegisterDefault),
                   hipErrorHostMemoryAlreadyRegistered);

  ASSERT_HIP_OK(hipHostUnregister(buffer.data));
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, buffer.data));
  EXPECT_EQ(attributes.type, hipMemoryTypeUnregistered);
  EXPECT_HIP_FAILS(hipHostUnregister(buffer.data), hipErrorHostMemoryNotRegistered);
}

TEST_F(HipMemoryTest, HostRegisterArguments) {
  AlignedBuffer buffer(4096);
  EXPECT_HIP_FAILS(hipHostRegister(nullptr, 4096, hipHostRegisterDefault), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipHostRegister(buffer.data, 0, hipHostRegisterDefault), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipHostRegister(buffer.data, 4096, 0x100), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipHostUnregister(nullptr), hipErrorInvalidValue);
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, buffer.data));
  EXPECT_EQ(attributes.type, hipMemoryTypeUnregistered);  // no failed call registered it
}

TEST_F(HipMemoryTest, MallocManagedIsOneAddressForHostAndDevice) {
  for (unsigned flags : {hipMemAttachGlobal, hipMemAttachHost}) {
    SCOPED_TRACE(flags);
    constexpr size_t kSize = 3 * 4096 + 5;
    unsigned char* p = nullptr;
    ASSERT_HIP_OK(hipMallocManaged(reinterpret_cast<void**>(&p), kSize, flags));
    ASSERT_NE(p, nullptr);
    hipPointerAttribute_t attributes{};
    ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p + 100));
    EXPECT_EQ(attributes.type, hipMemoryTypeManaged);
    EXPECT_EQ(attributes.isManaged, 1);
    EXPECT_EQ(attributes.devicePointer, p + 100);
    EXPECT_EQ(attributes.hostPointer, p + 100);
    EXPECT_EQ(attributes.device, 0);
    void* base = nullptr;
    size_t size = 0;
    ASSERT_HIP_OK(hipMemGetAddressRange(&base, &size, p + 100));
    EXPECT_EQ(base, p);
    EXPECT_GE(size, kSize);

    // The host writes it directly; the device's copies read what it wrote, and the host reads
    // what they wrote.
    for (size_t i = 0; i < kSize; ++i) p[i] = static_cast<unsigned char>(i * 7 + 1);
    unsigned char* device = nullptr;
    ASSERT_HIP_OK(hipMalloc(&device, kSize));
    ASSERT_HIP_OK(hipMemcpy(device, p, kSize, hipMemcpyDefault));
    ASSERT_HIP_OK(hipMemset(p, 0, kSize));
    ASSERT_HIP_OK(hipMemcpy(p + 1, device, kSize - 1, hipMemcpyDeviceToDevice));
    EXPECT_EQ(p[0], 0);
    for (size_t i = 1; i < kSize; ++i) {
      ASSERT_EQ(p[i], static_cast<unsigned char>((i - 1) * 7 + 1)) << "byte " << i;
    }
    ASSERT_HIP_OK(hipFree(device));
    ASSERT_HIP_OK(hipFree(p));
  }
}

TEST_F(HipMemoryTest, MallocManagedTypedOverloadDefaultsToGlobal) {
  double* p = nullptr;
  ASSERT_HIP_OK(hipMallocManaged(&p, 64 * sizeof(double)));
  ASSERT_NE(p, nullptr);
  p[63] = 2.5;
  hipPointerAttribute_t attributes{};
  ASSERT_HIP_OK(hipPointerGetAttributes(&attributes, p));
  EXPECT_EQ(attributes.type, hipMemoryTypeManaged);
  EXPECT_EQ(attributes.allocationFlags & hipMemAttachHost, 0u);
  ASSERT_HIP_OK(hipFree(p));
}

TEST_F(HipMemoryTest, MallocManagedArguments) {
  void* p = kSentinel;
  ASSERT_HIP_OK(hipMallocManaged(&p, 0, hipMemAttachGlobal));
  EXPECT_EQ(p, nullptr);
  EXPECT_HIP_FAILS(hipMallocManaged(nullptr, 64, hipMemAttachGlobal), hipErrorInvalidValue);
  for (const unsigned flags : {0u, unsigned{hipMemAttachGlobal | hipMemAttachHost}, 4u, 0x100u}) {
    SCOPED_TRACE(flags);
    p = kSentinel;
    EXPECT_HIP_FAILS(hipMallocManaged(&p, 64, flags), hipErrorInvalidValue);
    EXPECT_EQ(p, kSentinel);  // untouched on failure
  }
}

TEST_F(HipMemoryTest, MallocManagedTooMuch) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers abort on impossible allocations instead of failing them";
#endif
  void* p = kSentinel;
  const hipError_t e = hipMallocManaged(&p, SIZE_MAX / 2, hipMemAttachGlobal);
  EXPECT_NE(e, hipSuccess);
  EXPECT_EQ(hipGetLastError(), e);
}

}  // namespace
}  // namespace hipfile::testing
