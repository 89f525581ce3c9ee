// SPDX-License-Identifier: MIT
// hipfile_ext.h's readers of another process's statistics: the process publishes from its first
// hipFile call, and a reader sees what hipFileGetStats* report in that process.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace {

TEST(StatsRegionApiTest, RefusesNullAndAmbiguousSources) {
  hipFileExtStatsRegion_t* region = nullptr;
  EXPECT_EQ(hipFileExtStatsOpen(0, -1, &region).err, hipFileInvalidValue);  // neither
  EXPECT_EQ(hipFileExtStatsOpen(1, 0, &region).err, hipFileInvalidValue);   // both
  EXPECT_EQ(hipFileExtStatsOpen(-5, -1, &region).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtStatsOpen(getpid(), -1, nullptr).err, hipFileInvalidValue);
  hipFileExtProcessStats_t s;
  EXPECT_EQ(hipFileExtStatsRead(nullptr, &s).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtStatsRegionCreate(nullptr).err, hipFileInvalidValue);
  hipFileExtStatsClose(nullptr);
}

TEST(StatsRegionApiTest, NoSuchProcessIsEsrch) {
  hipFileExtStatsRegion_t* region = nullptr;
  EXPECT_EQ(hipFileExtStatsOpen(0x3ffffffe, -1, &region).err, hipFileInternalError);
  EXPECT_EQ(errno, ESRCH);
}

TEST(StatsRegionApiTest, ACreatedRegionIsCloseOnExecAndUnclaimed) {
  int fd = -1;
  ASSERT_EQ(hipFileExtStatsRegionCreate(&fd).err, hipFileSuccess);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(0, fd, &region).err, hipFileSuccess);
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.pid, 0);
  EXPECT_EQ(s.stats.detailed.basic.read_bytes, 0u);
  hipFileExtStatsClose(region);
  close(fd);
}

TEST(StatsRegionApiTest, TheProcessPublishesWhatItsOwnCallsReport) {
  hipFileStatsLevel3_t own;
  ASSERT_EQ(hipFileGetStatsL3(&own).err, hipFileSuccess);  // statistics start here
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess) << errno;
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.pid, getpid());
  EXPECT_EQ(s.level, 1u);
  EXPECT_GT(s.published_unix_ns, 0u);
  ASSERT_EQ(hipFileGetStatsL3(&own).err, hipFileSuccess);
  // uuids aside (a reader cannot ask the process's GPU), the same bytes.
  for (hipFilePerGpuStats_t& g : own.per_gpu_stats) std::memset(g.uuid, 0, sizeof g.uuid);
  EXPECT_EQ(std::memcmp(&own, &s.stats, sizeof own), 0);
  hipFileExtPathStats_t paths;
  ASSERT_EQ(hipFileExtGetPathStats(&paths).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&paths, &s.paths, sizeof paths), 0);
  hipFileExtStatsClose(region);
}

// A child forked without exec counts for itself from the fork on: its parent's published
// counters do not move, and the child still reports its own.
TEST(StatsRegionApiTest, AForkedChildDoesNotCountIntoItsParentsRegion) {
  hipFileStatsLevel1_t before;
  ASSERT_EQ(hipFileGetStatsL1(&before).err, hipFileSuccess);
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A registration of no descriptor fails, and is counted as a failed registration.
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = -1;
    hipFileHandle_t fh = nullptr;
    (void)hipFileHandleRegister(&fh, &descr);
    hipFileStatsLevel1_t own;
    const bool counted = hipFileGetStatsL1(&own).err == hipFileSuccess &&
                         own.hdl_register_ops.err == before.hdl_register_ops.err + 1;
    _exit(counted ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child did not count its own registration";
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.stats.detailed.basic.hdl_register_ops.err, before.hdl_register_ops.err);
  hipFileExtStatsClose(region);
}

}  // namespace
