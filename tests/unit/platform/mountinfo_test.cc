// SPDX-License-Identifier: MIT
#include "platform/mountinfo.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>

namespace hipfile::platform {
namespace {

constexpr char kSample[] =
    "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
    "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "30 22 253:2 / /data rw,noatime - xfs /dev/vdb rw,attr2,inode64\n"
    "31 22 253:3 / /mnt/with\\040space rw master:3 shared:4 - ext4 /dev/vdc rw,data=writeback\n"
    "32 22 0:45 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2,proto=rdma,port=20049\n"
    "garbage line\n"
    "33 22 0:30 / /dev/shm rw - tmpfs tmpfs rw,size=65536k\n"
    "34 22 253:2 /sub /bind rw - xfs /dev/vdb rw,attr2\n";

TEST(ParseMountInfoTest, ParsesEachWellFormedLine) {
  const std::vector<MountEntry> mounts = ParseMountInfo(kSample);
  ASSERT_EQ(mounts.size(), 7u);
  EXPECT_EQ(mounts[0].major, 253u);
  EXPECT_EQ(mounts[0].minor, 1u);
  EXPECT_EQ(mounts[0].mount_point, "/");
  EXPECT_EQ(mounts[0].fs_type, "ext4");
  EXPECT_EQ(mounts[0].source, "/dev/vda1");
  EXPECT_EQ(mounts[0].mount_options, "rw,relatime");
  EXPECT_EQ(mounts[0].super_options, "rw,errors=remount-ro");
}

TEST(ParseMountInfoTest, HandlesOptionalFieldsAndEscapes) {
  const std::vector<MountEntry> mounts = ParseMountInfo(kSample);
  const MountEntry* m = FindMountByDevice(mounts, 253, 3);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->mount_point, "/mnt/with space");
  EXPECT_EQ(m->fs_type, "ext4");
  EXPECT_EQ(m->super_options, "rw,data=writeback");
}

TEST(FindMountByDeviceTest, ReturnsTheLastEntryOrNull) {
  const std::vector<MountEntry> mounts = ParseMountInfo(kSample);
  const MountEntry* m = FindMountByDevice(mounts, 253, 2);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->mount_point, "/bind");
  EXPECT_EQ(FindMountByDevice(mounts, 9, 9), nullptr);
}

TEST(FindMountOptionTest, FindsKeysValuesAndBareFlags) {
  EXPECT_EQ(FindMountOption("rw,data=ordered,barrier", "data"),
            std::optional<std::string>("ordered"));
  EXPECT_EQ(FindMountOption("rw,data=ordered,barrier", "barrier"), std::optional<std::string>(""));
  EXPECT_EQ(FindMountOption("rw,data=ordered", "dat"), std::nullopt);
  EXPECT_EQ(FindMountOption("", "data"), std::nullopt);
  EXPECT_EQ(FindMountOption("proto=tcp", "proto"), std::optional<std::string>("tcp"));
}

TEST(ParseMountInfoTest, FindsTheRootOfThisMachine) {
  std::ifstream in("/proc/self/mountinfo");
  if (!in) GTEST_SKIP() << "no /proc/self/mountinfo";
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<MountEntry> mounts = ParseMountInfo(text.str());
  struct stat st = {};
  ASSERT_EQ(::stat("/proc/self", &st), 0);
  const MountEntry* m = FindMountByDevice(mounts, major(st.st_dev), minor(st.st_dev));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->fs_type, "proc");
}

}  // namespace
}  // namespace hipfile::platform
