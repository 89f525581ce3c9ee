// SPDX-License-Identifier: MIT
// The kernel ring (platform/io_ring.h) through Sys::CreateIoRing: reads and writes of a temporary
// file, completions by tag, errors as -errno. Skipped where io_uring is refused.
#include "platform/io_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "fakes/closed_fd.h"
#include "fakes/temp_dir.h"
#include "platform/sys.h"

namespace hipfile::platform {
namespace {

using testing::PatternBytes;
using testing::ReadFileOrDie;
using testing::TempDir;
using testing::WriteFileOrDie;

class IoRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<IoRing>> ring = RealSys().CreateIoRing(8);
#ifndef HIPFILE_HAVE_IO_URING
    ASSERT_TRUE(ring.status().IsErrno(ENOSYS)) << ring.status().ToString();
    GTEST_SKIP() << "built without liburing";
#endif
    if (!ring.ok()) GTEST_SKIP() << "io_uring refused here: " << ring.status().ToString();
    ring_ = std::move(ring).value();
    WriteFileOrDie(path_, content_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // Waits for `n` completions, keyed by tag.
  std::map<uint64_t, int64_t> Reap(size_t n) {
    std::map<uint64_t, int64_t> by_tag;
    std::vector<RingCompletion> out(n);
    while (by_tag.size() < n) {
      Result<size_t> got = ring_->Wait(out.data(), out.size(), 1);
      if (!got.ok() && got.status().IsErrno(EINTR)) continue;
      EXPECT_TRUE(got.ok()) << got.status().ToString();
      if (!got.ok()) break;
      for (size_t i = 0; i < *got; ++i) {
        EXPECT_EQ(by_tag.count(out[i].tag), 0u) << "tag " << out[i].tag << " completed twice";
        by_tag[out[i].tag] = out[i].result;
      }
    }
    return by_tag;
  }

  static RingOp Op(RingOp::Kind kind, int fd, void* buf, size_t size, off_t offset, uint64_t tag) {
    RingOp op;
    op.kind = kind;
    op.fd = fd;
    op.buf = buf;
    op.size = size;
    op.offset = offset;
    op.tag = tag;
    return op;
  }

  TempDir dir_;
  const std::string path_ = dir_.File("f");
  const std::vector<unsigned char> content_ = PatternBytes(100000, 3);
  std::unique_ptr<IoRing> ring_;
  int fd_ = -1;
};

TEST_F(IoRingTest, DepthIsWhatWasAskedRoundedToAPowerOfTwo) {
  EXPECT_EQ(ring_->depth(), 8u);
  Result<std::unique_ptr<IoRing>> odd = RealSys().CreateIoRing(5);
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ((*odd)->depth(), 8u);
  EXPECT_TRUE(RealSys().CreateIoRing(0).status().IsErrno(EINVAL));
}

TEST_F(IoRingTest, ReadsCompleteByTagWithTheFilesBytes) {
  std::vector<unsigned char> buf(4 * 10000);
  std::vector<RingOp> ops;
  for (uint64_t i = 0; i < 4; ++i) {
    ops.push_back(Op(RingOp::Kind::kRead, fd_, buf.data() + i * 10000, 10000,
                     static_cast<off_t>(i * 20000 + 7), 100 + i));
  }
  Result<size_t> taken = ring_->Submit(ops.data(), ops.size());
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(*taken, 4u);
  const std::map<uint64_t, int64_t> done = Reap(4);
  for (uint64_t i = 0; i < 4; ++i) {
    ASSERT_EQ(done.at(100 + i), 10000);
    EXPECT_TRUE(std::equal(buf.begin() + static_cast<long>(i * 10000),
                           buf.begin() + static_cast<long>((i + 1) * 10000),
                           content_.begin() + static_cast<long>(i * 20000 + 7)));
  }
}

TEST_F(IoRingTest, WritesLandWhereAsked) {
  const std::vector<unsigned char> a = PatternBytes(5000, 7);
  const std::vector<unsigned char> b = PatternBytes(3000, 8);
  RingOp ops[] = {
      Op(RingOp::Kind::kWrite, fd_, const_cast<unsigned char*>(a.data()), a.size(), 1000, 1),
      Op(RingOp::Kind::kWrite, fd_, const_cast<unsigned char*>(b.data()), b.size(), 99000, 2)};
  ASSERT_EQ(*ring_->Submit(ops, 2), 2u);
  const std::map<uint64_t, int64_t> done = Reap(2);
  EXPECT_EQ(done.at(1), 5000);
  EXPECT_EQ(done.at(2), 3000);
  std::vector<unsigned char> expected = content_;
  std::copy(a.begin(), a.end(), expected.begin() + 1000);
  expected.resize(102000);
  std::copy(b.begin(), b.end(), expected.begin() + 99000);
  EXPECT_EQ(ReadFileOrDie(path_), expected);
}

TEST_F(IoRingTest, EndOfFileIsAShortCountThenZero) {
  std::vector<unsigned char> buf(8192);
  RingOp ops[] = {Op(RingOp::Kind::kRead, fd_, buf.data(), 4096, 100000 - 1000, 1),
                  Op(RingOp::Kind::kRead, fd_, buf.data() + 4096, 4096, 200000, 2)};
  ASSERT_EQ(*ring_->Submit(ops, 2), 2u);
  const std::map<uint64_t, int64_t> done = Reap(2);
  EXPECT_EQ(done.at(1), 1000);
  EXPECT_EQ(done.at(2), 0);
}

TEST_F(IoRingTest, ErrorsComeBackAsNegativeErrnoPerOp) {
  std::vector<unsigned char> buf(3 * 4096);
  const int read_only = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  const int closed = testing::HighDup(fd_);
  ASSERT_GE(closed, 0);
  ::close(closed);
  RingOp ops[] = {Op(RingOp::Kind::kRead, closed, buf.data(), 4096, 0, 1),
                  Op(RingOp::Kind::kWrite, read_only, buf.data() + 4096, 4096, 0, 2),
                  Op(RingOp::Kind::kRead, fd_, buf.data() + 8192, 4096, 0, 3)};
  Result<size_t> taken = ring_->Submit(ops, 3);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ(*taken, 3u);  // IORING_SETUP_SUBMIT_ALL: a bad descriptor does not stop the batch
  const std::map<uint64_t, int64_t> done = Reap(3);
  EXPECT_EQ(done.at(1), -EBADF);
  EXPECT_EQ(done.at(2), -EBADF);
  EXPECT_EQ(done.at(3), 4096);
  ::close(read_only);
}

TEST_F(IoRingTest, WaitReturnsAtMostMax) {
  std::vector<unsigned char> buf(8 * 100);
  std::vector<RingOp> ops;
  for (uint64_t i = 0; i < 8; ++i) {
    ops.push_back(
        Op(RingOp::Kind::kRead, fd_, buf.data() + i * 100, 100, static_cast<off_t>(i * 100), i));
  }
  ASSERT_EQ(*ring_->Submit(ops.data(), ops.size()), 8u);
  RingCompletion out[3];
  Result<size_t> got = ring_->Wait(out, 3, 3);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 3u);
  EXPECT_EQ(Reap(5).size(), 5u);
  // Nothing in flight: a Wait for none returns none, without blocking.
  got = ring_->Wait(out, 3, 0);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 0u);
}

TEST_F(IoRingTest, MoreOpsThanEntriesTakesWhatFitsAndSpendsTheRing) {
  std::vector<unsigned char> buf(10 * 10);
  std::vector<RingOp> ops;
  for (uint64_t i = 0; i < 10; ++i) {
    ops.push_back(
        Op(RingOp::Kind::kRead, fd_, buf.data() + i * 10, 10, static_cast<off_t>(i * 10), i));
  }
  Result<size_t> taken = ring_->Submit(ops.data(), ops.size());
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(*taken, 8u);
  EXPECT_EQ(Reap(8).size(), 8u);
  EXPECT_TRUE(ring_->Submit(ops.data(), 1).status().IsErrno(EBADFD));
  EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + 80, content_.begin()));
}

TEST_F(IoRingTest, ODirectReadsWithAlignedBuffers) {
  const int direct = ::open(path_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (direct < 0) GTEST_SKIP() << "the test directory's file system refuses O_DIRECT";
  void* mem = nullptr;
  ASSERT_EQ(::posix_memalign(&mem, 4096, 3 * 4096), 0);
  std::unique_ptr<void, decltype(&std::free)> owner(mem, &std::free);
  auto* buf = static_cast<unsigned char*>(mem);
  RingOp ops[] = {Op(RingOp::Kind::kRead, direct, buf, 8192, 4096, 1),
                  Op(RingOp::Kind::kRead, direct, buf + 8192, 4096, 98304, 2)};
  ASSERT_EQ(*ring_->Submit(ops, 2), 2u);
  const std::map<uint64_t, int64_t> done = Reap(2);
  EXPECT_EQ(done.at(1), 8192);
  EXPECT_EQ(done.at(2), 100000 - 98304);  // the end of the file
  EXPECT_TRUE(std::equal(buf, buf + 8192, content_.begin() + 4096));
  EXPECT_TRUE(std::equal(buf + 8192, buf + 8192 + (100000 - 98304), content_.begin() + 98304));
  ::close(direct);
}

}  // namespace
}  // namespace hipfile::platform
