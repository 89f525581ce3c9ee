// SPDX-License-Identifier: MIT
// AsyncWindowsTest: the fixture of the stream-ordered reads served from pinned page-cache windows
// (docs/async.md, "Reads copied from windows at submission" and "Reads copied ahead into device
// memory"): an IoPathTest whose Driver copies at submission and runs nothing at once on an idle
// stream, with a non-blocking stream, a file of kFile bytes and a way to pin its window (64 MiB,
// the Driver's) by synchronous reads.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/config.h"
#include "fakes/wait_until.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {

class AsyncWindowsTest : public IoPathTest {
 protected:
  static constexpr size_t kFile = (size_t{8} << 20) + 12345;
  static constexpr size_t kBuffer = size_t{9} << 20;

  // `adjust` changes the Driver's configuration further.
  explicit AsyncWindowsTest(const runtime::CpuRuntimeOptions& options = {},
                            const std::function<void(Config&)>& adjust = {})
      : IoPathTest(kBuffer, options) {
    driver_.reset();
    Config config = ParseConfig(sys_);
    config.page_cache_pin_ahead = 0;
    config.async_run_idle_kb = 0;  // the copies, not running at once
    config.async_copy_at_submission = true;
    if (adjust) adjust(config);
    driver_ = std::make_unique<Driver>(sys_, gpu_, config);
    EXPECT_TRUE(driver_->Open().ok());
    EXPECT_EQ(gpu_.StreamCreate(&stream_, hipStreamNonBlocking), hipSuccess);
  }
  ~AsyncWindowsTest() override {
    if (other_ != nullptr) (void)gpu_.StreamDestroy(other_);
    if (other_dev_ != nullptr) (void)gpu_.Free(other_dev_);
  }

  // A second stream of the device, with a buffer of its own: other_, other_dev_ (once a test).
  void MakeOtherStream() {
    ASSERT_EQ(gpu_.Malloc(&other_dev_, kBuffer), hipSuccess);
    ASSERT_EQ(gpu_.StreamCreate(&other_, hipStreamNonBlocking), hipSuccess);
  }

  // Waits (10 s at most) until the device memory leased for copies ahead is `bytes`: the last
  // lease of a region may go on the reaper's thread a moment after the reads finished.
  void ExpectLeasedSettlesAt(uint64_t bytes) {
    testing::WaitUntil([&] { return Executor().DeviceScratchLeased(0) == bytes; });
    EXPECT_EQ(Executor().DeviceScratchLeased(0), bytes);
  }

  // Synchronous reads of the whole file, twice: its window is pinned (pin-after 2).
  void PinBySyncReads(void* fh) {
    for (int i = 0; i < 2; ++i) {
      const Result<size_t> n = driver_->Read(fh, dev_, kFile, 0, 0);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
    }
    ASSERT_GT(gpu_.Calls(testing::GpuOp::kHostRegister), 0u) << "the second read pins its window";
  }

  // `buffer` (device memory) holds the file's bytes [offset, offset + size) at `at`.
  bool HoldsFile(void* buffer, size_t at, off_t offset, size_t size) {
    const std::vector<unsigned char> file = testing::PatternBytes(kFile);
    std::vector<unsigned char> got(size);
    EXPECT_EQ(gpu_.Memcpy(got.data(), static_cast<char*>(buffer) + at, size, hipMemcpyDeviceToHost),
              hipSuccess);
    return std::equal(got.begin(), got.end(), file.begin() + offset);
  }
  void Sync() { ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess); }

  // A read submitted as `slot` on stream_, held busy meanwhile, whose values are changed to
  // `bound`'s once `submitted` (what to check of the submission) ran, before the stream gets
  // there: the read moves `bound`'s bytes, every one right.
  void ReadRebound(void* fh, AsyncSlot slot, const AsyncSlot& bound,
                   const std::function<void()>& submitted) {
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(stream_, &testing::StreamGate::Wait, &gate), hipSuccess);
    ASSERT_TRUE(SubmitSlot(fh, &slot).ok());
    submitted();
    slot.file_offset = bound.file_offset;
    slot.size = bound.size;
    slot.buffer_offset = bound.buffer_offset;
    gate.Open();
    Sync();
    EXPECT_EQ(slot.bytes, static_cast<ssize_t>(bound.size));
    EXPECT_TRUE(
        HoldsFile(dev_, static_cast<size_t>(bound.buffer_offset), bound.file_offset, bound.size));
  }

  runtime::Stream other_ = nullptr;
  void* other_dev_ = nullptr;
  Watchdog watchdog_{std::chrono::seconds(60)};
};

}  // namespace hipfile::core
