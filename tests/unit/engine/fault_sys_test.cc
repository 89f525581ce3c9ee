// SPDX-License-Identifier: MIT
// The fault injectors themselves: FaultSys and FaultRuntime.
#include "fakes/fault_sys.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "fakes/fault_runtime.h"

namespace hipfile::testing {
namespace {

using engine::ScopedFd;

class FaultSysTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteFileOrDie(path_, content_); }

  TempDir dir_;
  const std::string path_ = dir_.File("f");
  const std::vector<unsigned char> content_ = PatternBytes(10000, 2);
  FaultSys sys_;
};

TEST_F(FaultSysTest, ForwardsWhenNoFaultIsSet) {
  ScopedFd fd(path_, O_RDONLY);
  std::vector<unsigned char> buf(content_.size());
  Result<size_t> n = sys_.Pread(fd.get(), buf.data(), buf.size(), 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, content_.size());
  EXPECT_EQ(buf, content_);
  struct stat st;
  ASSERT_TRUE(sys_.Fstat(fd.get(), &st).ok());
  EXPECT_EQ(static_cast<size_t>(st.st_size), content_.size());
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 1u);
  EXPECT_EQ(sys_.Calls(SysOp::kFstat), 1u);
  EXPECT_EQ(sys_.Calls(SysOp::kPwrite), 0u);
  EXPECT_EQ(sys_.PageSize(), platform::RealSys().PageSize());
}

TEST_F(FaultSysTest, FailNthCountsFromNowAndFiresOnce) {
  ScopedFd fd(path_, O_RDONLY);
  char c;
  ASSERT_TRUE(sys_.Pread(fd.get(), &c, 1, 0).ok());
  sys_.FailNth(SysOp::kPread, 2, EIO);
  EXPECT_TRUE(sys_.Pread(fd.get(), &c, 1, 0).ok());
  Result<size_t> failed = sys_.Pread(fd.get(), &c, 1, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsErrno(EIO));
  EXPECT_TRUE(sys_.Pread(fd.get(), &c, 1, 0).ok());
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 4u);
}

TEST_F(FaultSysTest, FailTimesThenPasses) {
  for (int i = 0; i < 3; ++i) sys_.FailTimes(SysOp::kOpen, 3, EINTR);  // re-arming replaces
  for (int i = 0; i < 3; ++i) {
    Result<int> fd = sys_.Open(path_.c_str(), O_RDONLY, 0);
    ASSERT_FALSE(fd.ok());
    EXPECT_TRUE(fd.status().IsErrno(EINTR));
  }
  Result<int> fd = sys_.Open(path_.c_str(), O_RDONLY, 0);
  ASSERT_TRUE(fd.ok());
  EXPECT_TRUE(sys_.Close(*fd).ok());
}

TEST_F(FaultSysTest, FailAlwaysUntilReset) {
  sys_.FailAlways(SysOp::kReadTextFile, EACCES);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(sys_.ReadTextFile(path_.c_str()).status().IsErrno(EACCES));
  }
  EXPECT_EQ(sys_.Calls(SysOp::kReadTextFile), 5u);
  sys_.Reset();
  EXPECT_EQ(sys_.Calls(SysOp::kReadTextFile), 0u);
  Result<std::string> text = sys_.ReadTextFile(path_.c_str());
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->size(), content_.size());
}

TEST_F(FaultSysTest, FaultsAreKeptPerOperation) {
  ScopedFd fd(path_, O_RDWR);
  sys_.FailAlways(SysOp::kFsync, EIO);
  EXPECT_TRUE(sys_.Fsync(fd.get()).IsErrno(EIO));
  EXPECT_TRUE(sys_.Fdatasync(fd.get()).ok());
  EXPECT_TRUE(sys_.GetFileFlags(fd.get()).ok());
}

TEST_F(FaultSysTest, ShortTransfersCapEachCall) {
  ScopedFd fd(path_, O_RDWR);
  sys_.ShortTransfers(SysOp::kPread, 100);
  sys_.ShortTransfers(SysOp::kPwrite, 7);
  std::vector<unsigned char> buf(1000);
  Result<size_t> r = sys_.Pread(fd.get(), buf.data(), buf.size(), 50);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 100u);
  EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + 100, content_.begin() + 50));
  Result<size_t> w = sys_.Pwrite(fd.get(), buf.data(), buf.size(), 0);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, 7u);

  sys_.ShortTransfers(SysOp::kPread, 0);
  Result<size_t> none = sys_.Pread(fd.get(), buf.data(), buf.size(), 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);

  sys_.Reset();
  Result<size_t> full = sys_.Pread(fd.get(), buf.data(), buf.size(), 0);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(*full, buf.size());
}

TEST_F(FaultSysTest, CountsCallsFromManyThreads) {
  ScopedFd fd(path_, O_RDONLY);
  sys_.FailNth(SysOp::kPread, 500, EIO);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      char c;
      for (int i = 0; i < 250; ++i) {
        if (!sys_.Pread(fd.get(), &c, 1, i).ok()) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 1000u);
  EXPECT_EQ(failures[0] + failures[1] + failures[2] + failures[3], 1);
}

TEST_F(FaultSysTest, RingSetupFaults) {
  sys_.FailNth(SysOp::kRingSetup, 1, EPERM);
  EXPECT_TRUE(sys_.CreateIoRing(8).status().IsErrno(EPERM));
  Result<std::unique_ptr<platform::IoRing>> ring = sys_.CreateIoRing(8);
  if (!ring.ok()) GTEST_SKIP() << "io_uring refused here: " << ring.status().ToString();
  EXPECT_EQ((*ring)->depth(), 8u);
  EXPECT_EQ(sys_.Calls(SysOp::kRingSetup), 2u);
}

// A ring's ops: one failed (its completion carries -errno), one capped, one forwarded whole;
// then a failed submission and wait.
TEST_F(FaultSysTest, RingOpsFailOrAreCappedPerOp) {
  Result<std::unique_ptr<platform::IoRing>> made = sys_.CreateIoRing(8);
  if (!made.ok()) GTEST_SKIP() << "io_uring refused here: " << made.status().ToString();
  platform::IoRing& ring = **made;
  ScopedFd fd(path_, O_RDONLY);
  std::vector<unsigned char> buf(3 * 4000);
  platform::RingOp ops[3];
  for (uint64_t i = 0; i < 3; ++i) {
    ops[i].fd = fd.get();
    ops[i].buf = buf.data() + i * 4000;
    ops[i].size = 4000;
    ops[i].offset = static_cast<off_t>(i * 4000);
    ops[i].tag = i;
  }
  sys_.FailNth(SysOp::kRingRead, 1, EIO);
  sys_.ShortTransfers(SysOp::kRingRead, 1500);
  sys_.FailNth(SysOp::kRingSubmit, 1, EBUSY);
  EXPECT_TRUE(ring.Submit(ops, 3).status().IsErrno(EBUSY));
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), 0u);  // a failed submission reaches no op
  Result<size_t> taken = ring.Submit(ops, 3);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(*taken, 3u);
  sys_.FailNth(SysOp::kRingWait, 1, EINTR);
  platform::RingCompletion out[3];
  EXPECT_TRUE(ring.Wait(out, 3, 3).status().IsErrno(EINTR));
  int64_t result[3] = {1, 1, 1};
  size_t got = 0;
  while (got < 3) {
    Result<size_t> n = ring.Wait(out, 3, 1);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    for (size_t i = 0; i < *n; ++i) result[out[i].tag] = out[i].result;
    got += *n;
  }
  EXPECT_EQ(result[0], -EIO);
  EXPECT_EQ(result[1], 1500);
  EXPECT_EQ(result[2], 1500);
  EXPECT_TRUE(std::equal(buf.begin() + 4000, buf.begin() + 5500, content_.begin() + 4000));
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), 3u);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);
}

class FaultRuntimeTest : public ::testing::Test {
 protected:
  std::unique_ptr<runtime::GpuRuntime> cpu_ = runtime::CreateCpuRuntime();
  FaultRuntime gpu_{*cpu_};
};

TEST_F(FaultRuntimeTest, ForwardsWhenNoFaultIsSet) {
  EXPECT_STREQ(gpu_.Name(), cpu_->Name());
  void* ptr = nullptr;
  ASSERT_EQ(gpu_.Malloc(&ptr, 4096), hipSuccess);
  runtime::PointerInfo info;
  ASSERT_EQ(gpu_.PointerGetInfo(ptr, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeDevice);
  EXPECT_EQ(gpu_.Free(ptr), hipSuccess);
  EXPECT_EQ(gpu_.Calls(GpuOp::kMalloc), 1u);
  EXPECT_EQ(gpu_.Calls(GpuOp::kFree), 1u);
}

TEST_F(FaultRuntimeTest, InjectedErrorsDoNotReachTheBase) {
  gpu_.FailNth(GpuOp::kHostMalloc, 1, hipErrorOutOfMemory);
  void* ptr = nullptr;
  EXPECT_EQ(gpu_.HostMalloc(&ptr, 4096, 0), hipErrorOutOfMemory);
  EXPECT_EQ(ptr, nullptr);
  ASSERT_EQ(gpu_.HostMalloc(&ptr, 4096, 0), hipSuccess);
  ASSERT_NE(ptr, nullptr);

  gpu_.FailTimes(GpuOp::kHostFree, 2, hipErrorInvalidValue);
  EXPECT_EQ(gpu_.HostFree(ptr), hipErrorInvalidValue);
  EXPECT_EQ(gpu_.HostFree(ptr), hipErrorInvalidValue);
  EXPECT_EQ(gpu_.HostFree(ptr), hipSuccess);  // freed only now
}

TEST_F(FaultRuntimeTest, StreamFaults) {
  runtime::Stream stream = nullptr;
  gpu_.FailAlways(GpuOp::kStreamSynchronize, hipErrorLaunchFailure);
  ASSERT_EQ(gpu_.StreamCreate(&stream, hipStreamNonBlocking), hipSuccess);
  EXPECT_EQ(gpu_.StreamSynchronize(stream), hipErrorLaunchFailure);
  EXPECT_EQ(gpu_.StreamSynchronize(stream), hipErrorLaunchFailure);
  gpu_.Reset();
  EXPECT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
  EXPECT_EQ(gpu_.Calls(GpuOp::kStreamSynchronize), 1u);  // Reset zeroed the count
}

TEST_F(FaultRuntimeTest, StreamMemOpsAnswerCanBeForced) {
  const bool base = cpu_->SupportsStreamMemOps(0);
  EXPECT_EQ(gpu_.SupportsStreamMemOps(0), base);
  gpu_.SetStreamMemOps(base ? 0 : 1);
  EXPECT_EQ(gpu_.SupportsStreamMemOps(0), !base);
  gpu_.Reset();
  EXPECT_EQ(gpu_.SupportsStreamMemOps(0), base);
}

}  // namespace
}  // namespace hipfile::testing
