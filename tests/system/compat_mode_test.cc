// SPDX-License-Identifier: MIT
// HIPFILE_ALLOW_COMPAT_MODE=false through the C API, on the CPU runtime: `cpu` (device memory is
// host memory, moved straight by the syscalls) and, as system_tests.cpu-staged, `cpu-staged` (a
// GPU's data paths: staging, page-cache windows, stream slots). The switch turns off only the
// compatibility path - buffered I/O between the page cache and staging (docs/environment.md) -
// so aligned transfers of a file on a file system with O_DIRECT (the build tree: ext4) succeed
// on every path, and one that only buffered staging could move fails with hipFileInternalError
// and writes nothing.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/process_runtime.h"
#include "fakes/batch_entry.h"
#include "fakes/temp_dir.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

constexpr size_t kSize = 1 << 20;
constexpr ssize_t kInternalError = -static_cast<ssize_t>(hipFileInternalError);

class CompatOffTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    ASSERT_TRUE(IsSuccess(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false)));
    ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
    bool allow = true;
    ASSERT_TRUE(IsSuccess(hipFileGetParameterBool(hipFileParamPropertiesAllowCompatMode, &allow)));
    ASSERT_FALSE(allow);
  }
  void TearDown() override {
    if (!shm_.empty()) ::unlink(shm_.c_str());
    ApiTest::TearDown();
    EXPECT_TRUE(IsSuccess(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, true)));
  }
  // Device memory holding `bytes`, and what device memory holds.
  void* DeviceWith(const std::vector<unsigned char>& bytes) {
    void* dev = DeviceAlloc(bytes.size());
    EXPECT_EQ(hipMemcpy(dev, bytes.data(), bytes.size(), hipMemcpyHostToDevice), hipSuccess);
    return dev;
  }
  std::vector<unsigned char> DeviceBytes(const void* dev, size_t size) {
    std::vector<unsigned char> out(size);
    EXPECT_EQ(hipMemcpy(out.data(), dev, size, hipMemcpyDeviceToHost), hipSuccess);
    return out;
  }
  // A file of `size` pattern bytes on tmpfs, which had no O_DIRECT before Linux 6.6; -1 where it
  // takes O_DIRECT.
  int OpenShmFile(size_t size) {
    shm_ = "/dev/shm/hipfile-compat-test-" + std::to_string(::getpid());
    testing::WriteFileOrDie(shm_, testing::PatternBytes(size));
    const int probe = ::open(shm_.c_str(), O_RDWR | O_DIRECT);
    if (probe >= 0) {
      ::close(probe);
      return -1;
    }
    const int fd = ::open(shm_.c_str(), O_RDWR);
    EXPECT_GE(fd, 0);
    fds_.push_back(fd);
    return fd;
  }
  // Whether device memory passes through staging (cpu-staged) or is host memory (cpu).
  static bool Staged() { return !ProcessRuntime().DeviceMemoryIsHostMemory(); }

  std::string shm_;
};

TEST_F(CompatOffTest, AlignedSyncReadAndWriteOnAFileSystemWithODirectSucceed) {
  hipFileHandle_t fh = Register(OpenFile("f", 2 * kSize, O_RDWR));
  const std::vector<unsigned char> data = testing::PatternBytes(kSize, 7);
  void* src = DeviceWith(data);
  ASSERT_EQ(hipFileWrite(fh, src, kSize, kSize, 0), static_cast<ssize_t>(kSize));
  const std::vector<unsigned char> file = testing::ReadFileOrDie(dir_.File("f"));
  ASSERT_EQ(file.size(), 2 * kSize);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), file.begin() + kSize));
  void* dst = DeviceAlloc(2 * kSize);
  // Read twice: once cold or warm, once with the first read's page-cache window maybe pinned.
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(hipFileRead(fh, dst, 2 * kSize, 0, 0), static_cast<ssize_t>(2 * kSize));
    EXPECT_EQ(DeviceBytes(dst, 2 * kSize), file);
  }
  // A small aligned read, below the engine's residency lookup size.
  ASSERT_EQ(hipFileRead(fh, dst, 8192, kSize, 0), 8192);
  EXPECT_TRUE(std::equal(data.begin(), data.begin() + 8192, DeviceBytes(dst, 8192).begin()));
  hipFileHandleDeregister(fh);
}

// A copy tool reads a file of any size whole: the block holding end of file is read with
// O_DIRECT, short, rather than its tail buffered.
TEST_F(CompatOffTest, AReadToAnUnalignedEndOfFileSucceeds) {
  constexpr size_t kOdd = kSize + 123;
  hipFileHandle_t fh = Register(OpenFile("odd", kOdd, O_RDONLY));
  void* dst = DeviceAlloc(kOdd + 4096);
  for (const size_t asked : {kOdd, kOdd + 4096}) {
    ASSERT_EQ(hipFileRead(fh, dst, asked, 0, 0), static_cast<ssize_t>(kOdd));
    EXPECT_EQ(DeviceBytes(dst, kOdd), testing::PatternBytes(kOdd));
  }
  hipFileHandleDeregister(fh);
}

TEST_F(CompatOffTest, AlignedStreamOrderedReadAndWriteSucceed) {
  hipFileHandle_t fh = Register(OpenFile("f", 2 * kSize, O_RDWR));
  const std::vector<unsigned char> data = testing::PatternBytes(kSize, 9);
  void* src = DeviceWith(data);
  void* dst = DeviceAlloc(kSize);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  size_t size = kSize;
  hoff_t write_at = 0, read_at = 0, bo = 0;
  ssize_t wrote = -1, read = -1;
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(fh, src, &size, &write_at, &bo, &wrote, stream)));
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dst, &size, &read_at, &bo, &read, stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(wrote, static_cast<ssize_t>(kSize));
  EXPECT_EQ(read, static_cast<ssize_t>(kSize));
  EXPECT_EQ(DeviceBytes(dst, kSize), data);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  hipFileHandleDeregister(fh);
}

TEST_F(CompatOffTest, AlignedBatchReadsAndWritesSucceed) {
  hipFileHandle_t fh = Register(OpenFile("f", 4 * 4096, O_RDWR));
  const std::vector<unsigned char> data = testing::PatternBytes(2 * 4096, 11);
  void* src = DeviceWith(data);
  void* dst = DeviceAlloc(2 * 4096);
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 4)));
  auto run = [&](hipFileIOParams_t* entries, unsigned n) {
    ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, n, entries, 0)));
    std::vector<hipFileIOEvents_t> events(n);
    unsigned got = 0;
    while (got < n) {
      unsigned nr = n - got;
      ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events.data() + got, nullptr)));
      got += nr;
    }
    for (const hipFileIOEvents_t& e : events) {
      EXPECT_EQ(e.status, hipFileComplete);
      EXPECT_EQ(e.ret, 4096u);
    }
  };
  // Two small entries each way: the engine would group them through buffered staging.
  hipFileIOParams_t writes[2] = {
      testing::BatchEntry(hipFileBatchWrite, fh, src, 4096, 2 * 4096, 0, nullptr),
      testing::BatchEntry(hipFileBatchWrite, fh, src, 4096, 3 * 4096, 4096, nullptr)};
  run(writes, 2);
  const std::vector<unsigned char> file = testing::ReadFileOrDie(dir_.File("f"));
  EXPECT_TRUE(std::equal(data.begin(), data.end(), file.begin() + 2 * 4096));
  hipFileIOParams_t reads[2] = {
      testing::BatchEntry(hipFileBatchRead, fh, dst, 4096, 2 * 4096, 0, nullptr),
      testing::BatchEntry(hipFileBatchRead, fh, dst, 4096, 3 * 4096, 4096, nullptr)};
  run(reads, 2);
  EXPECT_EQ(DeviceBytes(dst, 2 * 4096), data);
  hipFileBatchIODestroy(batch);
  hipFileHandleDeregister(fh);
}

TEST_F(CompatOffTest, UnalignedWriteThroughStagingIsRefusedAndWritesNothing) {
  hipFileHandle_t fh = Register(OpenFile("f", 2 * kSize, O_RDWR));
  void* src = DeviceWith(testing::PatternBytes(kSize, 5));
  const ssize_t wrote = hipFileWrite(fh, src, kSize, 100, 0);
  if (Staged()) {
    EXPECT_EQ(wrote, kInternalError);
    EXPECT_EQ(testing::ReadFileOrDie(dir_.File("f")), testing::PatternBytes(2 * kSize));
  } else {  // host memory: the syscalls move its bytes straight, which is no compatibility path
    EXPECT_EQ(wrote, static_cast<ssize_t>(kSize));
  }
  hipFileHandleDeregister(fh);
}

TEST_F(CompatOffTest, WritesToAFileSystemWithoutODirectAreRefusedThroughStaging) {
  const int fd = OpenShmFile(kSize);
  if (fd < 0) GTEST_SKIP() << "tmpfs takes O_DIRECT on this kernel (Linux 6.6 and later)";
  hipFileHandle_t fh = Register(fd);
  const std::vector<unsigned char> data = testing::PatternBytes(kSize, 3);
  void* src = DeviceWith(data);
  const ssize_t wrote = hipFileWrite(fh, src, kSize, 0, 0);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  size_t size = kSize;
  hoff_t fo = 0, bo = 0;
  ssize_t async_wrote = -1;
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(fh, src, &size, &fo, &bo, &async_wrote, stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  if (Staged()) {
    EXPECT_EQ(wrote, kInternalError);
    EXPECT_EQ(async_wrote, kInternalError);
    EXPECT_EQ(testing::ReadFileOrDie(shm_), testing::PatternBytes(kSize));
  } else {
    EXPECT_EQ(wrote, static_cast<ssize_t>(kSize));
    EXPECT_EQ(async_wrote, static_cast<ssize_t>(kSize));
    EXPECT_EQ(testing::ReadFileOrDie(shm_), data);
  }
  hipFileHandleDeregister(fh);
}

TEST_F(CompatOffTest, BatchEntriesWithoutADirectPathFailAlone) {
  hipFileHandle_t other = Register(OpenFile("g", 4 * 4096, O_RDWR));
  hipFileHandle_t ext4 = Register(OpenFile("f", 4 * 4096, O_RDWR));
  const std::vector<unsigned char> data = testing::PatternBytes(2 * 4096, 13);
  void* src = DeviceWith(data);
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 2)));
  hipFileIOParams_t writes[2] = {
      testing::BatchEntry(hipFileBatchWrite, other, src, 4096, 100, 0, nullptr),  // unaligned
      testing::BatchEntry(hipFileBatchWrite, ext4, src, 4096, 0, 4096, nullptr)};
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 2, writes, 0)));
  std::vector<hipFileIOEvents_t> events(2);
  unsigned got = 0;
  while (got < 2) {
    unsigned nr = 2 - got;
    ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events.data() + got, nullptr)));
    got += nr;
  }
  // Events come in completion order; tell them apart by what reached the files.
  int failed = 0, completed = 0;
  for (const hipFileIOEvents_t& e : events) {
    if (e.status == hipFileFailed && static_cast<ssize_t>(e.ret) == kInternalError) ++failed;
    if (e.status == hipFileComplete && e.ret == 4096u) ++completed;
  }
  const std::vector<unsigned char> ext4_file = testing::ReadFileOrDie(dir_.File("f"));
  EXPECT_TRUE(std::equal(data.begin() + 4096, data.end(), ext4_file.begin()));
  if (Staged()) {
    EXPECT_EQ(failed, 1);
    EXPECT_EQ(completed, 1);
    EXPECT_EQ(testing::ReadFileOrDie(dir_.File("g")), testing::PatternBytes(4 * 4096));
  } else {
    EXPECT_EQ(completed, 2);
  }
  hipFileBatchIODestroy(batch);
  hipFileHandleDeregister(other);
  hipFileHandleDeregister(ext4);
}

}  // namespace
}  // namespace hipfile::api
