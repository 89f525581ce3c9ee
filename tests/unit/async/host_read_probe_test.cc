// SPDX-License-Identifier: MIT
// MeasureHostReads (core/async/host_read_probe.h) on every runtime: "cpu" always, "cuda" where a
// CUDA device is usable (skipped otherwise, saying so). Both ways' rates come back positive, both
// ways copy every slice to its place (the device memory holds the host bytes after); bad arguments
// are refused before anything is made.
#include "core/async/host_read_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fakes/fault_runtime.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"
#include "runtime/cuda/cuda_runtime.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::core {
namespace {

constexpr size_t kBytes = size_t{16} << 20;

class HostReadProbeTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cpu") {
      rt_ = runtime::CreateCpuRuntime();
    } else {
      std::string why_not;
      rt_ = runtime::CreateCudaRuntime(&why_not);
      if (!rt_) GTEST_SKIP() << "CUDA runtime unavailable: " << why_not;
    }
    ASSERT_NE(rt_, nullptr);
    ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
    if (!rt_->SupportsCopyTable(0)) GTEST_SKIP() << "the device has no copy kernel";
    ASSERT_EQ(rt_->HostMalloc(&pinned_, kHostReadProbeTableBytes + kBytes, hipHostMallocDefault),
              hipSuccess);
    ASSERT_EQ(rt_->Malloc(&device_, kBytes), hipSuccess);
    tables_ = static_cast<runtime::CopyTable*>(pinned_);
    host_ = static_cast<unsigned char*>(pinned_) + kHostReadProbeTableBytes;
  }
  void TearDown() override {
    if (device_ != nullptr) {
      EXPECT_EQ(rt_->Free(device_), hipSuccess);
    }
    if (pinned_ != nullptr) {
      EXPECT_EQ(rt_->HostFree(pinned_), hipSuccess);
    }
  }
  // The device memory's bytes, read back.
  std::vector<unsigned char> DeviceBytes() {
    std::vector<unsigned char> out(kBytes);
    EXPECT_EQ(rt_->Memcpy(out.data(), device_, kBytes, hipMemcpyDeviceToHost), hipSuccess);
    return out;
  }

  std::unique_ptr<runtime::GpuRuntime> rt_;
  void* pinned_ = nullptr;
  void* device_ = nullptr;
  runtime::CopyTable* tables_ = nullptr;
  unsigned char* host_ = nullptr;
};

TEST_P(HostReadProbeTest, BothWaysCopyEveryByteAndAreTimed) {
  const std::vector<unsigned char> want = testing::PatternBytes(kBytes, 7);
  std::memcpy(host_, want.data(), kBytes);
  ASSERT_EQ(rt_->Memset(device_, 0, kBytes), hipSuccess);
  HostReadRates rates;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(MeasureHostReads(*rt_, host_, device_, kBytes, tables_, 3, &rates), hipSuccess);
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
  EXPECT_GT(rates.dma_gib_s, 0.0);
  EXPECT_GT(rates.kernel_gib_s, 0.0);
  EXPECT_TRUE(DeviceBytes() == want) << "every slice at its place";
  // The kernel's copies alone: the host bytes change once the last DMA round is done (the third
  // event waited for, with one round after the untimed one), so that only the last round's
  // kernel puts them in every slice.
  const std::vector<unsigned char> second = testing::PatternBytes(kBytes, 8);
  testing::FaultRuntime faults(*rt_);
  int synchronized = 0;
  faults.AfterCall(testing::GpuOp::kEventSynchronize, [&] {
    if (++synchronized == 3) std::memcpy(host_, second.data(), kBytes);
  });
  ASSERT_EQ(MeasureHostReads(faults, host_, device_, kBytes, tables_, 1, &rates), hipSuccess);
  EXPECT_EQ(synchronized, 4);
  EXPECT_TRUE(DeviceBytes() == second) << "the kernel's round copied every slice to its place";
  if (GetParam() == "cuda") {
    // A link moves more than a gigabyte a second either way; printed for the record.
    EXPECT_GT(rates.dma_gib_s, 1.0);
    EXPECT_GT(rates.kernel_gib_s, 1.0);
    std::printf(
        "DMA %.1f GiB/s, copy kernel %.1f GiB/s (%.2fx); the library's probe took %.2f ms\n",
        rates.dma_gib_s, rates.kernel_gib_s, rates.KernelShare(), took.count());
  }
}

TEST_P(HostReadProbeTest, BadArgumentsAreRefusedAndLeaveTheRatesAlone) {
  HostReadRates rates;
  rates.dma_gib_s = 3;
  EXPECT_EQ(MeasureHostReads(*rt_, host_, device_, kBytes - 4096, tables_, 1, &rates),
            hipErrorInvalidValue)
      << "not whole pages for each of the streams";
  EXPECT_EQ(MeasureHostReads(*rt_, host_, device_, 0, tables_, 1, &rates), hipErrorInvalidValue);
  EXPECT_EQ(MeasureHostReads(*rt_, host_, device_, kBytes, tables_, 0, &rates),
            hipErrorInvalidValue);
  EXPECT_EQ(MeasureHostReads(*rt_, nullptr, device_, kBytes, tables_, 1, &rates),
            hipErrorInvalidValue);
  EXPECT_EQ(MeasureHostReads(*rt_, host_, device_, kBytes, nullptr, 1, &rates),
            hipErrorInvalidValue);
  EXPECT_EQ(rates.dma_gib_s, 3.0);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, HostReadProbeTest, ::testing::Values("cpu", "cuda"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace hipfile::core
