// SPDX-License-Identifier: MIT
// hipfile-check's pure parts: io_uring's classification given every refusal (fault injection:
// the facts a probe would observe), the read-path rule, the mount table's parser, the PCIe
// generations, and the exit status's rule.
#include <gtest/gtest.h>

#include <cerrno>

#include "fs_probe.h"
#include "gpu_report.h"
#include "io_uring_probe.h"
#include "mounts.h"
#include "read_path.h"
#include "report.h"

namespace hipfile_check {
namespace {

TEST(ClassifyIoUring, ARingIsUsable) {
  IoUringFacts f;
  f.disabled_sysctl = 0;
  f.memlock_bytes = 8u << 20;
  const IoUring u = ClassifyIoUring(f);
  EXPECT_EQ(u.usable, Tri::kYes);
  EXPECT_EQ(u.setup_result, "ok");
  EXPECT_NE(u.memlock_note.find("8 MiB: enough"), std::string::npos) << u.memlock_note;
}

TEST(ClassifyIoUring, EpermWithoutSysctlNamesSeccomp) {
  IoUringFacts f;
  f.setup_errno = EPERM;
  f.disabled_sysctl = 0;
  const IoUring u = ClassifyIoUring(f);
  EXPECT_EQ(u.usable, Tri::kNo);
  EXPECT_EQ(u.setup_result, "EPERM");
  EXPECT_NE(u.reason.find("seccomp filter (Docker's default profile) is the likely cause"),
            std::string::npos)
      << u.reason;
  EXPECT_NE(u.reason.find("pread/pwrite one after another"), std::string::npos) << u.reason;
}

TEST(ClassifyIoUring, EpermUnderAFilterSaysSo) {
  IoUringFacts f;
  f.setup_errno = EPERM;
  f.seccomp_filtered = true;
  EXPECT_NE(ClassifyIoUring(f).reason.find("by this process's seccomp filter"), std::string::npos);
}

TEST(ClassifyIoUring, SysctlTwoIsDisabled) {
  IoUringFacts f;
  f.setup_errno = EPERM;
  f.disabled_sysctl = 2;
  EXPECT_NE(ClassifyIoUring(f).reason.find("io_uring_disabled is 2"), std::string::npos);
}

TEST(ClassifyIoUring, SysctlOneIsTheGroup) {
  IoUringFacts f;
  f.setup_errno = EPERM;
  f.disabled_sysctl = 1;
  EXPECT_NE(ClassifyIoUring(f).reason.find("io_uring_group"), std::string::npos);
}

TEST(ClassifyIoUring, EnosysIsAKernelWithout) {
  IoUringFacts f;
  f.setup_errno = ENOSYS;
  const IoUring u = ClassifyIoUring(f);
  EXPECT_EQ(u.usable, Tri::kNo);
  EXPECT_NE(u.reason.find("the kernel has no io_uring"), std::string::npos);
}

TEST(ClassifyIoUring, EnomemWithALowChargedMemlockBlamesIt) {
  IoUringFacts f;
  f.setup_errno = ENOMEM;
  f.memlock_charged = true;
  f.memlock_bytes = 4096;
  const IoUring u = ClassifyIoUring(f);
  EXPECT_EQ(u.usable, Tri::kNo);
  EXPECT_NE(u.reason.find("RLIMIT_MEMLOCK is too low"), std::string::npos) << u.reason;
  EXPECT_NE(u.memlock_note.find("too low"), std::string::npos) << u.memlock_note;
}

TEST(ClassifyIoUring, UnlimitedMemlock) {
  IoUringFacts f;
  EXPECT_EQ(ClassifyIoUring(f).memlock_note, "unlimited");
}

TEST(DescribeReadPath, CpuRuntimeReadsStraightIntoMemory) {
  ReadPathInputs in;
  in.device_memory_is_host = true;
  in.o_direct = Tri::kNo;
  in.compat_allowed = false;  // host memory is never refused
  const ReadPath p = DescribeReadPath(in);
  EXPECT_TRUE(p.usable);
  ASSERT_EQ(p.clauses.size(), 1u);
  EXPECT_NE(p.clauses[0].find("pread through the page cache straight into"), std::string::npos);
}

TEST(DescribeReadPath, GpuWithODirectHasThreeWays) {
  ReadPathInputs in;
  in.o_direct = Tri::kYes;
  in.io_uring_usable = Tri::kYes;
  const ReadPath p = DescribeReadPath(in);
  EXPECT_TRUE(p.usable);
  ASSERT_EQ(p.clauses.size(), 4u);
  EXPECT_NE(p.clauses[0].find("pinned page-cache windows, from a window's second read"),
            std::string::npos);
  EXPECT_NE(p.clauses[1].find("O_DIRECT into pinned staging"), std::string::npos);
  EXPECT_NE(p.clauses[2].find("compatibility path"), std::string::npos);
  EXPECT_NE(p.clauses[3].find("one io_uring submission"), std::string::npos);
}

TEST(DescribeReadPath, GpuWithoutODirectIsBufferedStaging) {
  ReadPathInputs in;
  in.o_direct = Tri::kNo;
  in.page_cache = PageCacheSetting::kOff;
  in.io_uring_usable = Tri::kNo;
  const ReadPath p = DescribeReadPath(in);
  EXPECT_TRUE(p.usable);
  EXPECT_NE(p.clauses[0].find("HIPFILE_PAGE_CACHE"), std::string::npos);
  EXPECT_NE(p.clauses[1].find("no O_DIRECT here"), std::string::npos);
  EXPECT_NE(p.clauses[2].find("io_uring cannot be used here"), std::string::npos);
}

TEST(DescribeReadPath, CompatOffWithoutODirectIsUnusable) {
  ReadPathInputs in;
  in.o_direct = Tri::kNo;
  in.compat_allowed = false;
  const ReadPath p = DescribeReadPath(in);
  EXPECT_FALSE(p.usable);
  EXPECT_NE(p.clauses[0].find("refused: this file system has no O_DIRECT"), std::string::npos);
}

TEST(DescribeReadPath, CompatOffWithODirectIsDirectOnly) {
  ReadPathInputs in;
  in.o_direct = Tri::kYes;
  in.compat_allowed = false;
  const ReadPath p = DescribeReadPath(in);
  EXPECT_TRUE(p.usable);
  EXPECT_NE(p.clauses[0].find("O_DIRECT only"), std::string::npos);
}

TEST(ParseMountInfo, FieldsAndEscapes) {
  const std::vector<Mount> m = ParseMountInfo(
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
      "30 24 0:27 / /mnt/a\\040b rw,relatime shared:5 master:1 - tmpfs tmpfs rw,size=4k\n"
      "garbage line\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].major, 254u);
  EXPECT_EQ(m[0].fstype, "ext4");
  EXPECT_EQ(m[0].source, "/dev/vda");
  EXPECT_EQ(m[0].options, "rw,discard");
  EXPECT_EQ(m[1].mount_point, "/mnt/a b");
  EXPECT_EQ(m[1].minor, 27u);
  EXPECT_EQ(m[1].fstype, "tmpfs");
}

TEST(PcieGeneration, FromLinkSpeed) {
  EXPECT_EQ(PcieGeneration("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(PcieGeneration("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(PcieGeneration("2.5 GT/s PCIe"), 1);
  EXPECT_FALSE(PcieGeneration("Unknown"));
  EXPECT_FALSE(PcieGeneration(""));
}

TEST(FileSystemName, KnownAndUnknown) {
  EXPECT_STREQ(FileSystemName(0x01021994), "tmpfs");
  EXPECT_STREQ(FileSystemName(0x858458F6), "ramfs");
  EXPECT_STREQ(FileSystemName(0x12345), "unknown");
}

TEST(CanDoIo, EveryGivenPathMustBeUsable) {
  Report r;
  r.platform.driver_opened = true;
  r.paths_given = true;
  r.paths.resize(2);
  r.paths[0].usable = true;
  EXPECT_FALSE(CanDoIo(r));
  r.paths[1].usable = true;
  EXPECT_TRUE(CanDoIo(r));
  r.platform.driver_opened = false;
  EXPECT_FALSE(CanDoIo(r));
}

TEST(CanDoIo, WithoutPathsOneUsableMountIsEnough) {
  Report r;
  r.platform.driver_opened = true;
  r.paths.resize(2);
  r.paths[1].usable = true;
  EXPECT_TRUE(CanDoIo(r));
}

}  // namespace
}  // namespace hipfile_check
