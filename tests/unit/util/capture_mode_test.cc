// SPDX-License-Identifier: MIT
// util/capture_mode.h with a stand-in for cuThreadExchangeStreamCaptureMode that keeps each
// thread's mode in a thread_local, as the driver does: a C entry point's scope relaxes the mode
// and gives the caller's back, nested scopes too; the library's threads (started through
// platform::Sys) run relaxed; a failed exchange changes nothing and restores nothing; a scope begun
// before the installation is relaxed by it. On a GPU,
// tests/system/stream_capture_test.cc checks the same against a real capture. This binary
// never makes the CUDA runtime, so the stand-in is the process's exchange here.
#include "util/capture_mode.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "api/status_map.h"
#include "platform/sys.h"

namespace hipfile {
namespace {

constexpr int kGlobal = 0, kThreadLocal = 1, kRelaxed = 2;

thread_local int mode = kGlobal;
std::atomic<int> exchanges{0};
std::atomic<bool> failing{false};

int Exchange(int* m) {
  ++exchanges;
  if (failing.load()) return 999;
  std::swap(mode, *m);
  return 0;
}

class CaptureModeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { InstallCaptureModeExchange(&Exchange); }
  void SetUp() override {
    mode = kGlobal;
    failing = false;
  }
};

TEST_F(CaptureModeTest, AScopeRelaxesTheModeAndGivesTheCallersBack) {
  for (const int callers : {kGlobal, kThreadLocal, kRelaxed}) {
    mode = callers;
    {
      RelaxedCapture outer;
      EXPECT_EQ(mode, kRelaxed);
      {
        RelaxedCapture inner;  // an entry point calling another (cuFile's over hipFile's)
        EXPECT_EQ(mode, kRelaxed);
      }
      EXPECT_EQ(mode, kRelaxed);
    }
    EXPECT_EQ(mode, callers);
  }
}

TEST_F(CaptureModeTest, EveryCEntryPointRunsRelaxed) {
  int seen = -1;
  const hipFileError_t e = api::GuardError("test", [&] {
    seen = mode;
    return api::Success();
  });
  EXPECT_EQ(e.err, hipFileSuccess);
  EXPECT_EQ(seen, kRelaxed);
  EXPECT_EQ(mode, kGlobal);
  seen = -1;
  (void)api::GuardSsize("test", [&] {
    seen = mode;
    return ssize_t{0};
  });
  EXPECT_EQ(seen, kRelaxed);
  seen = -1;
  api::GuardVoid("test", [&] { seen = mode; });
  EXPECT_EQ(seen, kRelaxed);
  EXPECT_EQ(mode, kGlobal);
  // A body that throws still gives the mode back.
  (void)api::GuardError("test", []() -> hipFileError_t { throw std::bad_alloc(); });
  EXPECT_EQ(mode, kGlobal);
}

TEST_F(CaptureModeTest, TheLibrarysThreadsRunRelaxed) {
  std::atomic<int> seen{-1};
  Result<std::thread> t = platform::RealSys().StartThread([&] { seen = mode; });
  ASSERT_TRUE(t.ok());
  t->join();
  EXPECT_EQ(seen.load(), kRelaxed);
}

TEST_F(CaptureModeTest, AFailedExchangeChangesNothingAndRestoresNothing) {
  failing = true;
  const int before = exchanges.load();
  {
    RelaxedCapture scope;
    EXPECT_EQ(mode, kGlobal);
  }
  EXPECT_EQ(exchanges.load() - before, 1) << "nothing to give back after a failed exchange";
  EXPECT_EQ(mode, kGlobal);
}

// The CUDA runtime is made within the first C call that needs it, after that call's scope began:
// the scope is relaxed from the installation on, and gives the caller's mode back at its end.
TEST_F(CaptureModeTest, TheCallThatInstallsTheExchangeIsRelaxedFromThenOn) {
  InstallCaptureModeExchange(nullptr);
  mode = kThreadLocal;
  {
    RelaxedCapture outer;
    EXPECT_EQ(mode, kThreadLocal);
    {
      RelaxedCapture inner;  // nested, also before the installation
      InstallCaptureModeExchange(&Exchange);
      EXPECT_EQ(mode, kRelaxed);
    }
    EXPECT_EQ(mode, kRelaxed);
  }
  EXPECT_EQ(mode, kThreadLocal);
  // Installed now: a new scope exchanges at once.
  {
    RelaxedCapture scope;
    EXPECT_EQ(mode, kRelaxed);
  }
  EXPECT_EQ(mode, kThreadLocal);
}

}  // namespace
}  // namespace hipfile
