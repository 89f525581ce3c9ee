// SPDX-License-Identifier: MIT
// A small HIP program: four non-blocking streams, each filling, copying and checking its own data
// with a host function, all in flight at once.
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <thread>
#include <vector>

#include "fakes/temp_dir.h"
#include "unit/hiprt/hiprt_test_util.h"

namespace hipfile::testing {
namespace {

constexpr int kStreams = 4;
constexpr int kRounds = 8;
constexpr size_t kHalf = 64 * 1024;

// One stream's buffers. The host function compares `out` with `want` when the stream reaches it,
// so it sees exactly what the copies before it produced.
struct Lane {
  hipStream_t stream = nullptr;
  unsigned char* device = nullptr;  // 2 * kHalf: a filled half, then a copied half
  unsigned char* in = nullptr;      // pinned, kHalf: the copied half's source
  unsigned char* out = nullptr;     // pinned, 2 * kHalf: the device buffer read back
  std::vector<unsigned char> want;  // what `out` must hold at the host function
  int checked = 0;                  // written by host functions only
  int matched = 0;

  static void Check(void* data) {
    auto* lane = static_cast<Lane*>(data);
    ++lane->checked;
    if (std::memcmp(lane->out, lane->want.data(), lane->want.size()) == 0) ++lane->matched;
  }
};

// Queues one round on the lane's stream: fill, copy in, copy out, check.
hipError_t QueueRound(Lane& lane, int lane_index, int round) {
  const auto fill = static_cast<unsigned char>(0x10 * lane_index + round);
  const std::vector<unsigned char> pattern = PatternBytes(kHalf, 100 * lane_index + round);
  std::memcpy(lane.in, pattern.data(), kHalf);
  std::fill(lane.want.begin(), lane.want.begin() + kHalf, fill);
  std::copy(pattern.begin(), pattern.end(), lane.want.begin() + kHalf);

  hipError_t e = hipMemsetAsync(lane.device, fill, kHalf, lane.stream);
  if (e == hipSuccess) {
    e = hipMemcpyAsync(lane.device + kHalf, lane.in, kHalf, hipMemcpyHostToDevice, lane.stream);
  }
  if (e == hipSuccess) {
    e = hipMemcpyAsync(lane.out, lane.device, 2 * kHalf, hipMemcpyDeviceToHost, lane.stream);
  }
  if (e == hipSuccess) e = hipLaunchHostFunc(lane.stream, &Lane::Check, &lane);
  // `in` and `want` are reused next round: wait until this round has consumed them.
  if (e == hipSuccess) e = hipStreamSynchronize(lane.stream);
  return e;
}

class HipMultiStreamTest : public HipRtTest {
 protected:
  void SetUp() override {
    HipRtTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (Lane& lane : lanes_) {
      ASSERT_HIP_OK(hipStreamCreateWithFlags(&lane.stream, hipStreamNonBlocking));
      ASSERT_HIP_OK(hipMalloc(&lane.device, 2 * kHalf));
      ASSERT_HIP_OK(hipHostMalloc(&lane.in, kHalf, hipHostMallocDefault));
      ASSERT_HIP_OK(hipHostMalloc(&lane.out, 2 * kHalf, hipHostMallocDefault));
      lane.want.assign(2 * kHalf, 0);
    }
  }
  void TearDown() override {
    for (Lane& lane : lanes_) {
      if (lane.stream != nullptr) {
        EXPECT_EQ(hipStreamDestroy(lane.stream), hipSuccess);
      }
      EXPECT_EQ(hipFree(lane.device), hipSuccess);
      EXPECT_EQ(hipHostFree(lane.in), hipSuccess);
      EXPECT_EQ(hipHostFree(lane.out), hipSuccess);
    }
    HipRtTest::TearDown();
  }
  void ExpectAllRoundsMatched() {
    for (int i = 0; i < kStreams; ++i) {
      EXPECT_EQ(lanes_[i].checked, kRounds) << "stream " << i;
      EXPECT_EQ(lanes_[i].matched, kRounds) << "stream " << i;
      EXPECT_EQ(std::memcmp(lanes_[i].out, lanes_[i].want.data(), 2 * kHalf), 0) << "stream " << i;
    }
  }
  Lane lanes_[kStreams];
};

// One host thread; every lane's first round is in flight before any is waited for.
TEST_F(HipMultiStreamTest, OneThreadFourStreams) {
  for (int round = 0; round < kRounds; ++round) {
    // Gate every stream so that all four rounds are queued and then run concurrently.
    Gate gate;
    for (Lane& lane : lanes_) ASSERT_HIP_OK(hipLaunchHostFunc(lane.stream, &Gate::Wait, &gate));
    for (int i = 0; i < kStreams; ++i) {
      Lane& lane = lanes_[i];
      const auto fill = static_cast<unsigned char>(0x10 * i + round);
      const std::vector<unsigned char> pattern = PatternBytes(kHalf, 100 * i + round);
      std::memcpy(lane.in, pattern.data(), kHalf);
      std::fill(lane.want.begin(), lane.want.begin() + kHalf, fill);
      std::copy(pattern.begin(), pattern.end(), lane.want.begin() + kHalf);
      ASSERT_HIP_OK(hipMemsetAsync(lane.device, fill, kHalf, lane.stream));
      ASSERT_HIP_OK(
          hipMemcpyAsync(lane.device + kHalf, lane.in, kHalf, hipMemcpyHostToDevice, lane.stream));
      ASSERT_HIP_OK(
          hipMemcpyAsync(lane.out, lane.device, 2 * kHalf, hipMemcpyDeviceToHost, lane.stream));
      ASSERT_HIP_OK(hipLaunchHostFunc(lane.stream, &Lane::Check, &lane));
      EXPECT_EQ(hipStreamQuery(lane.stream), hipErrorNotReady);
    }
    gate.Open();
    for (Lane& lane : lanes_) ASSERT_HIP_OK(hipStreamSynchronize(lane.stream));
  }
  ExpectAllRoundsMatched();
}

// Four host threads, each driving its own stream, each also failing a call of its own: errors
// stay with the thread that made them.
TEST_F(HipMultiStreamTest, FourThreadsFourStreams) {
  hipError_t results[kStreams];
  hipError_t own_errors[kStreams];
  std::vector<std::thread> threads;
  for (int i = 0; i < kStreams; ++i) {
    threads.emplace_back([this, i, &results, &own_errors] {
      hipError_t e = hipSuccess;
      for (int round = 0; round < kRounds && e == hipSuccess; ++round) {
        e = QueueRound(lanes_[i], i, round);
        if (round == i) (void)hipStreamCreateWithFlags(nullptr, 0);  // fails: InvalidValue
      }
      results[i] = e;
      own_errors[i] = hipGetLastError();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(results[i], hipSuccess) << "stream " << i << ": " << hipGetErrorName(results[i]);
    EXPECT_EQ(own_errors[i], hipErrorInvalidValue) << "thread " << i;
  }
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess);  // none of theirs reached this thread
  ExpectAllRoundsMatched();
}

}  // namespace
}  // namespace hipfile::testing
