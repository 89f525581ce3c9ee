// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <vector>

#include "fakes/temp_dir.h"
#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

constexpr size_t kSize = 256 * 1024 + 3;

class HipCopyTest : public HipRtTest {
 protected:
  void SetUp() override {
    HipRtTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_HIP_OK(hipMalloc(&device_a_, kSize));
    ASSERT_HIP_OK(hipMalloc(&device_b_, kSize));
  }
  void TearDown() override {
    EXPECT_EQ(hipFree(device_a_), hipSuccess);
    EXPECT_EQ(hipFree(device_b_), hipSuccess);
    HipRtTest::TearDown();
  }
  unsigned char* device_a_ = nullptr;
  unsigned char* device_b_ = nullptr;
};

TEST_F(HipCopyTest, RoundTripThroughDeviceMemory) {
  const std::vector<unsigned char> source = PatternBytes(kSize, 3);
  std::vector<unsigned char> back(kSize);
  ASSERT_HIP_OK(hipMemcpy(device_a_, source.data(), kSize, hipMemcpyHostToDevice));
  ASSERT_HIP_OK(hipMemcpy(device_b_, device_a_, kSize, hipMemcpyDeviceToDevice));
  ASSERT_HIP_OK(hipMemcpy(back.data(), device_b_, kSize, hipMemcpyDeviceToHost));
  EXPECT_EQ(back, source);
}

TEST_F(HipCopyTest, DefaultAndHostToHostKinds) {
  const std::vector<unsigned char> source = PatternBytes(kSize, 4);
  std::vector<unsigned char> host(kSize);
  std::vector<unsigned char> back(kSize);
  ASSERT_HIP_OK(hipMemcpy(host.data(), source.data(), kSize, hipMemcpyHostToHost));
  EXPECT_EQ(host, source);
  ASSERT_HIP_OK(hipMemcpy(device_a_ + 1, host.data(), kSize - 1, hipMemcpyDefault));
  ASSERT_HIP_OK(hipMemcpy(back.data(), device_a_ + 1, kSize - 1, hipMemcpyDefault));
  back.back() = source.back();
  EXPECT_EQ(back, source);
}

TEST_F(HipCopyTest, MemsetUsesTheLowByteAndOnlyItsRange) {
  ASSERT_HIP_OK(hipMemset(device_a_, 0, kSize));
  ASSERT_HIP_OK(hipMemset(device_a_ + 100, 0x1AB, 1000));
  std::vector<unsigned char> back(kSize, 0xee);
  ASSERT_HIP_OK(hipMemcpy(back.data(), device_a_, kSize, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < kSize; ++i) {
    const unsigned char want = (i >= 100 && i < 1100) ? 0xAB : 0;
    ASSERT_EQ(back[i], want) << "byte " << i;
  }
}

TEST_F(HipCopyTest, AsyncFormsOnStreamAndDefaultStream) {
  const std::vector<unsigned char> source = PatternBytes(kSize, 5);
  std::vector<unsigned char> back(kSize);
  hipStream_t stream = nullptr;
  ASSERT_HIP_OK(hipStreamCreate(&stream));
  ASSERT_HIP_OK(hipMemcpyAsync(device_a_, source.data(), kSize, hipMemcpyHostToDevice, stream));
  ASSERT_HIP_OK(hipMemsetAsync(device_a_, 0x11, 64, stream));
  ASSERT_HIP_OK(hipMemcpyAsync(back.data(), device_a_, kSize, hipMemcpyDeviceToHost, stream));
  ASSERT_HIP_OK(hipStreamSynchronize(stream));
  std::vector<unsigned char> want = source;
  std::fill(want.begin(), want.begin() + 64, 0x11);
  EXPECT_EQ(back, want);
  ASSERT_HIP_OK(hipStreamDestroy(stream));

  // Work on the default stream is ordered before the synchronous copy that follows it.
  ASSERT_HIP_OK(hipMemsetAsync(device_b_, 0x22, kSize, nullptr));
  ASSERT_HIP_OK(hipMemcpy(back.data(), device_b_, kSize, hipMemcpyDeviceToHost));
  EXPECT_EQ(back, std::vector<unsigned char>(kSize, 0x22));
}

TEST_F(HipCopyTest, InvalidDirection) {
  std::vector<unsigned char> host(16);
  for (int kind : {5, -1, 100}) {
    SCOPED_TRACE(kind);
    const auto k = static_cast<hipMemcpyKind>(kind);
    EXPECT_HIP_FAILS(hipMemcpy(device_a_, host.data(), 16, k), hipErrorInvalidMemcpyDirection);
    EXPECT_HIP_FAILS(hipMemcpyAsync(device_a_, host.data(), 16, k, nullptr),
                     hipErrorInvalidMemcpyDirection);
    EXPECT_HIP_FAILS(hipMemcpy(device_a_, host.data(), 0, k), hipErrorInvalidMemcpyDirection);
  }
}

TEST_F(HipCopyTest, ZeroBytesSucceedEvenWithNullPointers) {
  ASSERT_HIP_OK(hipMemcpy(nullptr, nullptr, 0, hipMemcpyDefault));
  ASSERT_HIP_OK(hipMemcpyAsync(nullptr, nullptr, 0, hipMemcpyHostToDevice, nullptr));
  ASSERT_HIP_OK(hipMemset(nullptr, 0, 0));
  ASSERT_HIP_OK(hipMemsetAsync(nullptr, 0, 0, nullptr));
}

TEST_F(HipCopyTest, NullPointers) {
  std::vector<unsigned char> host(16);
  EXPECT_HIP_FAILS(hipMemcpy(nullptr, host.data(), 16, hipMemcpyHostToDevice),
                   hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpy(device_a_, nullptr, 16, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyAsync(host.data(), nullptr, 16, hipMemcpyDeviceToHost, nullptr),
                   hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemset(nullptr, 0, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemsetAsync(nullptr, 0, 16, nullptr), hipErrorInvalidValue);
}

// hipMemcpyHtoD / DtoD / DtoH: distinct bytes through two device buffers and back.
TEST_F(HipCopyTest, DriverStyleCopiesRoundTrip) {
  const std::vector<unsigned char> source = PatternBytes(kSize, 6);
  std::vector<unsigned char> back(kSize);
  ASSERT_HIP_OK(hipMemcpyHtoD(device_a_, source.data(), kSize));
  ASSERT_HIP_OK(hipMemcpyDtoD(device_b_ + 1, device_a_ + 1, kSize - 1));
  ASSERT_HIP_OK(hipMemcpyDtoH(back.data() + 1, device_b_ + 1, kSize - 1));
  back[0] = source[0];
  EXPECT_EQ(back, source);
}

TEST_F(HipCopyTest, DriverStyleAsyncCopiesAreStreamOrdered) {
  const std::vector<unsigned char> source = PatternBytes(kSize, 7);
  std::vector<unsigned char> back(kSize);
  hipStream_t stream = nullptr;
  ASSERT_HIP_OK(hipStreamCreate(&stream));
  ASSERT_HIP_OK(hipMemcpyHtoDAsync(device_a_, source.data(), kSize, stream));
  ASSERT_HIP_OK(hipMemcpyDtoDAsync(device_b_, device_a_, kSize, stream));
  ASSERT_HIP_OK(hipMemsetAsync(device_a_, 0, kSize, stream));  // after the copy out of it
  ASSERT_HIP_OK(hipMemcpyDtoHAsync(back.data(), device_b_, kSize, stream));
  ASSERT_HIP_OK(hipStreamSynchronize(stream));
  EXPECT_EQ(back, source);
  ASSERT_HIP_OK(hipStreamDestroy(stream));

  // The null stream too.
  ASSERT_HIP_OK(hipMemcpyDtoHAsync(back.data(), device_a_, kSize, nullptr));
  ASSERT_HIP_OK(hipStreamSynchronize(nullptr));
  EXPECT_EQ(back, std::vector<unsigned char>(kSize, 0));
}

TEST_F(HipCopyTest, DriverStyleCopyArguments) {
  std::vector<unsigned char> host(16);
  ASSERT_HIP_OK(hipMemcpyHtoD(nullptr, nullptr, 0));
  ASSERT_HIP_OK(hipMemcpyDtoH(nullptr, nullptr, 0));
  ASSERT_HIP_OK(hipMemcpyDtoD(nullptr, nullptr, 0));
  ASSERT_HIP_OK(hipMemcpyHtoDAsync(nullptr, nullptr, 0, nullptr));
  ASSERT_HIP_OK(hipMemcpyDtoHAsync(nullptr, nullptr, 0, nullptr));
  ASSERT_HIP_OK(hipMemcpyDtoDAsync(nullptr, nullptr, 0, nullptr));
  EXPECT_HIP_FAILS(hipMemcpyHtoD(nullptr, host.data(), 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyHtoD(device_a_, nullptr, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoH(nullptr, device_a_, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoH(host.data(), nullptr, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoD(device_a_, nullptr, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoD(nullptr, device_a_, 16), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyHtoDAsync(nullptr, host.data(), 16, nullptr), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoHAsync(host.data(), nullptr, 16, nullptr), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipMemcpyDtoDAsync(device_a_, nullptr, 16, nullptr), hipErrorInvalidValue);
}

}  // namespace
}  // namespace hipfile::testing
