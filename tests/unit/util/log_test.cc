// SPDX-License-Identifier: MIT
// The log line's format and the log file: lines with time, pid:tid, thread name and level, each
// whole whatever the number of threads writing, to stderr or to the file handed to SetLogFile.
#include "util/log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <regex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fakes/temp_dir.h"
#include "util/thread_name.h"

namespace hipfile {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Whether `s` matches the POSIX extended regular expression `pattern`, with its groups in
// *groups (0: the whole match). Not std::regex: GCC 12 reports a false maybe-uninitialized inside
// it when optimizing with sanitizers (CI's ASan build).
bool Match(const char* pattern, const std::string& s, std::vector<std::string>* groups) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED) != 0) return false;
  regmatch_t m[8];
  const bool ok = regexec(&re, s.c_str(), 8, m, 0) == 0;
  regfree(&re);
  if (!ok) return false;
  groups->clear();
  for (const regmatch_t& g : m) {
    groups->push_back(g.rm_so < 0 ? std::string()
                                  : s.substr(static_cast<size_t>(g.rm_so),
                                             static_cast<size_t>(g.rm_eo - g.rm_so)));
  }
  return true;
}

// "2026-12-02T08:51:47.123456Z [pid:tid name] hipfile[level]: message"
constexpr char kLine[] =
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z \\[([0-9]+):([0-9]+) "
    "([^]]*)\\] hipfile\\[([a-z]+)\\]: (.*)$";

class LogFileTest : public ::testing::Test {
 protected:
  void SetUp() override { SetLogLevel(LogLevel::kDebug); }
  void TearDown() override {
    SetLogFile(-1);
    SetLogLevel(saved_);
  }
  int OpenLog(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << path;
    return fd;
  }
  LogLevel saved_ = GetLogLevel();
  testing::TempDir dir_;
};

TEST(LogFormatTest, PrefixHasUtcTimeWithMicrosecondsPidTidThreadAndLevel) {
  char out[256];
  // 2026-12-02 08:51:47 UTC and 123456 us.
  const int64_t us = int64_t{1764665507} * 1000000 + 123456;
  const size_t n = FormatLogPrefix(out, sizeof out, us, 4242, 4250, "hf-engine-3", LogLevel::kWarn);
  EXPECT_EQ(std::string(out),
            "2025-12-02T08:51:47.123456Z [4242:4250 hf-engine-3] hipfile[warn]: ");
  EXPECT_EQ(n, std::string(out).size());
  // Leading zeros of the microseconds are kept.
  FormatLogPrefix(out, sizeof out, int64_t{0} * 1000000 + 7, 1, 1, "x", LogLevel::kInfo);
  EXPECT_EQ(std::string(out), "1970-01-01T00:00:00.000007Z [1:1 x] hipfile[info]: ");
}

TEST(LogFormatTest, PrefixIsCutToTheBuffer) {
  char out[12];
  const size_t n = FormatLogPrefix(out, sizeof out, 0, 1, 1, "x", LogLevel::kError);
  EXPECT_EQ(n, sizeof out - 1);
  EXPECT_EQ(std::string(out), "1970-01-01T");
  EXPECT_EQ(FormatLogPrefix(out, 0, 0, 1, 1, "x", LogLevel::kError), 0u);
}

TEST_F(LogFileTest, StderrLinesCarryTheSameFormat) {
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "to stderr %d", 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> m;
  const std::string line = err.substr(0, err.find('\n'));
  ASSERT_TRUE(Match(kLine, line, &m)) << err;
  EXPECT_EQ(m[1], std::to_string(::getpid()));
  EXPECT_EQ(m[2], std::to_string(::syscall(SYS_gettid)));
  EXPECT_EQ(m[4], "warn");
  EXPECT_EQ(m[5], "to stderr 1");
}

TEST_F(LogFileTest, LinesGoToTheFileWithTheThreadsNames) {
  const std::string path = dir_.File("hipfile.log");
  ASSERT_TRUE(SetLogFile(OpenLog(path)));
  EXPECT_TRUE(LoggingToFile());
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kError, "from the test's thread");
  std::thread([] {
    NameThisThread("engine", 3);
    Log(LogLevel::kInfo, "from a named thread");
  }).join();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "lines went to stderr too";
  const std::vector<std::string> lines = Lines(hipfile::testing::ReadTextOrEmpty(path));
  ASSERT_EQ(lines.size(), 2u) << hipfile::testing::ReadTextOrEmpty(path);
  std::vector<std::string> m;
  ASSERT_TRUE(Match(kLine, lines[0], &m)) << lines[0];
  EXPECT_EQ(m[4], "error");
  EXPECT_EQ(m[5], "from the test's thread");
  ASSERT_TRUE(Match(kLine, lines[1], &m)) << lines[1];
  EXPECT_EQ(m[3], "hf-engine-3");
  EXPECT_EQ(m[4], "info");
  EXPECT_EQ(m[5], "from a named thread");
}

TEST_F(LogFileTest, AnotherFileTakesOverAndStderrComesBack) {
  const std::string first = dir_.File("first.log");
  const std::string second = dir_.File("second.log");
  ASSERT_TRUE(SetLogFile(OpenLog(first)));
  Log(LogLevel::kWarn, "one");
  ASSERT_TRUE(SetLogFile(OpenLog(second)));
  Log(LogLevel::kWarn, "two");
  ASSERT_TRUE(SetLogFile(-1));
  EXPECT_FALSE(LoggingToFile());
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "three");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("hipfile[warn]: three\n"), std::string::npos) << err;
  const std::string a = hipfile::testing::ReadTextOrEmpty(first);
  const std::string b = hipfile::testing::ReadTextOrEmpty(second);
  EXPECT_NE(a.find("hipfile[warn]: one\n"), std::string::npos) << a;
  EXPECT_EQ(a.find("two"), std::string::npos) << a;
  EXPECT_NE(b.find("hipfile[warn]: two\n"), std::string::npos) << b;
  EXPECT_EQ(b.find("three"), std::string::npos) << b;
}

TEST_F(LogFileTest, LinesOfManyThreadsStayWhole) {
  const std::string path = dir_.File("threads.log");
  ASSERT_TRUE(SetLogFile(OpenLog(path)));
  constexpr int kThreads = 8;
  constexpr int kEach = 200;
  const std::string filler(300, 'x');  // long lines, so interleaved writes would show
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &filler] {
      NameThisThread("batch", t);
      for (int i = 0; i < kEach; ++i) Log(LogLevel::kWarn, "t%d i%d %s", t, i, filler.c_str());
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<std::string> lines = Lines(hipfile::testing::ReadTextOrEmpty(path));
  ASSERT_EQ(lines.size(), size_t{kThreads * kEach});
  const char* const message = "^t([0-9]) i([0-9]+) x{300}$";
  for (const std::string& line : lines) {
    std::vector<std::string> m;
    ASSERT_TRUE(Match(kLine, line, &m)) << line;
    const std::string text = m[5];
    std::vector<std::string> t;
    ASSERT_TRUE(Match(message, text, &t)) << line;
    EXPECT_EQ(m[3], "hf-batch-" + t[1]) << line;
  }
}

TEST_F(LogFileTest, LoggingLeavesErrnoAlone) {
  errno = EXDEV;
  Log(LogLevel::kDebug, "%s", "");
  LogToStderr(LogLevel::kDebug, "x");
  EXPECT_EQ(errno, EXDEV);
}

TEST_F(LogFileTest, LongMessagesAreCutNotOverrun) {
  const std::string path = dir_.File("long.log");
  ASSERT_TRUE(SetLogFile(OpenLog(path)));
  const std::string huge(20000, 'y');
  Log(LogLevel::kWarn, "%s", huge.c_str());
  const std::vector<std::string> lines = Lines(hipfile::testing::ReadTextOrEmpty(path));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_GT(lines[0].size(), 4096u);
  EXPECT_LT(lines[0].size(), 20000u);
}

TEST_F(LogFileTest, OnceSaysItOncePerCallSite) {
  const std::string path = dir_.File("once.log");
  ASSERT_TRUE(SetLogFile(OpenLog(path)));
  for (int i = 0; i < 3; ++i) HF_LOG_ONCE(kWarn, "fallback %d", i);
  const std::vector<std::string> lines = Lines(hipfile::testing::ReadTextOrEmpty(path));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("fallback 0"), std::string::npos);
}

}  // namespace
}  // namespace hipfile
