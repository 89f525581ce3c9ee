// SPDX-License-Identifier: MIT
// hipfile-check's pure parts: io_uring's classification given every refusal (fault injection:
// the facts a probe would observe), the read path put into words, a parameter set by the API, the
// mount table's parser, the PCIe generations, and the exit status's rule.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "config_report.h"
#include "cufile_probe.h"
#include "fs_probe.h"
#include "gpu_report.h"
#include "io_uring_probe.h"
#include "mounts.h"
#include "output.h"
#include "read_path.h"
#include "report.h"

namespace hipfile_check {
namespace {

// The loader's order for libcufile.so.0: LD_LIBRARY_PATH's folders, then /etc/ld.so.conf's, then
// the default ones; the first holding it wins and is asked what it is.
TEST(LookUpCufile, FollowsTheLoadersOrder) {
  CufileFacts f;
  f.ld_library_path = "/a::/b";
  f.conf_folders = {"/conf"};
  f.default_folders = {"/usr/lib"};
  std::set<std::string> files = {"/b/libcufile.so.0", "/conf/libcufile.so.0",
                                 "/usr/lib/libcufile.so.0"};
  auto exists = [&](const std::string& p) { return files.count(p) != 0; };
  auto kind = [](const std::string& p) {
    return p.rfind("/b/", 0) == 0 ? CufileKind::kDropIn : CufileKind::kOther;
  };
  Cufile c = LookUpCufile(f, exists, kind);
  EXPECT_EQ(c.resolved, "/b/libcufile.so.0");
  EXPECT_EQ(c.how, "LD_LIBRARY_PATH");
  EXPECT_EQ(c.is_dropin, Tri::kYes);

  files.erase("/b/libcufile.so.0");
  c = LookUpCufile(f, exists, kind);
  EXPECT_EQ(c.resolved, "/conf/libcufile.so.0");
  EXPECT_EQ(c.how, "/etc/ld.so.conf");
  EXPECT_EQ(c.is_dropin, Tri::kNo);

  files.erase("/conf/libcufile.so.0");
  c = LookUpCufile(f, exists, kind);
  EXPECT_EQ(c.resolved, "/usr/lib/libcufile.so.0");
  EXPECT_EQ(c.how, "the loader's default folders");

  files.clear();
  c = LookUpCufile(f, exists, kind);
  EXPECT_EQ(c.resolved, "");
  EXPECT_EQ(c.is_dropin, Tri::kNo);
}

TEST(ReadLdSoConf, FollowsIncludesInOrderOnce) {
  const std::string dir = ::testing::TempDir() + "/ldsoconf";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir + "/conf.d").c_str()), 0);
  std::ofstream(dir + "/ld.so.conf") << "# comment\n/first\ninclude conf.d/*.conf\n/last  # x\n";
  std::ofstream(dir + "/conf.d/a.conf") << "/from-a\n/first\n";
  std::ofstream(dir + "/conf.d/b.conf") << "hwcap 0 nosegneg\n/from-b\n";
  const std::vector<std::string> got = ReadLdSoConf(dir + "/ld.so.conf");
  EXPECT_EQ(got, (std::vector<std::string>{"/first", "/from-a", "/from-b", "/last"}));
  EXPECT_TRUE(ReadLdSoConf(dir + "/missing.conf").empty());
}

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

// The read path is the library's answer (hipFileExtGetIoRule), put into words here.
hipFileExtIoRule_t StagedRule() {
  hipFileExtIoRule_t r = {};
  r.o_direct = 1;
  r.staged = 1;
  r.compat_allowed = 1;
  r.page_cache = 1;
  r.pin_after = 2;
  r.io_uring = 1;
  r.residency_min_bytes = 1u << 20;
  r.grouped_max_bytes = 256u << 10;
  for (hipFileExtIoWay_t& w : r.ways) w.path = hipFileExtPathDirect;
  r.ways[hipFileExtIoReadWarm].path = hipFileExtPathPageCache;
  r.ways[hipFileExtIoReadUnaligned] = {hipFileExtPathBuffered, hipFileExtFallbackUnaligned, 0, 0};
  r.ways[hipFileExtIoBatchSmall].path = hipFileExtPathIoUring;
  return r;
}

TEST(DescribeReadPath, SaysEachCaseInTheLibrarysNames) {
  const ReadPath p = DescribeReadPath(StagedRule());
  EXPECT_TRUE(p.usable);
  ASSERT_EQ(p.clauses.size(), 1u + HIPFILE_EXT_IO_CASE_COUNT);
  EXPECT_EQ(p.clauses[0],
            "GPU memory through pinned staging; reads under 1 MiB are small; a page-cache window "
            "pinned at its second read; batch entries up to 256 KiB grouped, one io_uring "
            "submission");
  EXPECT_EQ(p.clauses[1 + hipFileExtIoReadWarm], "read_warm           page_cache");
  EXPECT_EQ(p.clauses[1 + hipFileExtIoReadCold], "read_cold           direct");
  EXPECT_EQ(p.clauses[1 + hipFileExtIoReadUnaligned], "read_unaligned      buffered (unaligned)");
  EXPECT_EQ(p.clauses[1 + hipFileExtIoBatchSmall], "batch_small         io_uring");
}

TEST(DescribeReadPath, ColdReadsRefusedAreUnusable) {
  hipFileExtIoRule_t r = StagedRule();
  r.compat_allowed = 0;
  r.ways[hipFileExtIoReadCold] = {hipFileExtPathBuffered, hipFileExtFallbackNoDirect, 0, 1};
  const ReadPath p = DescribeReadPath(r);
  EXPECT_FALSE(p.usable);
  EXPECT_EQ(p.clauses[1 + hipFileExtIoReadCold],
            "read_cold           refused: buffered (no_direct), and the compatibility path is off");
}

TEST(DescribeReadPath, HostMemorySaysODirect) {
  hipFileExtIoWay_t w = {hipFileExtPathHost, hipFileExtFallbackNone, 1, 0};
  EXPECT_EQ(WayText(w), "host, O_DIRECT");
  w = {hipFileExtPathHost, hipFileExtFallbackWarm, 0, 0};
  EXPECT_EQ(WayText(w), "host (warm)");
}

// A parameter this process set through the API is said to come from `api`, as the library says.
TEST(ReadConfig, ParameterSetByApiIsApi) {
  ASSERT_EQ(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOQueueDepth, 77).err, hipFileSuccess);
  const Config c = ReadConfig();
  bool found = false;
  for (const Parameter& p : c.parameters) {
    if (p.name != "hipFileParamExecutionMaxIOQueueDepth") continue;
    found = true;
    EXPECT_EQ(p.value, "77");
    EXPECT_EQ(p.source, Source::kApi);
    EXPECT_STREQ(SourceName(p.source), "api");
  }
  EXPECT_TRUE(found);
  Report r;
  r.config = c;
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  ASSERT_NE(out, nullptr);
  PrintText(r, out);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("hipFileParamExecutionMaxIOQueueDepth             77       api\n"),
            std::string::npos)
      << printed;
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

TEST(UuidText, HexGroupsOrNothing) {
  const char cpu[16] = {'h', 'i', 'p', 'f', 'i', 'l', 'e', '-',
                        'c', 'p', 'u', '-', 'd', 'e', 'v', '3'};
  EXPECT_EQ(UuidText(cpu), "68697066-696c-652d-6370-752d64657633");
  const char high[16] = {'\xff', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\x80'};
  EXPECT_EQ(UuidText(high), "ff000000-0000-0000-0000-000000000080");
  const char zero[16] = {};
  EXPECT_EQ(UuidText(zero), "");
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
