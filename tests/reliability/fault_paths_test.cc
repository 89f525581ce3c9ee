// Storage faults on every API path (sync read/write, stream-ordered, batch) through a
// core::Driver built on FaultSys and the CPU runtime: EINTR/EAGAIN retried, short transfers
// continued, EIO/ESTALE reported with errno intact, EIO/ENOSPC part-way giving exactly the bytes
// that moved; after each fault a clean operation succeeds. Also real faults: a file truncated or
// extended after registration. The total is printed at exit as "faults injected: N".
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/status_map.h"
#include "core/batch/batch_manager.h"
#include "core/config.h"
#include "core/driver.h"
#include "fakes/fault_runtime.h"
#include "fakes/fault_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {
namespace {

using testing::SysOp;

uint64_t g_faults = 0;

class FaultPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("faults injected: %llu\n", static_cast<unsigned long long>(g_faults));
  }
};
const auto* const kPrinter = ::testing::AddGlobalTestEnvironment(new FaultPrinter);

constexpr size_t kSize = 64 * 1024;
constexpr size_t kCap = 4096;  // short-transfer cap: O_DIRECT-aligned, so it is valid there too

enum class Path { kSync, kAsync, kBatch };

std::string PathName(const ::testing::TestParamInfo<Path>& info) {
  switch (info.param) {
    case Path::kSync:
      return "Sync";
    case Path::kAsync:
      return "Async";
    case Path::kBatch:
      return "Batch";
  }
  return "Unknown";
}

// The outcome of one transfer, whatever the path: bytes moved, or the error.
struct Outcome {
  bool ok = false;
  size_t bytes = 0;
  Status error;
};

class FaultPathsTest : public ::testing::TestWithParam<Path> {
 protected:
  FaultPathsTest() : cpu_(runtime::CreateCpuRuntime()), gpu_(*cpu_) {
    driver_ = std::make_unique<Driver>(sys_, gpu_, ParseConfig(sys_));
    EXPECT_TRUE(driver_->Open().ok());
    EXPECT_EQ(gpu_.Malloc(&dev_, kSize), hipSuccess);
  }
  ~FaultPathsTest() override {
    sys_.Reset();
    manager_.reset();
    if (stream_ != nullptr) (void)gpu_.StreamDestroy(stream_);
    driver_.reset();
    for (int fd : fds_) ::close(fd);
    (void)gpu_.Free(dev_);
  }

  // A registered file of `size` pattern bytes opened read-write.
  void* OpenFile(const std::string& name, size_t size) {
    path_ = dir_.File(name);
    testing::WriteFileOrDie(path_, testing::PatternBytes(size));
    const int fd = ::open(path_.c_str(), O_RDWR);
    EXPECT_GE(fd, 0);
    fds_.push_back(fd);
    Result<void*> handle = driver_->RegisterHandle(fd);
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return handle.ok() ? *handle : nullptr;
  }

  Outcome Run(IoDirection direction, void* fh, size_t size, off_t file_offset) {
    Outcome out;
    switch (GetParam()) {
      case Path::kSync: {
        const Result<size_t> r = direction == IoDirection::kRead
                                     ? driver_->Read(fh, dev_, size, file_offset, 0)
                                     : driver_->Write(fh, dev_, size, file_offset, 0);
        out.ok = r.ok();
        if (r.ok()) out.bytes = *r;
        if (!r.ok()) out.error = r.status();
        break;
      }
      case Path::kAsync: {
        if (stream_ == nullptr) {
          EXPECT_EQ(gpu_.StreamCreate(&stream_, 0), hipSuccess);
        }
        size_t s = size;
        off_t fo = file_offset, bo = 0;
        ssize_t bytes = 12345;
        const Status submitted =
            driver_->SubmitAsync(direction, fh, dev_, &s, &fo, &bo, &bytes, stream_);
        EXPECT_TRUE(submitted.ok()) << submitted.ToString();
        EXPECT_EQ(gpu_.StreamSynchronize(stream_), hipSuccess);
        // *bytes_p: bytes, or a negated errno (system errors are below HIPFILE_BASE_ERR).
        out.ok = bytes >= 0;
        if (out.ok) out.bytes = static_cast<size_t>(bytes);
        if (!out.ok) out.error = Status::Errno(static_cast<int>(-bytes));
        break;
      }
      case Path::kBatch: {
        if (manager_ == nullptr) manager_ = std::make_unique<BatchManager>(*driver_, 2);
        Result<hipFileBatchHandle_t> batch = manager_->SetUp(1);
        EXPECT_TRUE(batch.ok());
        hipFileIOParams_t p = {};
        p.mode = hipFileBatch;
        p.opcode = direction == IoDirection::kRead ? hipFileBatchRead : hipFileBatchWrite;
        p.fh = fh;
        p.u.batch.devPtr_base = dev_;
        p.u.batch.size = size;
        p.u.batch.file_offset = file_offset;
        const Status submitted = manager_->Submit(*batch, 1, &p);
        EXPECT_TRUE(submitted.ok()) << submitted.ToString();
        hipFileIOEvents_t ev = {};
        unsigned nr = 1;
        EXPECT_TRUE(manager_->GetStatus(*batch, 1, &nr, &ev, nullptr).ok());
        EXPECT_EQ(nr, 1u);
        const ssize_t ret = static_cast<ssize_t>(ev.ret);
        out.ok = ev.status == hipFileComplete;
        if (out.ok) out.bytes = ev.ret;
        if (!out.ok) {
          EXPECT_EQ(ev.status, hipFileFailed);
          out.error = Status::Errno(static_cast<int>(-ret));
        }
        manager_->Destroy(*batch);
        break;
      }
    }
    return out;
  }

  // Reads the whole file cleanly and checks it against the pattern: nothing was left broken.
  void ExpectCleanRead(void* fh, size_t file_size) {
    sys_.Reset();
    const Outcome out = Run(IoDirection::kRead, fh, file_size, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, file_size);
    EXPECT_EQ(DeviceBytes(file_size), testing::PatternBytes(file_size));
  }

  std::vector<unsigned char> DeviceBytes(size_t size) {
    std::vector<unsigned char> bytes(size);
    EXPECT_EQ(gpu_.Memcpy(bytes.data(), dev_, size, hipMemcpyDeviceToHost), hipSuccess);
    return bytes;
  }
  void FillDevice(const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(gpu_.Memcpy(dev_, bytes.data(), bytes.size(), hipMemcpyHostToDevice), hipSuccess);
  }

  testing::TempDir dir_;
  testing::FaultSys sys_;
  std::unique_ptr<runtime::GpuRuntime> cpu_;
  testing::FaultRuntime gpu_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<BatchManager> manager_;
  runtime::Stream stream_ = nullptr;
  void* dev_ = nullptr;
  std::string path_;
  std::vector<int> fds_;
};

TEST_P(FaultPathsTest, ReadRetriesEintrAndEagain) {
  void* fh = OpenFile("f", kSize);
  for (int e : {EINTR, EAGAIN}) {
    sys_.Reset();
    sys_.FailTimes(SysOp::kPread, 3, e);
    const Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, kSize);
    EXPECT_EQ(DeviceBytes(kSize), testing::PatternBytes(kSize));
    EXPECT_GE(sys_.Calls(SysOp::kPread), 4u) << "the faults were not reached";
    g_faults += 3;
  }
  ExpectCleanRead(fh, kSize);
}

TEST_P(FaultPathsTest, EndlessEagainIsReported) {
  void* fh = OpenFile("f", kSize);
  sys_.FailAlways(SysOp::kPread, EAGAIN);
  const Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
  g_faults += sys_.Calls(SysOp::kPread);
  ASSERT_FALSE(out.ok);
  EXPECT_TRUE(out.error.IsErrno(EAGAIN)) << out.error.ToString();
  ExpectCleanRead(fh, kSize);
}

TEST_P(FaultPathsTest, WriteRetriesEintrAndEagain) {
  void* fh = OpenFile("f", kSize);
  const std::vector<unsigned char> data = testing::PatternBytes(kSize, 7);
  FillDevice(data);
  for (int e : {EINTR, EAGAIN}) {
    sys_.Reset();
    sys_.FailTimes(SysOp::kPwrite, 3, e);
    const Outcome out = Run(IoDirection::kWrite, fh, kSize, 0);
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, kSize);
    EXPECT_EQ(testing::ReadFileOrDie(path_), data);
    g_faults += 3;
  }
}

TEST_P(FaultPathsTest, ShortTransfersAreContinued) {
  void* fh = OpenFile("f", kSize);
  sys_.ShortTransfers(SysOp::kPread, kCap);
  Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
  g_faults += sys_.Calls(SysOp::kPread);
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, kSize);
  EXPECT_EQ(DeviceBytes(kSize), testing::PatternBytes(kSize));
  EXPECT_GE(sys_.Calls(SysOp::kPread), kSize / kCap);

  sys_.Reset();
  const std::vector<unsigned char> data = testing::PatternBytes(kSize, 9);
  FillDevice(data);
  sys_.ShortTransfers(SysOp::kPwrite, 1000);  // writes are buffered: any cap is valid
  out = Run(IoDirection::kWrite, fh, kSize, 0);
  g_faults += sys_.Calls(SysOp::kPwrite);
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, kSize);
  EXPECT_EQ(testing::ReadFileOrDie(path_), data);
  EXPECT_GE(sys_.Calls(SysOp::kPwrite), (kSize + 999) / 1000);
}

TEST_P(FaultPathsTest, ErrorOnFirstCallKeepsErrno) {
  void* fh = OpenFile("f", kSize);
  for (const IoDirection direction : {IoDirection::kRead, IoDirection::kWrite}) {
    for (int e : {EIO, ESTALE, ENOSPC}) {
      if (direction == IoDirection::kRead && e == ENOSPC) continue;
      sys_.Reset();
      const SysOp op = direction == IoDirection::kRead ? SysOp::kPread : SysOp::kPwrite;
      sys_.FailNth(op, 1, e);
      const Outcome out = Run(direction, fh, kSize, 0);
      ++g_faults;
      ASSERT_FALSE(out.ok) << "bytes " << out.bytes;
      EXPECT_TRUE(out.error.IsErrno(e)) << out.error.ToString();
      if (GetParam() == Path::kSync) {
        // Through the C API's mapping: -1 with errno intact.
        errno = 0;
        const Result<size_t> result = out.error;
        EXPECT_EQ(api::ToSsize(result), -1);
        EXPECT_EQ(errno, e);
      }
      if (direction == IoDirection::kWrite) {
        EXPECT_EQ(testing::ReadFileOrDie(path_), testing::PatternBytes(kSize))
            << "a failed write changed the file";
      }
    }
  }
  ExpectCleanRead(fh, kSize);
}

TEST_P(FaultPathsTest, ReadErrorMidwayGivesBytesThatArrived) {
  void* fh = OpenFile("f", kSize);
  FillDevice(std::vector<unsigned char>(kSize, 0xee));
  sys_.ShortTransfers(SysOp::kPread, kCap);
  sys_.FailNth(SysOp::kPread, 3, EIO);
  const Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
  g_faults += 3;
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, 2 * kCap);
  const std::vector<unsigned char> got = DeviceBytes(kSize);
  const std::vector<unsigned char> want = testing::PatternBytes(kSize);
  EXPECT_TRUE(std::equal(want.begin(), want.begin() + 2 * kCap, got.begin()))
      << "the bytes reported as read are not the file's";
  ExpectCleanRead(fh, kSize);
}

TEST_P(FaultPathsTest, WriteErrorMidwayGivesBytesThatReachedTheFile) {
  for (int e : {ENOSPC, EIO}) {
    void* fh = OpenFile(e == ENOSPC ? "nospc" : "eio", 0);
    const std::vector<unsigned char> data = testing::PatternBytes(kSize, 3);
    FillDevice(data);
    sys_.Reset();
    sys_.ShortTransfers(SysOp::kPwrite, 1000);
    sys_.FailNth(SysOp::kPwrite, 3, e);
    const Outcome out = Run(IoDirection::kWrite, fh, kSize, 0);
    g_faults += 3;
    ASSERT_TRUE(out.ok) << out.error.ToString();
    EXPECT_EQ(out.bytes, 2000u);
    const std::vector<unsigned char> file = testing::ReadFileOrDie(path_);
    ASSERT_EQ(file.size(), out.bytes) << "the file does not hold exactly the reported bytes";
    EXPECT_TRUE(std::equal(file.begin(), file.end(), data.begin()));
    // A clean write afterwards completes the file.
    sys_.Reset();
    const Outcome again = Run(IoDirection::kWrite, fh, kSize, 0);
    ASSERT_TRUE(again.ok) << again.error.ToString();
    EXPECT_EQ(again.bytes, kSize);
    EXPECT_EQ(testing::ReadFileOrDie(path_), data);
  }
}

TEST_P(FaultPathsTest, FileTruncatedAfterRegistration) {
  void* fh = OpenFile("f", kSize);
  ASSERT_EQ(::truncate(path_.c_str(), 10000), 0);
  const Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, 10000u);
  const std::vector<unsigned char> got = DeviceBytes(10000);
  EXPECT_EQ(got, testing::PatternBytes(10000));
  // Past the new end: nothing.
  const Outcome past = Run(IoDirection::kRead, fh, 4096, 12288);
  ASSERT_TRUE(past.ok) << past.error.ToString();
  EXPECT_EQ(past.bytes, 0u);
  g_faults += 1;
}

TEST_P(FaultPathsTest, FileExtendedAfterRegistration) {
  void* fh = OpenFile("f", 4096);
  testing::WriteFileOrDie(path_, testing::PatternBytes(kSize));  // same inode, grown
  const Outcome out = Run(IoDirection::kRead, fh, kSize, 0);
  ASSERT_TRUE(out.ok) << out.error.ToString();
  EXPECT_EQ(out.bytes, kSize);
  EXPECT_EQ(DeviceBytes(kSize), testing::PatternBytes(kSize));
  g_faults += 1;
}

INSTANTIATE_TEST_SUITE_P(AllPaths, FaultPathsTest,
                         ::testing::Values(Path::kSync, Path::kAsync, Path::kBatch), PathName);

}  // namespace
}  // namespace hipfile::core
