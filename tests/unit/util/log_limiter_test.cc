// SPDX-License-Identifier: MIT
#include "util/log_limiter.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "util/log.h"

namespace hipfile {
namespace {

constexpr int64_t kSecond = LogLimiter::kIntervalNs;

TEST(LogLimiterTest, BurstPrintsThenOnePerIntervalWithTheSuppressedCount) {
  LogLimiter limiter;
  for (uint64_t i = 0; i < LogLimiter::kBurst; ++i) {
    const LogLimiter::Verdict v = limiter.Admit(100);
    EXPECT_TRUE(v.print);
    EXPECT_EQ(v.suppressed, 0u);
    EXPECT_EQ(v.last_of_burst, i + 1 == LogLimiter::kBurst);
  }
  // 37 more within the interval: none prints.
  for (int i = 0; i < 37; ++i) EXPECT_FALSE(limiter.Admit(100 + kSecond - 1).print);
  // The first after the interval prints and carries the count.
  LogLimiter::Verdict v = limiter.Admit(100 + kSecond);
  EXPECT_TRUE(v.print);
  EXPECT_FALSE(v.last_of_burst);
  EXPECT_EQ(v.suppressed, 37u);
  // The interval restarts from that line.
  EXPECT_FALSE(limiter.Admit(100 + 2 * kSecond - 1).print);
  v = limiter.Admit(100 + 2 * kSecond);
  EXPECT_TRUE(v.print);
  EXPECT_EQ(v.suppressed, 1u);
  // A quiet site prints its next line at once, with nothing suppressed.
  v = limiter.Admit(100 + 10 * kSecond);
  EXPECT_TRUE(v.print);
  EXPECT_EQ(v.suppressed, 0u);
}

TEST(LogLimiterTest, ThreadsLoseNoCount) {
  LogLimiter limiter;
  std::atomic<uint64_t> printed{0};
  std::atomic<uint64_t> reported{0};
  constexpr int kThreads = 4;
  constexpr int kEach = 10000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        const LogLimiter::Verdict v = limiter.Admit(0);  // one instant: no interval passes
        if (v.print) ++printed;
        reported += v.suppressed;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  // At one instant only the burst prints (plus at most the one a race lets through).
  EXPECT_GE(printed.load(), LogLimiter::kBurst);
  EXPECT_LE(printed.load(), LogLimiter::kBurst + 1);
  // Everything not printed is reported by the next printed line.
  const LogLimiter::Verdict v = limiter.Admit(2 * kSecond);
  EXPECT_TRUE(v.print);
  EXPECT_EQ(printed.load() + reported.load() + v.suppressed, uint64_t{kThreads * kEach});
}

class LogLimitedTest : public ::testing::Test {
 protected:
  void TearDown() override { SetLogLevel(saved_); }
  LogLevel saved_ = GetLogLevel();
};

int CountLines(const std::string& text) {
  int lines = 0;
  for (const char c : text) lines += c == '\n';
  return lines;
}

TEST_F(LogLimitedTest, RepeatedLinesAreCappedAndTheCountArrivesLater) {
  SetLogLevel(LogLevel::kWarn);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 1000; ++i) HF_LOG_LIMITED(kWarn, "refused %d", i);
  const std::string burst = ::testing::internal::GetCapturedStderr();
  // 1000 calls in well under a second: the burst, maybe one more if the loop straddles the
  // interval on a very slow machine.
  EXPECT_LE(CountLines(burst), static_cast<int>(LogLimiter::kBurst) + 1) << burst;
  EXPECT_NE(burst.find("hipfile[warn]: refused 0\n"), std::string::npos) << burst;
  EXPECT_NE(burst.find("refused 4 (more like this: at most one a second)"), std::string::npos)
      << burst;
}

TEST_F(LogLimitedTest, BelowTheThresholdNothingPrints) {
  SetLogLevel(LogLevel::kError);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 10; ++i) HF_LOG_LIMITED(kWarn, "refused %d", i);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  SetLogLevel(LogLevel::kOff);
  ::testing::internal::CaptureStderr();
  HF_LOG_LIMITED(kError, "refused");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace hipfile
