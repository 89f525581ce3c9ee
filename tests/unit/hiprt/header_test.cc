// SPDX-License-Identifier: MIT
// The HIP subset header is self-contained (included first, alone) and has HIP's numbers. That it
// also compiles as C is checked by the C compile checks in tests/compat.
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

static_assert(HIPFILE_COMPAT_HIP == 1);
static_assert(hipSuccess == 0 && hipErrorInvalidValue == 1 && hipErrorOutOfMemory == 2);
static_assert(hipErrorInvalidDevicePointer == 17 && hipErrorInvalidMemcpyDirection == 21);
static_assert(hipErrorNoDevice == 100 && hipErrorInvalidDevice == 101);
static_assert(hipErrorInvalidHandle == 400 && hipErrorNotFound == 500 && hipErrorNotReady == 600);
static_assert(hipErrorHostMemoryAlreadyRegistered == 712 && hipErrorHostMemoryNotRegistered == 713);
static_assert(hipErrorNotSupported == 801 && hipErrorUnknown == 999);
static_assert(hipMemcpyHostToHost == 0 && hipMemcpyHostToDevice == 1 &&
              hipMemcpyDeviceToHost == 2 && hipMemcpyDeviceToDevice == 3 && hipMemcpyDefault == 4);
static_assert(hipMemoryTypeUnregistered == 0 && hipMemoryTypeHost == 1 &&
              hipMemoryTypeDevice == 2 && hipMemoryTypeManaged == 3);
static_assert(hipStreamDefault == 0 && hipStreamNonBlocking == 1);
static_assert(hipEventDefault == 0 && hipEventBlockingSync == 1 && hipEventDisableTiming == 2 &&
              hipEventInterprocess == 4);
static_assert(hipHostMallocDefault == 0 && hipHostMallocPortable == 1 && hipHostMallocMapped == 2 &&
              hipHostMallocWriteCombined == 4);
static_assert(hipHostRegisterDefault == 0 && hipHostRegisterPortable == 1 &&
              hipHostRegisterMapped == 2 && hipHostRegisterIoMemory == 4 &&
              hipHostRegisterReadOnly == 8);
static_assert(std::is_pointer_v<hipStream_t> && std::is_pointer_v<hipEvent_t>);
using MemcpyAsyncFn = hipError_t (*)(void*, const void*, size_t, hipMemcpyKind, hipStream_t);
static_assert(std::is_same_v<decltype(&hipMemcpyAsync), MemcpyAsyncFn>);
static_assert(
    std::is_same_v<decltype(&hipLaunchHostFunc), hipError_t (*)(hipStream_t, hipHostFn_t, void*)>);
static_assert(hipMemAttachGlobal == 1 && hipMemAttachHost == 2);
static_assert(std::is_same_v<hipDeviceptr_t, void*>);
static_assert(
    std::is_same_v<decltype(&hipMemcpyHtoD), hipError_t (*)(hipDeviceptr_t, const void*, size_t)>);
static_assert(std::is_same_v<decltype(&hipMemcpyDtoHAsync),
                             hipError_t (*)(void*, hipDeviceptr_t, size_t, hipStream_t)>);
static_assert(std::is_same_v<decltype(&hipDeviceGetAttribute),
                             hipError_t (*)(int*, hipDeviceAttribute_t, int)>);
static_assert(
    std::is_same_v<decltype(&hipGetDeviceProperties), hipError_t (*)(hipDeviceProp_t*, int)>);
// hipDeviceAttribute_t: HIP 6's numbers.
static_assert(hipDeviceAttributeEccEnabled == 0 && hipDeviceAttributeClockRate == 5 &&
              hipDeviceAttributeComputeCapabilityMajor == 23 &&
              hipDeviceAttributeManagedMemory == 24 && hipDeviceAttributeMaxBlockDimX == 26 &&
              hipDeviceAttributeMaxThreadsPerBlock == 56 &&
              hipDeviceAttributeComputeCapabilityMinor == 61 &&
              hipDeviceAttributeMultiprocessorCount == 63 && hipDeviceAttributePciBusId == 67 &&
              hipDeviceAttributePciDeviceId == 68 && hipDeviceAttributePciDomainID == 69 &&
              hipDeviceAttributeTotalGlobalMem == 84 && hipDeviceAttributeWarpSize == 87 &&
              hipDeviceAttributeMemoryPoolSupportedHandleTypes == 91 &&
              hipDeviceAttributeAmdSpecificBegin == 10000 &&
              hipDeviceAttributeWallClockRate == 10017);
// hipDeviceProp_t: HIP 6's layout (hipDeviceProp_tR0600) on LP64.
static_assert(sizeof(hipUUID) == 16 && sizeof(hipDeviceArch_t) == 4);
static_assert(sizeof(hipDeviceProp_t) == 1472);
static_assert(
    offsetof(hipDeviceProp_t, uuid) == 256 && offsetof(hipDeviceProp_t, totalGlobalMem) == 288 &&
    offsetof(hipDeviceProp_t, warpSize) == 308 && offsetof(hipDeviceProp_t, major) == 360 &&
    offsetof(hipDeviceProp_t, minor) == 364 &&
    offsetof(hipDeviceProp_t, multiProcessorCount) == 388 &&
    offsetof(hipDeviceProp_t, pciBusID) == 584 && offsetof(hipDeviceProp_t, pciDeviceID) == 588 &&
    offsetof(hipDeviceProp_t, pciDomainID) == 592 &&
    offsetof(hipDeviceProp_t, managedMemory) == 652 && offsetof(hipDeviceProp_t, reserved) == 780 &&
    offsetof(hipDeviceProp_t, gcnArchName) == 1160 && offsetof(hipDeviceProp_t, arch) == 1428 &&
    offsetof(hipDeviceProp_t, asicRevision) == 1468);

namespace {

// HIP's typed overloads: `T* p; hipMalloc(&p, n)` builds and runs as with real HIP.
TEST(HipRuntimeHeader, TypedMallocOverloads) {
  int count = 0;
  if (hipGetDeviceCount(&count) == hipErrorNoDevice) GTEST_SKIP() << "no device";
  float* device = nullptr;
  ASSERT_EQ(hipMalloc(&device, 64 * sizeof(float)), hipSuccess);
  EXPECT_NE(device, nullptr);
  double* host = nullptr;
  ASSERT_EQ(hipHostMalloc(&host, 64 * sizeof(double)), hipSuccess);  // default flags
  ASSERT_NE(host, nullptr);
  host[63] = 1.5;  // host-accessible
  EXPECT_EQ(hipHostFree(host), hipSuccess);
  EXPECT_EQ(hipFree(device), hipSuccess);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
}

// The typed hipMallocManaged defaults its flags to hipMemAttachGlobal, as with real HIP.
TEST(HipRuntimeHeader, TypedMallocManaged) {
  int count = 0;
  if (hipGetDeviceCount(&count) == hipErrorNoDevice) GTEST_SKIP() << "no device";
  float* managed = nullptr;
  ASSERT_EQ(hipMallocManaged(&managed, 16 * sizeof(float)), hipSuccess);
  ASSERT_NE(managed, nullptr);
  managed[15] = 0.5f;  // host-accessible
  void* untyped = nullptr;
  ASSERT_EQ(hipMallocManaged(&untyped, 64), hipSuccess);  // the C function, default flags
  EXPECT_EQ(hipFree(untyped), hipSuccess);
  EXPECT_EQ(hipFree(managed), hipSuccess);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
}

}  // namespace
