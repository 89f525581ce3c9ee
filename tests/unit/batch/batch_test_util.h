// SPDX-License-Identifier: MIT
// Shared pieces of the batch tests: a fixture with a Driver over the CPU runtime and a
// BatchManager of its own, on a GateSys (fakes/gate_sys.h) so entries stay Running for as long
// as a test needs.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "core/batch/batch_manager.h"
#include "core/config.h"
#include "core/driver.h"
#include "fakes/batch_entry.h"
#include "fakes/fault_runtime.h"
#include "fakes/fault_sys.h"
#include "fakes/gate_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {

class BatchTest : public ::testing::Test {
 protected:
  static constexpr unsigned kWorkers = 2;

  BatchTest() : cpu_(runtime::CreateCpuRuntime()), gpu_(*cpu_) {}
  ~BatchTest() override {
    sys_.OpenGate();
    manager_.reset();
    driver_.reset();
    for (int fd : fds_) ::close(fd);
    for (void* p : allocations_) (void)gpu_.Free(p);
  }

  // Built on first use, so that a test can set workers_ (the driver's I/O threads, 0:
  // automatic) or the driver's parameters first.
  Driver& driver() {
    if (!driver_) {
      Config config = ParseConfig(sys_);
      config.io_threads = workers_;
      driver_ = std::make_unique<Driver>(sys_, gpu_, config);
    }
    return *driver_;
  }
  BatchManager& manager() {
    if (!manager_) manager_ = std::make_unique<BatchManager>(driver());
    return *manager_;
  }

  // A file of `size` pattern bytes (seed 1), opened with `flags`, registered.
  hipFileHandle_t OpenFile(const std::string& name, size_t size, int flags) {
    const std::string path = dir_.File(name);
    testing::WriteFileOrDie(path, testing::PatternBytes(size));
    const int fd = ::open(path.c_str(), flags);
    EXPECT_GE(fd, 0) << path;
    fds_.push_back(fd);
    Result<void*> handle = driver().RegisterHandle(fd);
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return handle.ok() ? *handle : nullptr;
  }

  void* DeviceAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(gpu_.Malloc(&p, size), hipSuccess);
    allocations_.push_back(p);
    return p;
  }
  std::vector<unsigned char> DeviceBytes(const void* p, size_t size) {
    std::vector<unsigned char> bytes(size);
    EXPECT_EQ(gpu_.Memcpy(bytes.data(), p, size, hipMemcpyDeviceToHost), hipSuccess);
    return bytes;
  }
  void FillDevice(void* p, const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(gpu_.Memcpy(p, bytes.data(), bytes.size(), hipMemcpyHostToDevice), hipSuccess);
  }

  static hipFileIOParams_t Entry(hipFileOpcode_t opcode, hipFileHandle_t fh, void* base,
                                 size_t size, int64_t file_offset, int64_t buffer_offset,
                                 void* cookie = nullptr) {
    return testing::BatchEntry(opcode, fh, base, size, file_offset, buffer_offset, cookie);
  }

  // Waits (no timeout) for `count` events of `batch`.
  std::vector<hipFileIOEvents_t> Drain(hipFileBatchHandle_t batch, unsigned count) {
    std::vector<hipFileIOEvents_t> events;
    while (events.size() < count) {
      std::vector<hipFileIOEvents_t> got(count - events.size());
      unsigned nr = static_cast<unsigned>(got.size());
      const Status status = manager().GetStatus(batch, 1, &nr, got.data(), nullptr);
      EXPECT_TRUE(status.ok()) << status.ToString();
      if (!status.ok() || nr == 0) break;
      events.insert(events.end(), got.begin(), got.begin() + nr);
    }
    return events;
  }

  unsigned workers_ = kWorkers;
  testing::TempDir dir_;
  testing::GateSys sys_;
  std::unique_ptr<runtime::GpuRuntime> cpu_;
  testing::FaultRuntime gpu_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<BatchManager> manager_;
  std::vector<int> fds_;
  std::vector<void*> allocations_;
};

}  // namespace hipfile::core
