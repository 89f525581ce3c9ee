// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

class HipStreamTest : public HipRtTest {};

TEST_F(HipStreamTest, CreateAndDestroy) {
  hipStream_t plain = nullptr;
  hipStream_t non_blocking = nullptr;
  hipStream_t flagged_default = nullptr;
  ASSERT_HIP_OK(hipStreamCreate(&plain));
  ASSERT_HIP_OK(hipStreamCreateWithFlags(&non_blocking, hipStreamNonBlocking));
  ASSERT_HIP_OK(hipStreamCreateWithFlags(&flagged_default, hipStreamDefault));
  EXPECT_NE(plain, nullptr);
  EXPECT_NE(non_blocking, nullptr);
  EXPECT_NE(plain, non_blocking);
  EXPECT_NE(flagged_default, nullptr);
  ASSERT_HIP_OK(hipStreamDestroy(plain));
  ASSERT_HIP_OK(hipStreamDestroy(non_blocking));
  ASSERT_HIP_OK(hipStreamDestroy(flagged_default));
}

TEST_F(HipStreamTest, CreateArguments) {
  EXPECT_HIP_FAILS(hipStreamCreate(nullptr), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipStreamCreateWithFlags(nullptr, hipStreamNonBlocking), hipErrorInvalidValue);
  hipStream_t stream = nullptr;
  EXPECT_HIP_FAILS(hipStreamCreateWithFlags(&stream, 0x2), hipErrorInvalidValue);
  EXPECT_HIP_FAILS(hipStreamCreateWithFlags(&stream, 0x80000001u), hipErrorInvalidValue);
  EXPECT_EQ(stream, nullptr);
}

TEST_F(HipStreamTest, TheDefaultStreamCannotBeDestroyed) {
  EXPECT_HIP_FAILS(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
}

TEST_F(HipStreamTest, DefaultStreamSynchronizeAndQuery) {
  ASSERT_HIP_OK(hipStreamSynchronize(nullptr));
  ASSERT_HIP_OK(hipStreamQuery(nullptr));
}

// A busy stream answers hipErrorNotReady, which is a status, not a failure: not recorded.
TEST_F(HipStreamTest, QueryReportsPendingWorkWithoutRecordingIt) {
  hipStream_t stream = nullptr;
  ASSERT_HIP_OK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  ASSERT_HIP_OK(hipStreamQuery(stream));
  Gate gate;
  ASSERT_HIP_OK(hipLaunchHostFunc(stream, &Gate::Wait, &gate));
  EXPECT_EQ(hipStreamQuery(stream), hipErrorNotReady);
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess);
  gate.Open();
  ASSERT_HIP_OK(hipStreamSynchronize(stream));
  ASSERT_HIP_OK(hipStreamQuery(stream));
  ASSERT_HIP_OK(hipStreamDestroy(stream));
}

TEST_F(HipStreamTest, HostFunctionsRunInStreamOrder) {
  hipStream_t stream = nullptr;
  ASSERT_HIP_OK(hipStreamCreate(&stream));
  struct Call {
    std::mutex* mu;
    std::vector<int>* order;
    int index;
  };
  std::mutex mu;
  std::vector<int> order;
  std::vector<Call> calls;
  for (int i = 0; i < 20; ++i) calls.push_back({&mu, &order, i});
  for (Call& call : calls) {
    ASSERT_HIP_OK(hipLaunchHostFunc(
        stream,
        [](void* data) {
          auto* c = static_cast<Call*>(data);
          std::lock_guard<std::mutex> lock(*c->mu);
          c->order->push_back(c->index);
        },
        &call));
  }
  ASSERT_HIP_OK(hipStreamSynchronize(stream));
  std::vector<int> want(20);
  for (int i = 0; i < 20; ++i) want[i] = i;
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, want);
  ASSERT_HIP_OK(hipStreamDestroy(stream));
}

TEST_F(HipStreamTest, LaunchHostFuncArguments) {
  EXPECT_HIP_FAILS(hipLaunchHostFunc(nullptr, nullptr, nullptr), hipErrorInvalidValue);
}

// Work queued on `waiter` after hipStreamWaitEvent does not start before the event is reached.
TEST_F(HipStreamTest, WaitEventOrdersAcrossStreams) {
  hipStream_t producer = nullptr;
  hipStream_t waiter = nullptr;
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipStreamCreateWithFlags(&producer, hipStreamNonBlocking));
  ASSERT_HIP_OK(hipStreamCreateWithFlags(&waiter, hipStreamNonBlocking));
  ASSERT_HIP_OK(hipEventCreateWithFlags(&event, hipEventDisableTiming));
  Gate gate;
  std::atomic<bool> ran{false};
  ASSERT_HIP_OK(hipLaunchHostFunc(producer, &Gate::Wait, &gate));
  ASSERT_HIP_OK(hipEventRecord(event, producer));
  ASSERT_HIP_OK(hipStreamWaitEvent(waiter, event, 0));
  ASSERT_HIP_OK(hipLaunchHostFunc(
      waiter, [](void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }, &ran));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(ran.load());
  EXPECT_EQ(hipStreamQuery(waiter), hipErrorNotReady);
  gate.Open();
  ASSERT_HIP_OK(hipStreamSynchronize(waiter));
  EXPECT_TRUE(ran.load());
  ASSERT_HIP_OK(hipEventDestroy(event));
  ASSERT_HIP_OK(hipStreamDestroy(waiter));
  ASSERT_HIP_OK(hipStreamDestroy(producer));
}

TEST_F(HipStreamTest, WaitEventArguments) {
  hipStream_t stream = nullptr;
  hipEvent_t event = nullptr;
  ASSERT_HIP_OK(hipStreamCreate(&stream));
  ASSERT_HIP_OK(hipEventCreate(&event));
  EXPECT_HIP_FAILS(hipStreamWaitEvent(stream, nullptr, 0), hipErrorInvalidHandle);
  EXPECT_HIP_FAILS(hipStreamWaitEvent(stream, event, 1), hipErrorInvalidValue);
  ASSERT_HIP_OK(hipEventDestroy(event));
  ASSERT_HIP_OK(hipStreamDestroy(stream));
}

}  // namespace
}  // namespace hipfile::testing
