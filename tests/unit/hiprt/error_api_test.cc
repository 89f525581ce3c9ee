// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <string>
#include <thread>

#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

TEST(HipErrorNames, KnownCodes) {
  EXPECT_STREQ(hipGetErrorName(hipSuccess), "hipSuccess");
  EXPECT_STREQ(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue");
  EXPECT_STREQ(hipGetErrorName(hipErrorNotReady), "hipErrorNotReady");
  EXPECT_STREQ(hipGetErrorName(hipErrorInvalidMemcpyDirection), "hipErrorInvalidMemcpyDirection");
  EXPECT_STREQ(hipGetErrorString(hipSuccess), "no error");
  EXPECT_STREQ(hipGetErrorString(hipErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(hipGetErrorString(hipErrorOutOfMemory), "out of memory");
}

TEST(HipErrorNames, UnknownCodes) {
  const auto bogus = static_cast<hipError_t>(12345);
  EXPECT_STREQ(hipGetErrorName(bogus), "hipErrorUnknown");
  ASSERT_NE(hipGetErrorString(bogus), nullptr);
  EXPECT_STREQ(hipGetErrorString(bogus), "unknown error");
}

TEST(HipErrorNames, EveryHeaderCodeHasANameAndText) {
  for (hipError_t e : {hipSuccess, hipErrorInvalidValue, hipErrorOutOfMemory, hipErrorNoDevice,
                       hipErrorInvalidDevice, hipErrorInvalidHandle, hipErrorNotFound,
                       hipErrorNotReady, hipErrorHostMemoryAlreadyRegistered,
                       hipErrorHostMemoryNotRegistered, hipErrorNotSupported, hipErrorUnknown}) {
    const std::string name = hipGetErrorName(e);
    EXPECT_EQ(name.rfind("hip", 0), 0u) << name;
    EXPECT_GT(std::strlen(hipGetErrorString(e)), 0u) << name;
  }
}

class HipLastErrorTest : public HipRtTest {};

TEST_F(HipLastErrorTest, StartsAtSuccessInANewThread) {
  hipError_t peek = hipErrorUnknown;
  hipError_t get = hipErrorUnknown;
  std::thread([&] {
    peek = hipPeekAtLastError();
    get = hipGetLastError();
  }).join();
  EXPECT_EQ(peek, hipSuccess);
  EXPECT_EQ(get, hipSuccess);
}

TEST_F(HipLastErrorTest, FailureIsStickyUntilRead) {
  EXPECT_EQ(hipMalloc(nullptr, 8), hipErrorInvalidValue);
  int device = -1;
  ASSERT_EQ(hipGetDevice(&device), hipSuccess);  // a success does not clear it
  EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);  // peeking does not clear it
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipSuccess);  // reading did
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess);
}

TEST_F(HipLastErrorTest, LatestFailureWins) {
  EXPECT_EQ(hipMalloc(nullptr, 8), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidHandle);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
}

TEST_F(HipLastErrorTest, NameAndStringDoNotTouchIt) {
  EXPECT_EQ(hipMalloc(nullptr, 8), hipErrorInvalidValue);
  (void)hipGetErrorName(hipErrorNotFound);
  (void)hipGetErrorString(static_cast<hipError_t>(-7));
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
}

TEST_F(HipLastErrorTest, IsPerThread) {
  EXPECT_EQ(hipMalloc(nullptr, 8), hipErrorInvalidValue);
  hipError_t other_before = hipErrorUnknown;
  hipError_t other_after = hipErrorUnknown;
  std::thread([&] {
    other_before = hipPeekAtLastError();  // does not see the main thread's error
    (void)hipStreamDestroy(nullptr);
    other_after = hipGetLastError();
  }).join();
  EXPECT_EQ(other_before, hipSuccess);
  EXPECT_EQ(other_after, hipErrorInvalidHandle);
  // Neither the other thread's failure nor its read changed this thread's error.
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
}

}  // namespace
}  // namespace hipfile::testing
