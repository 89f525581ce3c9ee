// SPDX-License-Identifier: MIT
// A file truncated or extended by someone else while a read on it waits: a stream-ordered read
// queued behind a held stream (StreamGate), and a batch read held in flight at its first pread
// (GateSys). The read sees the file as it is when it runs: a short count of exactly the bytes
// that remain, or the whole extended range - every byte reported is the file's.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fakes/gate.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

constexpr size_t kSize = kIoPathBufferBytes;
constexpr size_t kTruncatedTo = 10000;

class ResizeInFlightTest : public IoPathTest {
 protected:
  // Queues a read of [0, kSize) behind a held stream, runs `change` on the file, then lets the
  // stream go; returns what the read reported.
  template <class Change>
  Outcome AsyncReadAround(void* fh, Change change) {
    testing::StreamGate gate;
    EXPECT_EQ(gpu_.LaunchHostFunc(Stream(), testing::StreamGate::Wait, &gate), hipSuccess);
    size_t size = kSize;
    off_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 12345;
    const Status submitted = driver_->SubmitAsync(IoDirection::kRead, fh, dev_, &size, &file_offset,
                                                  &buffer_offset, &bytes, stream_);
    EXPECT_TRUE(submitted.ok()) << submitted.ToString();
    change();
    gate.Open();
    EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
    return FromBytesP(bytes);
  }

  // Submits a batch read of [0, kSize), holds it at its first pread, runs `change`, lets it go.
  template <class Change>
  Outcome BatchReadAround(void* fh, Change change) {
    Result<hipFileBatchHandle_t> batch = Manager().SetUp(1);
    EXPECT_TRUE(batch.ok());
    sys_.CloseGate();
    const hipFileIOParams_t p = Entry(IoDirection::kRead, fh, kSize, 0);
    EXPECT_TRUE(manager_->Submit(*batch, 1, &p).ok());
    EXPECT_TRUE(sys_.WaitHeld(1)) << "the read never reached pread";
    change();
    sys_.OpenGate();
    const Outcome out = WaitEvent(*batch);
    manager_->Destroy(*batch);
    return out;
  }

  void ExpectTruncatedRead(const Outcome& out) {
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, kTruncatedTo);
    EXPECT_EQ(DeviceBytes(kTruncatedTo), testing::PatternBytes(kTruncatedTo));
  }
  void ExpectExtendedRead(const Outcome& out) {
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, kSize);
    EXPECT_EQ(DeviceBytes(kSize), testing::PatternBytes(kSize));
  }

  void Truncate() {
    ++g_faults;
    ASSERT_EQ(::truncate(path_.c_str(), kTruncatedTo), 0);
  }
  // Same inode, grown to kSize pattern bytes.
  void Extend() {
    ++g_faults;
    testing::WriteFileOrDie(path_, testing::PatternBytes(kSize));
  }
};

TEST_F(ResizeInFlightTest, AsyncReadQueuedBehindAHeldStreamSeesTheTruncation) {
  void* fh = OpenFile("f", kSize);
  ExpectTruncatedRead(AsyncReadAround(fh, [&] { Truncate(); }));
  // Queued past the new end: nothing, not an error.
  testing::StreamGate gate;
  ASSERT_EQ(gpu_.LaunchHostFunc(Stream(), testing::StreamGate::Wait, &gate), hipSuccess);
  size_t size = 4096;
  off_t file_offset = 12288, buffer_offset = 0;
  ssize_t bytes = 12345;
  ASSERT_TRUE(driver_
                  ->SubmitAsync(IoDirection::kRead, fh, dev_, &size, &file_offset, &buffer_offset,
                                &bytes, stream_)
                  .ok());
  gate.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
  EXPECT_EQ(bytes, 0);
}

TEST_F(ResizeInFlightTest, AsyncReadQueuedBehindAHeldStreamSeesTheExtension) {
  void* fh = OpenFile("f", 4096);
  ExpectExtendedRead(AsyncReadAround(fh, [&] { Extend(); }));
}

TEST_F(ResizeInFlightTest, BatchReadInFlightSeesTheTruncation) {
  void* fh = OpenFile("f", kSize);
  ExpectTruncatedRead(BatchReadAround(fh, [&] { Truncate(); }));
  ExpectTruncatedRead(BatchReadAround(fh, [] {}));  // and so does the next one
}

TEST_F(ResizeInFlightTest, BatchReadInFlightSeesTheExtension) {
  void* fh = OpenFile("f", 4096);
  ExpectExtendedRead(BatchReadAround(fh, [&] { Extend(); }));
}

}  // namespace
}  // namespace hipfile::core
