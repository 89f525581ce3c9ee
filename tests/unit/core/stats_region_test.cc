// SPDX-License-Identifier: MIT
// The statistics region (core/stats_region.h): what a tool maps, how a process adopts the region
// hipfile-stats hands it, and that any failure to publish leaves the statistics in process memory.
#include "core/stats_region.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "core/stats.h"
#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::SysOp;

size_t OpenDescriptors() {
  Result<std::vector<std::string>> names = platform::RealSys().ListDirectory("/proc/self/fd");
  return names.ok() ? names->size() : 0;
}

TEST(StatsRegionTest, IsAMemoryFileOnlyItsUserMayRead) {
  Result<std::unique_ptr<StatsRegion>> region = StatsRegion::Create(platform::RealSys());
  ASSERT_TRUE(region.ok()) << region.status().code();
  struct stat st = {};
  ASSERT_EQ(fstat((*region)->fd(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<std::string> link =
      platform::RealSys().ReadLink(("/proc/self/fd/" + std::to_string((*region)->fd())).c_str());
  ASSERT_TRUE(link.ok());
  // No name in any file system: nothing to clean up after a crash.
  EXPECT_EQ(link->rfind("/memfd:hipfile-stats", 0), 0u) << *link;
  EXPECT_EQ((*region)->header().pid.load(), 0);  // unclaimed
}

TEST(StatsRegionTest, AToolSeesTheLiveCountersOfTheProcessThatClaimedIt) {
  Result<std::unique_ptr<StatsRegion>> region = StatsRegion::Create(platform::RealSys());
  ASSERT_TRUE(region.ok());
  const pid_t self = getpid();
  // Unclaimed, it is no process's statistics yet.
  Result<std::unique_ptr<StatsRegion>> early = StatsRegion::Find(platform::RealSys(), self);
  EXPECT_FALSE(early.ok());
  ASSERT_TRUE((*region)->Claim(self, 1));
  EXPECT_FALSE((*region)->Claim(self + 1, 2));  // one process wins

  Stats stats;
  stats.RecordIo(IoDirection::kRead, 0, true, 4096, 10, false);
  stats.MoveCountersTo((*region)->mutable_counters());
  stats.RecordIo(IoDirection::kWrite, 0, true, 8192, 20, true);
  stats.RecordHandleRegister(true);

  Result<std::unique_ptr<StatsRegion>> found = StatsRegion::Find(platform::RealSys(), self);
  ASSERT_TRUE(found.ok()) << found.status().code();
  EXPECT_EQ((*found)->header().pid.load(), self);
  hipFileStatsLevel3_t mine, theirs;
  hipFileExtPathStats_t my_paths, their_paths;
  FillL3((*found)->counters(), &theirs);
  FillL3(stats.counters(), &mine);
  EXPECT_EQ(std::memcmp(&mine, &theirs, sizeof mine), 0);
  EXPECT_EQ(theirs.detailed.basic.read_bytes, 4096u);  // counted before the move, kept
  EXPECT_EQ(theirs.detailed.basic.write_bytes, 8192u);
  EXPECT_EQ(theirs.detailed.basic.hdl_register_ops.ok, 1u);
  stats.FillPaths(&my_paths);
  FillPaths((*found)->counters(), &their_paths);
  EXPECT_EQ(std::memcmp(&my_paths, &their_paths, sizeof my_paths), 0);
  stats.MoveCountersHome();  // before the region goes
}

TEST(StatsRegionTest, NoSuchProcessIsEsrch) {
  Result<std::unique_ptr<StatsRegion>> found = StatsRegion::Find(platform::RealSys(), 0x3ffffffe);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), ESRCH);
}

TEST(StatsRegionTest, AProcessAdoptsTheRegionItWasHanded) {
  Result<std::unique_ptr<StatsRegion>> handed = StatsRegion::Create(platform::RealSys());
  ASSERT_TRUE(handed.ok());
  EnvSys sys;
  sys.Set(kEnvStatsFd, std::to_string((*handed)->fd()));
  StatsRegion* adopted = PublishProcessStats(sys, 1);
  ASSERT_NE(adopted, nullptr);
  EXPECT_EQ(adopted->fd(), (*handed)->fd());
  EXPECT_EQ((*handed)->header().pid.load(), getpid());
  EXPECT_EQ(sys.Calls(SysOp::kCreateMemoryFile), 0u);
  // A second process seeing it claimed makes its own.
  StatsRegion* own = PublishProcessStats(sys, 1);
  ASSERT_NE(own, nullptr);
  EXPECT_NE(own->fd(), (*handed)->fd());
  EXPECT_EQ(sys.Calls(SysOp::kCreateMemoryFile), 1u);
  delete own;
  delete adopted;  // unmaps; the descriptor stays the handed region's
}

TEST(StatsRegionTest, ADescriptorNamingAnotherFileIsNotAdopted) {
  EnvSys sys;
  sys.Set(kEnvStatsFd, "0");  // stdin, or whatever the test runner gave it
  StatsRegion* own = PublishProcessStats(sys, 1);
  ASSERT_NE(own, nullptr);
  EXPECT_NE(own->fd(), 0);
  EXPECT_EQ(sys.Calls(SysOp::kCreateMemoryFile), 1u);
  delete own;
  sys.Set(kEnvStatsFd, "12abc");
  own = PublishProcessStats(sys, 1);
  ASSERT_NE(own, nullptr);
  delete own;
}

// No memory file (seccomp, no memfd_create, descriptors exhausted) or no room for it: statistics
// stay in process memory, with one warning, and no descriptor is left open.
TEST(StatsRegionTest, FailureToPublishLeavesStatisticsInProcessMemory) {
  for (const SysOp op : {SysOp::kCreateMemoryFile, SysOp::kFtruncate, SysOp::kMmap}) {
    EnvSys sys;
    sys.FailAlways(op, op == SysOp::kFtruncate ? ENOSPC : ENOSYS);
    const size_t before = OpenDescriptors();
    EXPECT_EQ(PublishProcessStats(sys, 1), nullptr);
    EXPECT_EQ(OpenDescriptors(), before);
    Stats stats;
    stats.RecordIo(IoDirection::kRead, 0, true, 4096, 1, false);
    hipFileStatsLevel1_t l1;
    stats.FillL1(&l1);
    EXPECT_EQ(l1.read_bytes, 4096u);
  }
}

TEST(StatsRegionTest, MapRefusesAFileThatIsNoRegion) {
  Result<int> fd = platform::RealSys().CreateMemoryFile("not-a-region", 0);
  ASSERT_TRUE(fd.ok());
  ASSERT_TRUE(platform::RealSys().Ftruncate(*fd, 65536).ok());
  Result<std::unique_ptr<StatsRegion>> mapped =
      StatsRegion::Map(platform::RealSys(), *fd, false, false);
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().code(), EINVAL);
  close(*fd);
}

// A tool and a program of different versions of the library: the region's layout version
// differs, and the reader says so (EPROTO) rather than read the words wrong or say "none".
TEST(StatsRegionTest, ARegionOfAnotherLayoutVersionIsRefusedClearly) {
  for (const uint32_t version : {kStatsRegionVersion - 1, kStatsRegionVersion + 1}) {
    Result<std::unique_ptr<StatsRegion>> region = StatsRegion::Create(platform::RealSys());
    ASSERT_TRUE(region.ok());
    ASSERT_TRUE((*region)->Claim(getpid(), 1));
    const int fd = (*region)->fd();
    ASSERT_EQ(pwrite(fd, &version, sizeof version, offsetof(StatsRegionHeader, version)),
              static_cast<ssize_t>(sizeof version));
    Result<std::unique_ptr<StatsRegion>> mapped =
        StatsRegion::Map(platform::RealSys(), fd, false, false);
    ASSERT_FALSE(mapped.ok());
    EXPECT_EQ(mapped.status().code(), EPROTO) << "version " << version;
    // Found through /proc/PID/fd, it is reported as such, not as no statistics.
    Result<std::unique_ptr<StatsRegion>> found = StatsRegion::Find(platform::RealSys(), getpid());
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.status().code(), EPROTO) << "version " << version;
  }
}

// At level 0 a process publishes too (its level, and zeros), as AMD's does.
TEST(StatsRegionTest, LevelZeroPublishesARegion) {
  EnvSys sys;
  StatsRegion* own = PublishProcessStats(sys, 0);
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->header().pid.load(), getpid());
  delete own;
}

}  // namespace
}  // namespace hipfile::core
