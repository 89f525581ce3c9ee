// SPDX-License-Identifier: MIT
// The caller closes its descriptor while reads on it wait: stream-ordered reads queued behind a
// held stream (StreamGate) and batch reads held in flight at pread (GateSys), each with an
// O_DIRECT-aligned and an unaligned (buffered) request. Every read ends with -EBADF or with the
// registered file's bytes - never a crash, a hang, or the bytes of whatever file the descriptor
// number was given to next - and the library keeps working afterwards.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "fakes/gate.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

constexpr size_t kSize = kIoPathBufferBytes;

// Two reads into disjoint parts of the buffer, at the same offset in the buffer as in the file.
struct Request {
  size_t size;
  off_t offset;
};
constexpr Request kRequests[] = {{32768, 0}, {1000, 40000}};  // aligned, unaligned

class ClosedDescriptorTest : public IoPathTest {
 protected:
  // Closes the caller's descriptor; with `reuse`, the number then names another file (seed 2).
  void CloseCallerFd(bool reuse) {
    ++g_faults;
    const int fd = fds_.front();
    ASSERT_EQ(::close(fd), 0);
    fds_.front() = -1;
    if (!reuse) return;
    const std::string other = dir_.File("other");
    testing::WriteFileOrDie(other, testing::PatternBytes(kSize, 2));
    const int other_fd = ::open(other.c_str(), O_RDWR);  // usually gets `fd` itself
    ASSERT_GE(other_fd, 0);
    if (other_fd != fd) {
      ASSERT_EQ(::dup2(other_fd, fd), fd);
      ::close(other_fd);
    }
    fds_.front() = fd;
  }

  void ExpectErrorOrTheFilesBytes(const Outcome& out, const Request& r) {
    if (!out.ok) {
      EXPECT_TRUE(out.error.IsErrno(EBADF)) << out.error.ToString();
      return;
    }
    ASSERT_EQ(out.bytes, r.size);
    const std::vector<unsigned char> got = DeviceBytes(kSize);
    const std::vector<unsigned char> want = testing::PatternBytes(kSize);
    EXPECT_TRUE(std::equal(got.begin() + r.offset, got.begin() + r.offset + r.size,
                           want.begin() + r.offset))
        << "reported " << r.size << " bytes at " << r.offset << " that are not the file's";
  }

  void QueuedAsyncReads(bool reuse) {
    void* fh = OpenFile("f", kSize);
    FillDevice(std::vector<unsigned char>(kSize, 0xee));
    testing::StreamGate gate;
    ASSERT_EQ(gpu_.LaunchHostFunc(Stream(), testing::StreamGate::Wait, &gate), hipSuccess);
    struct Args {
      size_t size;
      off_t file_offset, buffer_offset;
      ssize_t bytes = 12345;
    } args[2] = {{kRequests[0].size, kRequests[0].offset, kRequests[0].offset},
                 {kRequests[1].size, kRequests[1].offset, kRequests[1].offset}};
    for (Args& a : args) {
      ASSERT_TRUE(driver_
                      ->SubmitAsync(IoDirection::kRead, fh, dev_, &a.size, &a.file_offset,
                                    &a.buffer_offset, &a.bytes, stream_)
                      .ok());
    }
    CloseCallerFd(reuse);
    gate.Open();
    ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    for (int i = 0; i < 2; ++i) ExpectErrorOrTheFilesBytes(FromBytesP(args[i].bytes), kRequests[i]);
    ExpectLaterOperationsWork(fh, reuse);
  }

  void InFlightBatchReads(bool reuse) {
    void* fh = OpenFile("f", kSize);
    FillDevice(std::vector<unsigned char>(kSize, 0xee));
    Result<hipFileBatchHandle_t> batch = Manager().SetUp(2);
    ASSERT_TRUE(batch.ok());
    hipFileIOParams_t params[2];
    for (int i = 0; i < 2; ++i) {
      params[i] = Entry(IoDirection::kRead, fh, kRequests[i].size, kRequests[i].offset);
      params[i].u.batch.devPtr_offset = kRequests[i].offset;
      params[i].cookie = &params[i];
    }
    sys_.CloseGate();
    ASSERT_TRUE(manager_->Submit(*batch, 2, params).ok());
    ASSERT_TRUE(sys_.WaitHeld(1)) << "no read reached pread";
    CloseCallerFd(reuse);
    sys_.OpenGate();
    hipFileIOEvents_t events[2] = {};
    unsigned nr = 2;
    ASSERT_TRUE(manager_->GetStatus(*batch, 2, &nr, events, nullptr).ok());
    ASSERT_EQ(nr, 2u);
    for (const hipFileIOEvents_t& ev : events) {
      ExpectErrorOrTheFilesBytes(FromEvent(ev), kRequests[ev.cookie == &params[0] ? 0 : 1]);
    }
    manager_->Destroy(*batch);
    ExpectLaterOperationsWork(fh, reuse);
  }

  // The stale handle deregisters; the descriptor number, open again on another file (or on the
  // same file), registers and reads that file.
  void ExpectLaterOperationsWork(void* fh, bool reuse) {
    driver_->DeregisterHandle(fh);
    EXPECT_EQ(driver_->Read(fh, dev_, 10, 0, 0).status(), Status::Op(hipFileHandleNotRegistered));
    fh = reuse ? Register(fds_.front()) : Register(path_);
    const Result<size_t> r = driver_->Read(fh, dev_, kSize, 0, 0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, kSize);
    EXPECT_EQ(DeviceBytes(kSize), testing::PatternBytes(kSize, reuse ? 2 : 1));
  }
};

TEST_F(ClosedDescriptorTest, QueuedAsyncReadsEndWithEbadfOrTheFilesBytes) {
  QueuedAsyncReads(/*reuse=*/false);
}

TEST_F(ClosedDescriptorTest, QueuedAsyncReadsNeverReadTheFileTheNumberWasReusedFor) {
  QueuedAsyncReads(/*reuse=*/true);
}

TEST_F(ClosedDescriptorTest, InFlightBatchReadsEndWithEbadfOrTheFilesBytes) {
  InFlightBatchReads(/*reuse=*/false);
}

TEST_F(ClosedDescriptorTest, InFlightBatchReadsNeverReadTheFileTheNumberWasReusedFor) {
  InFlightBatchReads(/*reuse=*/true);
}

}  // namespace
}  // namespace hipfile::core
