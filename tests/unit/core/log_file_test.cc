// SPDX-License-Identifier: MIT
// The log file (core/log_file.h) and what the driver says there: the file named by
// hipFileParamEnvLogfilePath or LogDir, created 0600 and appended to; one that cannot be opened
// said once on stderr, with logging left where it was; and at info, one line per registered file
// naming its path and what its reads and writes will take.
#include "core/log_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/file.h"
#include "core_test_util.h"
#include "fakes/temp_dir.h"
#include "util/log.h"

namespace hipfile::core {
namespace {

class LogFileTest : public CoreTest {
 protected:
  void TearDown() override {
    (void)UseLogFile(sys_, "");
    SetLogLevel(saved_);
  }
  LogLevel saved_ = GetLogLevel();
};

TEST(LogFilePathTest, ThePathWinsOverTheDirectory) {
  EXPECT_EQ(LogFilePathFor("/a/b.log", "/logs", 12), "/a/b.log");
  EXPECT_EQ(LogFilePathFor("", "/logs", 12), "/logs/hipfile_12.log");
  EXPECT_EQ(LogFilePathFor("", "/logs//", 12), "/logs/hipfile_12.log");
  EXPECT_EQ(LogFilePathFor("", "/", 7), "/hipfile_7.log");
  EXPECT_EQ(LogFilePathFor("", "rel", 7), "rel/hipfile_7.log");
  EXPECT_EQ(LogFilePathFor("", "", 12), "");
}

TEST_F(LogFileTest, TheFileIsCreated0600AndAppendedTo) {
  const std::string path = dir_.File("hipfile.log");
  testing::WriteFileOrDie(path, {'o', 'l', 'd', '\n'});
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(UseLogFile(sys_, path));
  Log(LogLevel::kWarn, "appended");
  EXPECT_EQ(hipfile::testing::ReadTextOrEmpty(path).rfind("old\n", 0), 0u)
      << "the file was truncated";
  EXPECT_NE(hipfile::testing::ReadTextOrEmpty(path).find("hipfile[warn]: appended\n"),
            std::string::npos);

  const std::string fresh = dir_.File("fresh.log");
  const mode_t old_mask = ::umask(0);
  const bool used = UseLogFile(sys_, fresh);
  ::umask(old_mask);
  ASSERT_TRUE(used);
  struct stat st = {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(LogFileTest, AFileThatCannotBeOpenedIsSaidOnceOnStderrAndLoggingStays) {
  const std::string path = dir_.File("no-such-dir/hipfile.log");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(UseLogFile(sys_, path));
  EXPECT_FALSE(UseLogFile(sys_, path));
  Log(LogLevel::kWarn, "still here");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("hipfile[error]: the log file " + path +
                     " cannot be opened (errno 2 (No such file or directory)"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("cannot be opened"), err.rfind("cannot be opened")) << "said twice: " << err;
  EXPECT_NE(err.find("hipfile[warn]: still here"), std::string::npos) << err;
  EXPECT_FALSE(LoggingToFile());

  // A fault of the open itself (Sys::Open), while another file is in use: that one stays.
  const std::string good = dir_.File("good.log");
  ASSERT_TRUE(UseLogFile(sys_, good));
  sys_.FailNth(testing::SysOp::kOpen, 1, EACCES);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(UseLogFile(sys_, dir_.File("other.log")));
  Log(LogLevel::kWarn, "to the good one");
  const std::string err2 = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err2.find("cannot be opened (errno 13 (Permission denied)"), std::string::npos) << err2;
  EXPECT_NE(err2.find("logging to " + good), std::string::npos) << err2;
  EXPECT_NE(hipfile::testing::ReadTextOrEmpty(good).find("to the good one"), std::string::npos);
}

TEST_F(LogFileTest, TheDriverOpensTheParametersFileAndSaysEachRegistration) {
  const std::string log = dir_.File("driver.log");
  ASSERT_TRUE(driver().SetParameterString(hipFileParamEnvLogfilePath, log).ok());
  ASSERT_TRUE(driver().SetParameterString(hipFileParamLoggingLevel, "info").ok());
  ASSERT_TRUE(driver().Open().ok());
  const std::string data = MakeFile("data.bin", 1 << 20);
  ScopedFd fd(data, O_RDWR);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  driver().DeregisterHandle(*handle);
  ASSERT_TRUE(driver().Close().ok());
  const std::string text = hipfile::testing::ReadTextOrEmpty(log);
  EXPECT_NE(text.find("hipfile[info]: driver opened on the "), std::string::npos) << text;
  const std::string line =
      "hipfile[info]: hipFileHandleRegister: fd " + std::to_string(fd.get()) + " is " + data + " (";
  const size_t at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string rest = text.substr(at, text.find('\n', at) - at);
  EXPECT_NE(rest.find("O_DIRECT: "), std::string::npos) << rest;
  EXPECT_NE(rest.find("host memory: pread/pwrite straight into and out of the buffer"),
            std::string::npos)
      << rest;
}

TEST_F(LogFileTest, NoRegistrationLineBelowInfo) {
  SetLogLevel(LogLevel::kWarn);
  const std::string data = MakeFile("data.bin", 4096);
  ScopedFd fd(data, O_RDWR);
  ::testing::internal::CaptureStderr();
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  driver().DeregisterHandle(*handle);
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("hipFileHandleRegister: fd"),
            std::string::npos);
  EXPECT_EQ(sys_.Calls(testing::SysOp::kReadLink), 0u);
}

TEST(DescribeRegistrationTest, SaysWhatReadsAndWritesTakeAndWhy) {
  FileInfo info;
  info.client_fd = 9;
  info.is_regular = true;
  info.fs.found = true;
  info.fs.name = "ext4";
  info.fs.type = FsType::kExt4;
  info.fs.ext4_data = Ext4DataMode::kOrdered;
  info.io.direct_fd = 11;
  info.io.buffered_fd = 12;
  info.io.dio_mem_align = 512;
  info.io.dio_offset_align = 4096;
  IoPathChoice gpu;
  gpu.page_cache = true;
  std::string line = DescribeRegistration(info, "/data/a.bin", gpu);
  EXPECT_EQ(line,
            "hipFileHandleRegister: fd 9 is /data/a.bin (ext4 data=ordered, regular file); "
            "O_DIRECT: yes, alignment 512 B memory, 4096 B offset and size; GPU memory: reads "
            "of 1 MiB and more: resident data from pinned page-cache windows (a window pinned "
            "at read 2 of it), the aligned body of cold data by O_DIRECT into pinned staging, "
            "the rest by pread through pinned staging; writes: the page-aligned body by "
            "O_DIRECT from pinned staging (buffered while pages of the file are pinned), head "
            "and tail by pwrite through pinned staging; host memory: pread/pwrite straight into "
            "and out of the buffer, O_DIRECT for aligned cold data");

  // tmpfs: no O_DIRECT; on the CPU runtime GPU memory is host memory.
  info.fs.name = "tmpfs";
  info.fs.type = FsType::kTmpfs;
  info.io.direct_fd = -1;
  info.io.dio_mem_align = info.io.dio_offset_align = 0;
  IoPathChoice cpu;
  cpu.device_memory_staged = false;
  cpu.write_through = true;
  line = DescribeRegistration(info, "/dev/shm/b", cpu);
  EXPECT_EQ(line,
            "hipFileHandleRegister: fd 9 is /dev/shm/b (tmpfs, regular file); O_DIRECT: no (the "
            "file system refuses it); GPU memory is host memory on this runtime: moved as host "
            "memory; host memory: pread/pwrite straight into and out of the buffer; every write "
            "followed by fdatasync (HIPFILE_WRITE_THROUGH)");

  // Compatibility path off, no page cache, no O_DIRECT: said as refused.
  IoPathChoice strict;
  strict.allow_compat = false;
  line = DescribeRegistration(info, "/dev/shm/b", strict);
  EXPECT_NE(line.find("GPU memory: reads: (no page-cache windows, no O_DIRECT) all by pread "
                      "refused (HIPFILE_ALLOW_COMPAT_MODE=false"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace hipfile::core
