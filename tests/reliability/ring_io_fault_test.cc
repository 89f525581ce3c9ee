// SPDX-License-Identifier: MIT
// Faults under engine::RingIo, injected through FaultSys's rings (FaultRing): EINTR/EAGAIN
// resubmitted, short counts continued, EIO/ENOSPC stopping one transfer with the bytes that
// moved, the ring refused (EPERM, ENOSYS) or a submission failing, with pread/pwrite taking over
// and giving the same results. Counted in "faults injected: N". Skipped where this machine
// refuses io_uring, since there is no ring to inject into (the fallback runs in every case).
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/ring_io.h"
#include "fakes/fault_sys.h"
#include "fakes/temp_dir.h"
#include "reliability/io_path_fixture.h"
#include "util/log.h"

namespace hipfile::engine {
namespace {

using core::g_faults;
using platform::RingOp;
using testing::FaultSys;
using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kPiece = 16 << 10;
constexpr size_t kPieces = 16;
constexpr size_t kFileBytes = kPiece * kPieces;

class RingIoFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFileOrDie(path_, content_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // Skips the test where rings cannot be made: then there is nothing to inject into.
  bool NeedRings() {
    const Result<std::unique_ptr<platform::IoRing>> ring = platform::RealSys().CreateIoRing(4);
    if (ring.ok()) return true;
    skip_reason_ = "io_uring refused here: " + ring.status().ToString();
    return false;
  }

  RingIoOptions Depth(unsigned depth) const {
    RingIoOptions options;
    options.depth = depth;
    return options;
  }

  // kPieces reads of kPiece bytes, piece i of the file into buf_ piece i.
  std::vector<RingTransfer> Reads() {
    buf_.assign(kFileBytes, 0);
    std::vector<RingTransfer> t(kPieces);
    for (size_t i = 0; i < kPieces; ++i) {
      t[i] = RingRead(fd_, buf_.data() + i * kPiece, kPiece, static_cast<off_t>(i * kPiece));
    }
    return t;
  }

  // kPieces writes of data_ over the file, piece by piece.
  std::vector<RingTransfer> Writes() {
    std::vector<RingTransfer> t = Reads();
    for (size_t i = 0; i < kPieces; ++i) {
      t[i].kind = RingOp::Kind::kWrite;
      t[i].buf = data_.data() + i * kPiece;
    }
    return t;
  }

  std::vector<Transfer> Run(RingIo& io, const std::vector<RingTransfer>& t) {
    std::vector<Transfer> r(t.size());
    io.RunAll(t.data(), t.size(), r.data());
    return r;
  }

  // Piece i is whole and the file's, except those in `failed`.
  void ExpectPiecesRead(const std::vector<Transfer>& r, std::vector<size_t> failed = {}) {
    for (size_t i = 0; i < kPieces; ++i) {
      if (std::find(failed.begin(), failed.end(), i) != failed.end()) continue;
      ASSERT_TRUE(r[i].status.ok()) << i << ": " << r[i].status.ToString();
      ASSERT_EQ(r[i].bytes, kPiece) << i;
      ASSERT_TRUE(std::equal(buf_.begin() + static_cast<long>(i * kPiece),
                             buf_.begin() + static_cast<long>((i + 1) * kPiece),
                             content_.begin() + static_cast<long>(i * kPiece)))
          << i;
    }
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.File("f");
  const std::vector<unsigned char> content_ = PatternBytes(kFileBytes, 11);
  std::vector<unsigned char> data_ = PatternBytes(kFileBytes, 12);
  std::vector<unsigned char> buf_;
  FaultSys sys_;
  int fd_ = -1;
  std::string skip_reason_;
};

#define NEED_RINGS() \
  if (!NeedRings()) GTEST_SKIP() << skip_reason_

TEST_F(RingIoFaultTest, EintrAndEagainAreResubmitted) {
  NEED_RINGS();
  for (int e : {EINTR, EAGAIN}) {
    sys_.Reset();
    WriteFileOrDie(path_, content_);  // the same file, rewritten in place
    RingIo io(sys_, Depth(8));
    sys_.FailTimes(SysOp::kRingRead, 3, e);
    ExpectPiecesRead(Run(io, Reads()));
    EXPECT_EQ(sys_.Calls(SysOp::kRingRead), kPieces + 3);
    EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);
    sys_.FailTimes(SysOp::kRingWrite, 3, e);
    const std::vector<Transfer> w = Run(io, Writes());
    for (const Transfer& x : w) ASSERT_EQ(x.bytes, kPiece) << x.status.ToString();
    EXPECT_EQ(ReadFileOrDie(path_), data_);
    EXPECT_EQ(sys_.Calls(SysOp::kRingWrite), kPieces + 3);
    g_faults += 6;
  }
}

TEST_F(RingIoFaultTest, EndlessEagainIsReportedAfterTheRetryLimit) {
  NEED_RINGS();
  RingIo io(sys_, Depth(8));
  sys_.FailAlways(SysOp::kRingRead, EAGAIN);
  std::vector<RingTransfer> t = Reads();
  t.resize(4);
  const std::vector<Transfer> r = Run(io, t);
  g_faults += sys_.Calls(SysOp::kRingRead);
  for (const Transfer& x : r) {
    EXPECT_EQ(x.bytes, 0u);
    EXPECT_TRUE(x.status.IsErrno(EAGAIN)) << x.status.ToString();
  }
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), 4u * (kMaxConsecutiveRetries + 1));
}

TEST_F(RingIoFaultTest, AnErrorStopsItsTransferOnly) {
  NEED_RINGS();
  // Depth 32 takes all 16 reads in one submission, in order: op 6 is transfer 5.
  for (int e : {EIO, ESTALE}) {
    sys_.Reset();
    RingIo io(sys_, Depth(32));
    sys_.FailNth(SysOp::kRingRead, 6, e);
    const std::vector<Transfer> r = Run(io, Reads());
    ++g_faults;
    EXPECT_EQ(r[5].bytes, 0u);
    EXPECT_TRUE(r[5].status.IsErrno(e)) << r[5].status.ToString();
    ExpectPiecesRead(r, {5});
  }
}

TEST_F(RingIoFaultTest, AnErrorPartWayKeepsTheBytesBeforeIt) {
  NEED_RINGS();
  RingIo io(sys_, Depth(8));
  sys_.ShortTransfers(SysOp::kRingRead, 4096);
  sys_.FailNth(SysOp::kRingRead, 3, EIO);
  std::vector<RingTransfer> t = Reads();
  t.resize(1);
  const std::vector<Transfer> r = Run(io, t);
  g_faults += 3;
  EXPECT_TRUE(r[0].status.IsErrno(EIO)) << r[0].status.ToString();
  ASSERT_EQ(r[0].bytes, 2 * 4096u);
  EXPECT_TRUE(std::equal(buf_.begin(), buf_.begin() + 2 * 4096, content_.begin()));
}

TEST_F(RingIoFaultTest, ShortCountsAreContinued) {
  NEED_RINGS();
  RingIo io(sys_, Depth(8));
  sys_.ShortTransfers(SysOp::kRingRead, 1000);
  ExpectPiecesRead(Run(io, Reads()));
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), kPieces * ((kPiece + 999) / 1000));
  sys_.ShortTransfers(SysOp::kRingWrite, 999);
  const std::vector<Transfer> w = Run(io, Writes());
  for (const Transfer& x : w) ASSERT_EQ(x.bytes, kPiece) << x.status.ToString();
  EXPECT_EQ(ReadFileOrDie(path_), data_);
  EXPECT_EQ(sys_.Calls(SysOp::kRingWrite), kPieces * ((kPiece + 998) / 999));
  g_faults += sys_.Calls(SysOp::kRingRead) + sys_.Calls(SysOp::kRingWrite);
  EXPECT_EQ(sys_.Calls(SysOp::kPread) + sys_.Calls(SysOp::kPwrite), 0u);
}

TEST_F(RingIoFaultTest, EnospcReportsTheBytesThatMoved) {
  NEED_RINGS();
  RingIo io(sys_, Depth(8));
  // One write of 64 KiB in 4 KiB ops; the 5th fails: 16 KiB moved, and the file holds them.
  ASSERT_EQ(::ftruncate(fd_, 0), 0);
  sys_.ShortTransfers(SysOp::kRingWrite, 4096);
  sys_.FailNth(SysOp::kRingWrite, 5, ENOSPC);
  std::vector<RingTransfer> t = Writes();
  t.resize(1);
  t[0].size = 65536;
  const std::vector<Transfer> r = Run(io, t);
  g_faults += 5;
  EXPECT_TRUE(r[0].status.IsErrno(ENOSPC)) << r[0].status.ToString();
  EXPECT_EQ(r[0].bytes, 4 * 4096u);
  EXPECT_EQ(ReadFileOrDie(path_), std::vector<unsigned char>(data_.begin(), data_.begin() + 16384));
}

TEST_F(RingIoFaultTest, AWriteThatMovesNothingIsTriedOnceMoreThenEio) {
  NEED_RINGS();
  RingIo io(sys_, Depth(8));
  sys_.ShortTransfers(SysOp::kRingWrite, 0);
  std::vector<RingTransfer> t = Writes();
  t.resize(3);
  const std::vector<Transfer> r = Run(io, t);
  g_faults += sys_.Calls(SysOp::kRingWrite);
  EXPECT_EQ(sys_.Calls(SysOp::kRingWrite), 6u);
  for (const Transfer& x : r) {
    EXPECT_EQ(x.bytes, 0u);
    EXPECT_TRUE(x.status.IsErrno(EIO)) << x.status.ToString();
  }
  EXPECT_EQ(ReadFileOrDie(path_), content_);
}

TEST_F(RingIoFaultTest, InterruptedWaitsAreRetried) {
  NEED_RINGS();
  RingIo io(sys_, Depth(4));
  sys_.FailTimes(SysOp::kRingWait, 3, EINTR);
  ExpectPiecesRead(Run(io, Reads()));
  g_faults += 3;
}

// Refusals a container or kernel gives: the ring is not created, and the pread path gives the
// same results, logged once.
TEST_F(RingIoFaultTest, ARefusedRingFallsBackWithIdenticalResults) {
  for (int e : {EPERM, ENOSYS}) {
    sys_.Reset();
    sys_.FailAlways(SysOp::kRingSetup, e);
    sys_.ShortTransfers(SysOp::kPread, 5000);
    RingIo io(sys_, Depth(8));
    const LogLevel level = GetLogLevel();
    SetLogLevel(LogLevel::kWarn);  // a fallback that costs speed: said at warn
    ::testing::internal::CaptureStderr();
    std::vector<RingTransfer> t = Reads();
    t[3].offset = kFileBytes - 100;  // a short read at the end
    t[4].offset = kFileBytes + 100;  // past the end
    std::vector<Transfer> r = Run(io, t);
    const std::vector<unsigned char> serial_bytes = buf_;
    Run(io, t);  // a second call does not try again, or log again
    const std::string log = ::testing::internal::GetCapturedStderr();
    SetLogLevel(level);
    g_faults += 1;
    EXPECT_FALSE(io.ring_available());
    EXPECT_EQ(sys_.Calls(SysOp::kRingSetup), 1u);
    EXPECT_EQ(io.counters().serial_calls, 2u);
    const size_t first = log.find("io_uring is not available");
    ASSERT_NE(first, std::string::npos) << log;
    EXPECT_EQ(log.find("io_uring is not available", first + 1), std::string::npos) << log;
    EXPECT_NE(log.find(Status::Errno(e).ToString()), std::string::npos) << log;

    // The same transfers through a working ring.
    FaultSys clean;
    RingIo ring_io(clean, Depth(8));
    const std::vector<Transfer> want = Run(ring_io, t);
    for (size_t i = 0; i < t.size(); ++i) {
      EXPECT_EQ(r[i].bytes, want[i].bytes) << i;
      EXPECT_EQ(r[i].status, want[i].status) << i;
    }
    EXPECT_EQ(serial_bytes, buf_);
    EXPECT_EQ(r[3].bytes, 100u);
    EXPECT_EQ(r[4].bytes, 0u);
  }
}

TEST_F(RingIoFaultTest, ASubmissionFailureHandsTheRestToPread) {
  NEED_RINGS();
  // Depth 4: the first submission takes transfers 0-3, the second (failing) would take more;
  // what the ring had taken completes, the rest run through pread, and the failed ring is
  // replaced on the next call.
  for (int e : {EBUSY, ENOMEM}) {
    sys_.Reset();
    RingIo io(sys_, Depth(4));
    sys_.FailNth(SysOp::kRingSubmit, 2, e);
    ExpectPiecesRead(Run(io, Reads()));
    ++g_faults;
    EXPECT_GE(sys_.Calls(SysOp::kRingRead), 4u);
    EXPECT_GE(sys_.Calls(SysOp::kPread), kPieces - sys_.Calls(SysOp::kRingRead));
    EXPECT_GE(sys_.Calls(SysOp::kPread), 1u);
    EXPECT_EQ(io.counters().rings_created, 1u);
    ExpectPiecesRead(Run(io, Reads()));
    EXPECT_EQ(io.counters().rings_created, 2u);
    EXPECT_TRUE(io.ring_available());
  }
  // The very first submission failing: everything through pread.
  sys_.Reset();
  RingIo io(sys_, Depth(4));
  sys_.FailNth(SysOp::kRingSubmit, 1, EAGAIN);
  ExpectPiecesRead(Run(io, Reads()));
  ++g_faults;
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), 0u);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), kPieces);
}

TEST_F(RingIoFaultTest, FaultsInTheFallbackFollowPreadFull) {
  NEED_RINGS();
  // A submission fails part-way through a short-count read; the rest of that read goes through
  // pread, which also meets EINTR and a short count, and the read still completes.
  RingIo io(sys_, Depth(8));
  sys_.ShortTransfers(SysOp::kRingRead, 4096);
  sys_.FailNth(SysOp::kRingSubmit, 2, EBUSY);
  sys_.FailTimes(SysOp::kPread, 2, EINTR);
  sys_.ShortTransfers(SysOp::kPread, 3000);
  std::vector<RingTransfer> t = Reads();
  t.resize(1);
  const std::vector<Transfer> r = Run(io, t);
  g_faults += 3;
  ASSERT_TRUE(r[0].status.ok()) << r[0].status.ToString();
  EXPECT_EQ(r[0].bytes, kPiece);
  EXPECT_EQ(sys_.Calls(SysOp::kRingRead), 1u);
  EXPECT_TRUE(std::equal(buf_.begin(), buf_.begin() + kPiece, content_.begin()));
}

}  // namespace
}  // namespace hipfile::engine
