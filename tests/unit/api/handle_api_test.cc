// SPDX-License-Identifier: MIT
// File handle values through the C API: a deregistered (or dropped) handle is refused on every
// path that takes one and never names a file registered later.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <time.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "api_test_util.h"

namespace hipfile::api {
namespace {

constexpr size_t kSize = 64 << 10;
const ssize_t kNotRegistered = -static_cast<ssize_t>(hipFileHandleNotRegistered);

class HandleValueTest : public ApiTest {
 protected:
  // A file of kSize pattern bytes of `seed`, opened read-write (not closed by the fixture).
  int OpenSeeded(const std::string& name, unsigned seed) {
    testing::WriteFileOrDie(dir_.File(name), testing::PatternBytes(kSize, seed));
    const int fd = ::open(dir_.File(name).c_str(), O_RDWR);
    EXPECT_GE(fd, 0);
    return fd;
  }
};

// The bug: the handle was the File object's address, which the next registration could get back;
// a stale handle of A then silently read and wrote B. Now every path refuses it, and B is left
// alone.
TEST_F(HandleValueTest, StaleHandleReadAndWroteTheNextFileRegistered) {
  const int fd_a = OpenSeeded("a", 1);
  hipFileHandle_t a = Register(fd_a);
  ASSERT_NE(a, nullptr);
  hipFileHandleDeregister(a);
  ASSERT_EQ(::close(fd_a), 0);
  const int fd_b = OpenSeeded("b", 2);
  fds_.push_back(fd_b);
  EXPECT_EQ(fd_b, fd_a) << "the descriptor number is normally reused";
  hipFileHandle_t b = Register(fd_b);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, a);
  void* dev = DeviceAlloc(kSize);
  ASSERT_EQ(hipMemset(dev, 0x5a, kSize), hipSuccess);

  // Sync.
  EXPECT_EQ(hipFileRead(a, dev, kSize, 0, 0), kNotRegistered);
  EXPECT_EQ(hipFileWrite(a, dev, kSize, 0, 0), kNotRegistered);
  // Stream-ordered: refused at submission, *bytes_p untouched.
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -7;
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(a, dev, &size, &fo, &bo, &bytes, nullptr), hipFileHandleNotRegistered));
  EXPECT_TRUE(IsOp(hipFileWriteAsync(a, dev, &size, &fo, &bo, &bytes, nullptr),
                   hipFileHandleNotRegistered));
  EXPECT_EQ(bytes, -7);
  // Batch: the submission is refused as a whole.
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 2)));
  hipFileIOParams_t entries[2] = {};
  for (hipFileIOParams_t& e : entries) {
    e.mode = hipFileBatch;
    e.opcode = hipFileBatchWrite;
    e.fh = b;
    e.u.batch.devPtr_base = dev;
    e.u.batch.size = 4096;
  }
  entries[1].fh = a;
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 2, entries, 0), hipFileHandleNotRegistered));
  unsigned nr = 2;
  hipFileIOEvents_t events[2];
  timespec poll = {0, 0};
  ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 0, &nr, events, &poll)));
  EXPECT_EQ(nr, 0u) << "no entry of the refused submission ran";
  hipFileBatchIODestroy(batch);
  // Deregistering the stale handle is a no-op: B stays registered.
  hipFileHandleDeregister(a);

  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("b")), testing::PatternBytes(kSize, 2))
      << "a stale handle wrote B";
  EXPECT_EQ(DeviceBytes(dev, kSize), std::vector<unsigned char>(kSize, 0x5a))
      << "a stale handle read into the buffer";
  ASSERT_EQ(hipFileRead(b, dev, kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_EQ(DeviceBytes(dev, kSize), testing::PatternBytes(kSize, 2));
  hipFileHandleDeregister(b);
}

TEST_F(HandleValueTest, HandlesFromBeforeTheLastCloseStayRefused) {
  const int fd = OpenSeeded("f", 1);
  fds_.push_back(fd);
  hipFileHandle_t before = Register(fd);
  ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  hipFileHandle_t after = Register(fd);  // the same descriptor, after a reopen
  EXPECT_NE(after, before);
  void* dev = DeviceAlloc(kSize);
  EXPECT_EQ(hipFileRead(before, dev, kSize, 0, 0), kNotRegistered);
  hipFileHandleDeregister(before);  // ignored
  EXPECT_EQ(hipFileRead(after, dev, kSize, 0, 0), static_cast<ssize_t>(kSize));
}

TEST_F(HandleValueTest, ManyRegistrationCyclesNeverRepeatAValue) {
  const int fd = OpenSeeded("f", 1);
  fds_.push_back(fd);
  const int other = OpenSeeded("g", 1);
  fds_.push_back(other);
  std::set<hipFileHandle_t> seen;
  for (int i = 0; i < 2000; ++i) {
    hipFileHandle_t fh = Register(fd);
    ASSERT_TRUE(seen.insert(fh).second) << "handle value repeated at cycle " << i;
    if (i % 3 == 0) {
      hipFileHandle_t second = Register(other);
      ASSERT_TRUE(seen.insert(second).second) << "handle value repeated at cycle " << i;
      hipFileHandleDeregister(second);
    }
    if (i % 100 == 99) {
      ASSERT_TRUE(IsSuccess(hipFileDriverClose()));  // drops fh
    } else {
      hipFileHandleDeregister(fh);
    }
  }
}

}  // namespace
}  // namespace hipfile::api
