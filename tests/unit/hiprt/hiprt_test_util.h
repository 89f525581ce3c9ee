// SPDX-License-Identifier: MIT
// Shared by the HIP runtime subset tests. They run on the process runtime, whatever it is (the
// CPU runtime without a GPU, CUDA with one), so the same tests check both.
#pragma once

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace hipfile::testing {

#define ASSERT_HIP_OK(expr)                                                          \
  do {                                                                               \
    const hipError_t hiprt_ok_ = (expr);                                             \
    ASSERT_EQ(hiprt_ok_, hipSuccess) << #expr << ": " << hipGetErrorName(hiprt_ok_); \
  } while (0)

// `expr` fails with `want`, and that is what the thread's last error reads (which resets it).
#define EXPECT_HIP_FAILS(expr, want)                                               \
  do {                                                                             \
    const hipError_t hiprt_got_ = (expr);                                          \
    EXPECT_EQ(hiprt_got_, (want)) << #expr << ": " << hipGetErrorName(hiprt_got_); \
    EXPECT_EQ(hipGetLastError(), (want)) << #expr << " did not record its error";  \
  } while (0)

// Starts each test with a usable device and a clear last error.
class HipRtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)hipGetLastError();
    int count = 0;
    const hipError_t e = hipGetDeviceCount(&count);
    if (e == hipErrorNoDevice) GTEST_SKIP() << "the process runtime has no device";
    ASSERT_EQ(e, hipSuccess) << hipGetErrorName(e);
    ASSERT_GE(count, 1);
    (void)hipGetLastError();
  }
  void TearDown() override {
    EXPECT_EQ(hipGetLastError(), hipSuccess) << "a test left an unread error";
  }
};

// A host function that holds its stream until Open() is called: work queued behind it stays
// pending, deterministically.
class Gate {
 public:
  static void Wait(void* gate) {
    auto* self = static_cast<Gate*>(gate);
    while (!self->open_.load(std::memory_order_acquire)) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  void Open() { open_.store(true, std::memory_order_release); }

 private:
  std::atomic<bool> open_{false};
};

}  // namespace hipfile::testing
