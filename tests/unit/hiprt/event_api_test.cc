// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <chrono>
#include <thread>

#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

class HipEventTest : public HipRtTest {
 protected:
  void SetUp() override {
    HipRtTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_HIP_OK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
    }
    HipRtTest::TearDown();
  }
  hipStream_t stream_ = nullptr;
};

TEST_F(HipEventTest, CreateWithEachFlag) {
  for (unsigned flags : {hipEventDefault, hipEventBlockingSync, hipEventDisableTiming,
                         hipEventBlockingSync | hipEventDisableTiming}) {
    SCOPED_TRACE(flags);
    hipEvent_t event = nullptr;
    ASSERT_HIP_OK(hipEventCreateWithFlags(&event, flags));
    EXPECT_NE(event, nullptr);
    ASSERT_HIP_OK(hipEventDestroy(event));
  }
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipEventCreate(&event));
  ASSERT_HIP_OK(hipEventDestroy(event));
}

TEST_F(HipEventTest, CreateArguments) {
  EXPECT_HIP_FAILS(hipEventCreate(nullptr), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipEventCreateWithFlags(nullptr, hipEventDefault), hipErrorInvalidValue);
  hipEvent_t event = nullptr;
  EXPECT_HIP_FAILS(hipEventCreateWithFlags(&event, 0x100), hipErrorInvalidValue);
  // Interprocess events must not time.
  EXPECT_HIP_FAILS(hipEventCreateWithFlags(&event, hipEventInterprocess), hipErrorInvalidValue);
  EXPECT_EQ(event, nullptr);
}

TEST_F(HipEventTest, NullEventIsAnInvalidHandle) {
  float ms = 0;
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipEventCreate(&event));
  EXPECT_HIP_FAILS(hipEventRecord(nullptr, stream_), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventSynchronize(nullptr), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventQuery(nullptr), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventElapsedTime(&ms, nullptr, event), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventElapsedTime(&ms, event, nullptr), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipEventElapsedTime(nullptr, event, event), hipErrorInvalidValue);
  ASSERT_HIP_OK(hipEventDestroy(event));
}

TEST_F(HipEventTest, QueryAndSynchronizeFollowTheStream) {
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipEventCreate(&event));
  Gate gate;
  ASSERT_HIP_OK(hipLaunchHostFunc(stream_, &Gate::Wait, &gate));
  ASSERT_HIP_OK(hipEventRecord(event, stream_));
  EXPECT_EQ(hipEventQuery(event), hipErrorNotReady);
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess);  // not ready is not recorded
  gate.Open();
  ASSERT_HIP_OK(hipEventSynchronize(event));
  ASSERT_HIP_OK(hipEventQuery(event));
  ASSERT_HIP_OK(hipEventDestroy(event));
}

TEST_F(HipEventTest, RecordOnTheDefaultStream) {
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipEventCreate(&event));
  ASSERT_HIP_OK(hipEventRecord(event, nullptr));
  ASSERT_HIP_OK(hipEventSynchronize(event));
  ASSERT_HIP_OK(hipEventQuery(event));
  ASSERT_HIP_OK(hipEventDestroy(event));
}

TEST_F(HipEventTest, ElapsedTimeMeasuresTheWorkBetween) {
  hipEvent_t start = nullptr;
  hipEvent_t stop = nullptr;
  ASSERT_HIP_OK(hipEventCreate(&start));
  ASSERT_HIP_OK(hipEventCreate(&stop));
  ASSERT_HIP_OK(hipEventRecord(start, stream_));
  ASSERT_HIP_OK(hipLaunchHostFunc(
      stream_, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }, nullptr));
  ASSERT_HIP_OK(hipEventRecord(stop, stream_));
  ASSERT_HIP_OK(hipEventSynchronize(stop));
  float ms = -1;
  ASSERT_HIP_OK(hipEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 25.0f);
  EXPECT_LT(ms, 10000.0f);
  ASSERT_HIP_OK(hipEventDestroy(start));
  ASSERT_HIP_OK(hipEventDestroy(stop));
}

// As in HIP and CUDA, an event created without timing cannot be timed.
TEST_F(HipEventTest, ElapsedTimeNeedsTimingEvents) {
  hipEvent_t start = nullptr;
  hipEvent_t stop = nullptr;
  ASSERT_HIP_OK(hipEventCreateWithFlags(&start, hipEventDisableTiming));
  ASSERT_HIP_OK(hipEventCreate(&stop));
  ASSERT_HIP_OK(hipEventRecord(start, stream_));
  ASSERT_HIP_OK(hipEventRecord(stop, stream_));
  ASSERT_HIP_OK(hipEventSynchronize(stop));
  float ms = 0;
  EXPECT_HIP_FAILS(hipEventElapsedTime(&ms, start, stop), hipErrorInvalidHandle);
  ASSERT_HIP_OK(hipEventDestroy(start));
  ASSERT_HIP_OK(hipEventDestroy(stop));
}

}  // namespace
}  // namespace hipfile::testing
