// SPDX-License-Identifier: MIT
// RingIo over the real system calls: many transfers at once through the kernel ring, and the
// same results through pread/pwrite when the ring is off. Fault injection: ring_io_fault_test.cc
// in tests/reliability.
#include "engine/ring_io.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "fakes/closed_fd.h"

namespace hipfile::engine {
namespace {

using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::SysOp;
using testing::WriteFileOrDie;

constexpr size_t kFileBytes = 1 << 20;

class RingIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFileOrDie(path_, content_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // Whether this machine gives rings; the ring tests check the ring was used where it does.
  static bool RingsWork() { return platform::RealSys().CreateIoRing(4).ok(); }

  // `count` reads of 1..8 KiB at random offsets (some past the end), each into its own slice.
  std::vector<RingTransfer> RandomReads(size_t count, std::vector<unsigned char>* buf,
                                        unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<RingTransfer> t;
    buf->assign(count * 8192, 0);
    for (size_t i = 0; i < count; ++i) {
      const size_t size = 1 + rng() % 8192;
      const off_t offset = static_cast<off_t>(rng() % (kFileBytes + 4096));
      t.push_back(RingRead(fd_, buf->data() + i * 8192, size, offset));
    }
    return t;
  }

  // Checks each read against the file: the bytes up to the end of the file, all of them there.
  void ExpectReadsMatch(const std::vector<RingTransfer>& t, const std::vector<Transfer>& r) {
    for (size_t i = 0; i < t.size(); ++i) {
      const size_t offset = static_cast<size_t>(t[i].offset);
      const size_t expected = offset >= kFileBytes ? 0 : std::min(t[i].size, kFileBytes - offset);
      ASSERT_TRUE(r[i].status.ok()) << i << ": " << r[i].status.ToString();
      ASSERT_EQ(r[i].bytes, expected) << i;
      const auto* got = static_cast<const unsigned char*>(t[i].buf);
      ASSERT_TRUE(std::equal(got, got + expected, content_.begin() + static_cast<long>(offset)))
          << i;
    }
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.File("f");
  const std::vector<unsigned char> content_ = PatternBytes(kFileBytes, 5);
  testing::FaultSys sys_;  // no faults: counts the calls
  int fd_ = -1;
};

TEST_F(RingIoTest, ManyMoreReadsThanTheRingHoldsAreByteExact) {
  RingIoOptions options;
  options.depth = 16;
  RingIo io(sys_, options);
  std::vector<unsigned char> buf;
  const std::vector<RingTransfer> t = RandomReads(300, &buf, 1);
  std::vector<Transfer> r(t.size());
  io.RunAll(t.data(), t.size(), r.data());
  ExpectReadsMatch(t, r);
  if (!RingsWork()) GTEST_SKIP() << "io_uring refused here; the pread fallback was checked";
  EXPECT_TRUE(io.ring_available());
  EXPECT_EQ(io.counters().ring_calls, 1u);
  EXPECT_EQ(io.counters().rings_created, 1u);
  EXPECT_EQ(sys_.Calls(SysOp::kPread), 0u);
  EXPECT_GE(sys_.Calls(SysOp::kRingRead), 300u);
}

TEST_F(RingIoTest, DisabledGivesTheSameResultsThroughPread) {
  RingIoOptions options;
  options.enabled = false;
  RingIo off(sys_, options);
  RingIo on(sys_);
  std::vector<unsigned char> buf_off, buf_on;
  const std::vector<RingTransfer> t_off = RandomReads(100, &buf_off, 2);
  const std::vector<RingTransfer> t_on = RandomReads(100, &buf_on, 2);
  std::vector<Transfer> r_off(100), r_on(100);
  off.RunAll(t_off.data(), t_off.size(), r_off.data());
  EXPECT_FALSE(off.ring_available());
  EXPECT_EQ(off.counters().serial_calls, 1u);
  EXPECT_EQ(sys_.Calls(SysOp::kRingSetup), 0u);
  on.RunAll(t_on.data(), t_on.size(), r_on.data());
  ExpectReadsMatch(t_off, r_off);
  for (size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(r_off[i].bytes, r_on[i].bytes) << i;
    EXPECT_EQ(r_off[i].status, r_on[i].status) << i;
  }
  EXPECT_EQ(buf_off, buf_on);
}

TEST_F(RingIoTest, WritesThenReadsBack) {
  RingIoOptions options;
  options.depth = 8;
  RingIo io(sys_, options);
  // 40 writes of 4..256 KiB tiling the first 5 MiB and growing the file; then read it all back.
  std::vector<unsigned char> data = PatternBytes(5 << 20, 9);
  std::vector<RingTransfer> w;
  size_t at = 0;
  std::mt19937 rng(3);
  while (at < data.size()) {
    const size_t size = std::min<size_t>(4096 + rng() % (252 << 10), data.size() - at);
    w.push_back(RingWrite(fd_, data.data() + at, size, static_cast<off_t>(at)));
    at += size;
  }
  std::vector<Transfer> r(w.size());
  io.RunAll(w.data(), w.size(), r.data());
  for (size_t i = 0; i < w.size(); ++i) {
    ASSERT_TRUE(r[i].status.ok()) << r[i].status.ToString();
    ASSERT_EQ(r[i].bytes, w[i].size);
  }
  EXPECT_EQ(ReadFileOrDie(path_), data);

  std::vector<unsigned char> back(data.size());
  std::vector<RingTransfer> rd;
  for (const RingTransfer& x : w) {
    rd.push_back(RingRead(fd_, back.data() + x.offset, x.size, x.offset));
  }
  io.RunAll(rd.data(), rd.size(), r.data());
  for (size_t i = 0; i < rd.size(); ++i) ASSERT_EQ(r[i].bytes, rd[i].size);
  EXPECT_EQ(back, data);
}

TEST_F(RingIoTest, EndOfFileShortFileAndEmptyTransfers) {
  RingIo io(sys_);
  std::vector<unsigned char> buf(3 * 65536);
  const std::string small = dir_.File("small");
  WriteFileOrDie(small, PatternBytes(1000, 4));
  ScopedFd small_fd(small, O_RDONLY);
  const RingTransfer t[] = {
      RingRead(fd_, buf.data(), 65536, kFileBytes - 100),            // straddles the end
      RingRead(fd_, buf.data() + 65536, 65536, kFileBytes + 12345),  // past the end
      RingRead(small_fd.get(), buf.data() + 131072, 65536, 0),       // a short file
      RingRead(fd_, buf.data(), 0, 0),                               // nothing
  };
  Transfer r[4];
  io.RunAll(t, 4, r);
  EXPECT_EQ(r[0].bytes, 100u);
  EXPECT_EQ(r[1].bytes, 0u);
  EXPECT_EQ(r[2].bytes, 1000u);
  EXPECT_EQ(r[3].bytes, 0u);
  for (const Transfer& x : r) EXPECT_TRUE(x.status.ok()) << x.status.ToString();
  EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + 100, content_.end() - 100));
  EXPECT_EQ(std::vector<unsigned char>(buf.begin() + 131072, buf.begin() + 132072),
            PatternBytes(1000, 4));
  io.RunAll(t, 0, r);  // no transfers at all
}

TEST_F(RingIoTest, ODirectReadsWithAlignedBuffersStopAtTheEnd) {
  // A file whose size is not a multiple of the block: O_DIRECT's last read is short and
  // unaligned, which direct_align makes the end of the transfer (asking again would be EINVAL).
  const std::string path = dir_.File("direct");
  const std::vector<unsigned char> content = PatternBytes(10 * 65536 + 1234, 6);
  WriteFileOrDie(path, content);
  const int direct = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (direct < 0) GTEST_SKIP() << "the test directory's file system refuses O_DIRECT";
  void* mem = nullptr;
  ASSERT_EQ(::posix_memalign(&mem, 4096, 12 * 65536), 0);
  std::unique_ptr<void, decltype(&std::free)> owner(mem, &std::free);
  auto* buf = static_cast<unsigned char*>(mem);
  std::vector<RingTransfer> t;
  for (size_t i = 0; i < 12; ++i) {
    t.push_back(RingRead(direct, buf + i * 65536, 65536, static_cast<off_t>(i * 65536)));
    t.back().direct_align = 4096;
  }
  RingIoOptions options;
  options.depth = 4;
  RingIo io(sys_, options);
  std::vector<Transfer> r(t.size());
  io.RunAll(t.data(), t.size(), r.data());
  for (size_t i = 0; i < 12; ++i) {
    ASSERT_TRUE(r[i].status.ok()) << i << ": " << r[i].status.ToString();
    EXPECT_EQ(r[i].bytes, i < 10 ? 65536u : (i == 10 ? 1234u : 0u)) << i;
  }
  EXPECT_TRUE(std::equal(buf, buf + content.size(), content.begin()));
  ::close(direct);
}

TEST_F(RingIoTest, AClosedDescriptorFailsItsTransferOnly) {
  RingIo io(sys_);
  std::vector<unsigned char> buf(3 * 4096);
  // A first call makes the ring, whose descriptor would otherwise take the closed number.
  const RingTransfer warm = RingRead(fd_, buf.data(), 4096, 0);
  Transfer warm_result;
  io.RunAll(&warm, 1, &warm_result);
  const int closed = testing::HighDup(fd_);
  ASSERT_GE(closed, 0);
  ::close(closed);
  const RingTransfer t[] = {RingRead(fd_, buf.data(), 4096, 0),
                            RingRead(closed, buf.data() + 4096, 4096, 0),
                            RingWrite(closed, buf.data() + 8192, 4096, 0)};
  Transfer r[3];
  io.RunAll(t, 3, r);
  EXPECT_EQ(r[0].bytes, 4096u);
  EXPECT_TRUE(r[0].status.ok());
  EXPECT_EQ(r[1].bytes, 0u);
  EXPECT_TRUE(r[1].status.IsErrno(EBADF)) << r[1].status.ToString();
  EXPECT_EQ(r[2].bytes, 0u);
  EXPECT_TRUE(r[2].status.IsErrno(EBADF)) << r[2].status.ToString();
  EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + 4096, content_.begin()));
}

TEST_F(RingIoTest, ADescriptorClosedDuringCallsGivesEbadfOrTheFilesBytes) {
  RingIoOptions options;
  options.depth = 8;
  RingIo io(sys_, options);
  std::vector<unsigned char> buf;
  std::vector<RingTransfer> t = RandomReads(32, &buf, 7);
  std::vector<Transfer> r(t.size());
  io.RunAll(t.data(), t.size(), r.data());  // makes the ring before the victim is numbered
  const int victim = testing::HighDup(fd_);
  ASSERT_GE(victim, 0);
  for (RingTransfer& x : t) x.fd = victim;
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ::close(victim);
    closed = true;
  });
  // The first wrong result ends the rounds (and the closer is joined either way).
  bool right = true;
  for (int round = 0; right && round < 1000 && (round < 20 || !closed); ++round) {
    io.RunAll(t.data(), t.size(), r.data());
    for (size_t i = 0; right && i < t.size(); ++i) {
      const size_t offset = static_cast<size_t>(t[i].offset);
      const auto* got = static_cast<const unsigned char*>(t[i].buf);
      if (!r[i].status.ok() && !r[i].status.IsErrno(EBADF)) {
        ADD_FAILURE() << "round " << round << ", read " << i << ": " << r[i].status.ToString();
        right = false;
      } else if (!std::equal(got, got + r[i].bytes, content_.begin() + static_cast<long>(offset))) {
        ADD_FAILURE() << "round " << round << ", read " << i << ": " << r[i].bytes
                      << " bytes, not the file's (" << r[i].status.ToString() << ")";
        right = false;
      }
    }
  }
  closer.join();
  if (!right) return;
  io.RunAll(t.data(), t.size(), r.data());
  for (const Transfer& x : r) EXPECT_TRUE(x.status.IsErrno(EBADF)) << x.status.ToString();
}

TEST_F(RingIoTest, ConcurrentCallsShareThePoolAndNeverOneRing) {
  // Four threads, two rings: calls that find both in use run through pread. Every byte is
  // checked either way.
  RingIoOptions options;
  options.depth = 8;
  options.max_rings = 2;
  RingIo io(sys_, options);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (unsigned k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (unsigned round = 0; round < 20; ++round) {
        std::vector<unsigned char> buf;
        const std::vector<RingTransfer> t = RandomReads(24, &buf, 100 * k + round);
        std::vector<Transfer> r(t.size());
        io.RunAll(t.data(), t.size(), r.data());
        for (size_t i = 0; i < t.size(); ++i) {
          const size_t offset = static_cast<size_t>(t[i].offset);
          const size_t expected =
              offset >= kFileBytes ? 0 : std::min(t[i].size, kFileBytes - offset);
          const auto* got = static_cast<const unsigned char*>(t[i].buf);
          if (!r[i].status.ok() || r[i].bytes != expected ||
              !std::equal(got, got + expected, content_.begin() + static_cast<long>(offset))) {
            ++failures[k];
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  const RingIo::Counters c = io.counters();
  EXPECT_EQ(c.ring_calls + c.serial_calls, 80u);
  if (RingsWork()) {
    EXPECT_LE(c.rings_created, 2u);
    EXPECT_GE(c.ring_calls, 1u);
  }
}

}  // namespace
}  // namespace hipfile::engine
