// SPDX-License-Identifier: MIT
// Waits for the engine's copies (hipFileExtGetCopyWaitStats; docs/stats.md, "Waits for the
// library's copies"): a staged transfer counts each wait for its copies, and whether the copies
// were done within HIPFILE_COPY_SPIN_US or the wait slept, with the time polled and asleep; at
// statistics level 0 nothing is counted. On the synchronous and batch paths (stream-ordered
// operations are copied by their streams, with no such wait), through a core::Driver on
// FaultRuntime over the CPU runtime (the staged path of a GPU), whose copies are made slow by a
// host function of 100 ms ahead of each on its stream (HoldMemcpies).
#include <gtest/gtest.h>
#include <hipfile_ext.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/config.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

constexpr size_t kFile = 256 * 1024;
// Long enough that a waiting thread is not kept off a core for all of it on a loaded machine.
constexpr auto kHeld = std::chrono::milliseconds(100);

void HoldTheCopy(void*) { std::this_thread::sleep_for(kHeld); }

class CopyWaitStatsTest : public IoPathTest {
 protected:
  hipFileExtCopyWaitStats_t Waits() {
    hipFileExtCopyWaitStats_t w;
    std::memset(&w, 0xff, sizeof w);  // every field must be written
    driver_->stats().FillCopyWaits(&w);
    return w;
  }
  // A read and a write of 64 KiB of device memory (staged), each of every byte asked for.
  void ReadAndWrite() {
    void* fh = OpenFile("f.bin", kFile);
    EXPECT_EQ(Run(IoDirection::kRead, fh, 64 * 1024, 0).bytes, size_t{64 * 1024});
    EXPECT_EQ(Run(IoDirection::kWrite, fh, 64 * 1024, 64 * 1024).bytes, size_t{64 * 1024});
  }
};

TEST_P(CopyWaitStatsTest, EachStagedTransferCountsItsWaits) {
  ReadAndWrite();
  const hipFileExtCopyWaitStats_t w = Waits();
  EXPECT_GE(w.waits, 2u) << "a read and a write, each waiting for its copy";
  EXPECT_LE(w.slept, w.waits);
  EXPECT_EQ(w.slept == 0, w.sleep_ns == 0) << "time asleep without a wait that slept, or none";
  for (const uint64_t r : w.reserved) EXPECT_EQ(r, 0u);
}

// Copies that take longer than the spin (20 us here) are slept for: every wait that slept
// counts, and its time asleep is at least what held the copy.
TEST_P(CopyWaitStatsTest, ACopyPastTheSpinIsSleptFor) {
  gpu_.HoldMemcpies(&HoldTheCopy, nullptr);
  ReadAndWrite();
  gpu_.HoldMemcpies(nullptr, nullptr);
  const hipFileExtCopyWaitStats_t w = Waits();
  EXPECT_GE(w.slept, 2u) << "waits: " << w.waits;
  EXPECT_LE(w.slept, w.waits);
  // Each slept wait polled the spin's 20 us first and then slept until its copy was let go (a
  // wait may begin late in its copy's hold on a loaded machine: 1 ms of the two 100 ms holds is
  // counted on).
  EXPECT_GE(w.poll_ns, w.slept * 20'000);
  EXPECT_GE(w.sleep_ns, 1'000'000u);
}

// With a spin longer than the copies, the same waits poll to the end and none sleeps: the time
// is counted as polled (a busy core's).
TEST_P(CopyWaitStatsTest, ASpinLongerThanTheCopyPollsToTheEnd) {
  Remake([](Config& c) { c.copy_spin_us = 10 * 1000 * 1000; });
  gpu_.HoldMemcpies(&HoldTheCopy, nullptr);
  ReadAndWrite();
  gpu_.HoldMemcpies(nullptr, nullptr);
  const hipFileExtCopyWaitStats_t w = Waits();
  EXPECT_GE(w.waits, 2u);
  EXPECT_EQ(w.slept, 0u);
  EXPECT_EQ(w.sleep_ns, 0u);
  EXPECT_GE(w.poll_ns, 1'000'000u) << "the holds were polled through";
}

TEST_P(CopyWaitStatsTest, NothingIsCountedAtLevelZero) {
  Remake([](Config& c) { c.stats_level = 0; });
  gpu_.HoldMemcpies(&HoldTheCopy, nullptr);
  ReadAndWrite();
  gpu_.HoldMemcpies(nullptr, nullptr);
  const hipFileExtCopyWaitStats_t w = Waits();
  EXPECT_EQ(w.waits + w.slept + w.poll_ns + w.sleep_ns, 0u);
}

INSTANTIATE_TEST_SUITE_P(Paths, CopyWaitStatsTest, ::testing::Values(Path::kSync, Path::kBatch),
                         PathName);

}  // namespace
}  // namespace hipfile::core
