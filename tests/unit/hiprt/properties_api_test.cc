// SPDX-License-Identifier: MIT
// hipInit, the versions, hipGetDeviceProperties and hipDeviceGetAttribute, on the process runtime.
// What the CPU runtime promises about its device is checked where it is the one running.
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <string>

#include "fakes/raw_enum.h"
#include "runtime/device_attributes.h"
#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

class HipPropertiesTest : public HipRtTest {
 protected:
  void SetUp() override {
    HipRtTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_HIP_OK(hipGetDeviceCount(&count_));
  }
  static bool OnCpuRuntime(const hipDeviceProp_t& prop) {
    return std::string(prop.name) == "hipFile CPU device";
  }
  static int Attribute(hipDeviceAttribute_t attribute) {
    int value = -12345;
    EXPECT_EQ(hipDeviceGetAttribute(&value, attribute, 0), hipSuccess) << attribute;
    return value;
  }
  int count_ = 0;
};

TEST_F(HipPropertiesTest, InitTakesFlagsZeroOnly) {
  ASSERT_HIP_OK(hipInit(0));
  EXPECT_HIP_FAILS(hipInit(1), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipInit(0x80000000u), hipErrorInvalidValue);
  ASSERT_HIP_OK(hipInit(0));  // a failed call changes nothing
}

TEST_F(HipPropertiesTest, Versions) {
  int runtime = 0;
  ASSERT_HIP_OK(hipRuntimeGetVersion(&runtime));
  EXPECT_EQ(runtime, 60000000) << "HIP 6.0 in HIP_VERSION's encoding";
  int driver = 0;
  ASSERT_HIP_OK(hipDriverGetVersion(&driver));
  EXPECT_GT(driver, 0);
  EXPECT_HIP_FAILS(hipRuntimeGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipDriverGetVersion(nullptr), hipErrorInvalidValue);
}

TEST_F(HipPropertiesTest, PropertiesAgreeWithTheAttributes) {
  hipDeviceProp_t prop;
  std::memset(&prop, 0xab, sizeof prop);
  ASSERT_HIP_OK(hipGetDeviceProperties(&prop, 0));
  const size_t name_length = strnlen(prop.name, sizeof prop.name);
  ASSERT_LT(name_length, sizeof prop.name) << "the name is terminated";
  EXPECT_GT(name_length, 0u);
  EXPECT_GT(prop.totalGlobalMem, 0u);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  ASSERT_HIP_OK(hipMemGetInfo(&free_bytes, &total_bytes));
  EXPECT_GE(prop.totalGlobalMem, free_bytes);
  EXPECT_EQ(prop.major, Attribute(hipDeviceAttributeComputeCapabilityMajor));
  EXPECT_EQ(prop.minor, Attribute(hipDeviceAttributeComputeCapabilityMinor));
  EXPECT_EQ(prop.multiProcessorCount, Attribute(hipDeviceAttributeMultiprocessorCount));
  EXPECT_GT(prop.multiProcessorCount, 0);
  EXPECT_EQ(prop.pciBusID, Attribute(hipDeviceAttributePciBusId));
  EXPECT_EQ(prop.pciDeviceID, Attribute(hipDeviceAttributePciDeviceId));
  EXPECT_EQ(prop.pciDomainID, Attribute(hipDeviceAttributePciDomainID));
  EXPECT_EQ(prop.warpSize, Attribute(hipDeviceAttributeWarpSize));
  EXPECT_GT(prop.warpSize, 0);
  EXPECT_EQ(prop.maxThreadsPerBlock, Attribute(hipDeviceAttributeMaxThreadsPerBlock));
  EXPECT_EQ(prop.maxThreadsDim[2], Attribute(hipDeviceAttributeMaxBlockDimZ));
  EXPECT_EQ(prop.maxGridSize[0], Attribute(hipDeviceAttributeMaxGridDimX));
  EXPECT_EQ(prop.managedMemory, Attribute(hipDeviceAttributeManagedMemory));
  EXPECT_EQ(prop.sharedMemPerBlock,
            static_cast<size_t>(Attribute(hipDeviceAttributeMaxSharedMemoryPerBlock)));
  EXPECT_EQ(Attribute(hipDeviceAttributeTotalGlobalMem),
            static_cast<int>(std::min<size_t>(prop.totalGlobalMem, INT_MAX)));
  // What no attribute answers is 0, not what was in the struct before.
  EXPECT_EQ(prop.luidDeviceNodeMask, 0u);
  EXPECT_EQ(prop.maxTexture1D, 0);
  EXPECT_EQ(prop.gcnArchName[0], '\0');
  EXPECT_EQ(prop.hdpMemFlushCntl, nullptr);
  for (int r : prop.reserved) ASSERT_EQ(r, 0);
}

TEST_F(HipPropertiesTest, CpuDeviceIsAsDocumented) {
  hipDeviceProp_t prop{};
  ASSERT_HIP_OK(hipGetDeviceProperties(&prop, 0));
  if (!OnCpuRuntime(prop)) GTEST_SKIP() << "not the CPU runtime: " << prop.name;
  EXPECT_EQ(prop.totalGlobalMem, static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
                                     static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(prop.multiProcessorCount, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_EQ(prop.major, 0);
  EXPECT_EQ(prop.minor, 0);
  EXPECT_EQ(prop.pciBusID, 0);
  EXPECT_EQ(prop.pciDeviceID, 0);
  EXPECT_EQ(prop.pciDomainID, 0);
  EXPECT_EQ(prop.warpSize, 1);
  EXPECT_EQ(prop.integrated, 1);
  EXPECT_EQ(prop.unifiedAddressing, 1);
  EXPECT_EQ(prop.managedMemory, 1);
  EXPECT_EQ(prop.concurrentManagedAccess, 1);
  EXPECT_EQ(prop.ECCEnabled, 0);
  EXPECT_EQ(std::memcmp(prop.uuid.bytes, "hipfile-cpu-dev0", 16), 0);
  int driver = 0;
  ASSERT_HIP_OK(hipDriverGetVersion(&driver));
  EXPECT_EQ(driver, 60000000);
}

TEST_F(HipPropertiesTest, PropertiesArguments) {
  hipDeviceProp_t prop;
  std::memset(&prop, 0x5a, sizeof prop);
  EXPECT_HIP_FAILS(hipGetDeviceProperties(nullptr, 0), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipGetDeviceProperties(&prop, -1), hipErrorInvalidDevice);
  EXPECT_HIP_FAILS(hipGetDeviceProperties(&prop, count_), hipErrorInvalidDevice);
  EXPECT_EQ(prop.name[0], 0x5a) << "a failed call leaves the struct alone";
  EXPECT_EQ(prop.major, 0x5a5a5a5a);
}

TEST_F(HipPropertiesTest, EverySupportedAttributeIsAnswered) {
  for (size_t i = 0; i < runtime::kSupportedDeviceAttributeCount; ++i) {
    const hipDeviceAttribute_t attribute = runtime::kSupportedDeviceAttributes[i];
    SCOPED_TRACE(attribute);
    int value = -12345;
    ASSERT_HIP_OK(hipDeviceGetAttribute(&value, attribute, 0));
    EXPECT_GE(value, 0);
  }
}

TEST_F(HipPropertiesTest, AttributeArguments) {
  int value = 7;
  EXPECT_HIP_FAILS(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0),
                   hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, -1),
                   hipErrorInvalidDevice);
  EXPECT_HIP_FAILS(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, count_),
                   hipErrorInvalidDevice);
  // Attributes the subset does not answer: textures, AMD-specific ones, numbers outside the enum.
  for (const int attribute : {static_cast<int>(hipDeviceAttributeMaxTexture1DWidth),
                              static_cast<int>(hipDeviceAttributeClockInstructionRate),
                              static_cast<int>(hipDeviceAttributeUnused2), 12345, -1}) {
    SCOPED_TRACE(attribute);
    EXPECT_HIP_FAILS(hipDeviceGetAttribute(&value, RawEnum<hipDeviceAttribute_t>(attribute), 0),
                     hipErrorInvalidValue);
  }
  EXPECT_EQ(value, 7) << "failed calls leave the value alone";
}

TEST(DeviceAttributeList, IsSortedWithoutDuplicates) {
  for (size_t i = 1; i < runtime::kSupportedDeviceAttributeCount; ++i) {
    EXPECT_LT(runtime::kSupportedDeviceAttributes[i - 1], runtime::kSupportedDeviceAttributes[i]);
  }
  EXPECT_TRUE(runtime::SupportedDeviceAttribute(hipDeviceAttributeEccEnabled));
  EXPECT_TRUE(runtime::SupportedDeviceAttribute(hipDeviceAttributeMemoryPoolSupportedHandleTypes));
  EXPECT_FALSE(runtime::SupportedDeviceAttribute(hipDeviceAttributeLuid));
}

}  // namespace
}  // namespace hipfile::testing
