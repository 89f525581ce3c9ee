// SPDX-License-Identifier: MIT
#include "core/driver.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "core/io_rules.h"
#include "core_test_util.h"
#include "fakes/gate.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;
using testing::SysOp;

class DriverLifecycleTest : public CoreTest {
 protected:
  // The descriptors the library opened for a registered handle.
  engine::IoFile Owned(const void* handle) {
    const Result<PreparedIo> io = driver().Prepare(IoDirection::kRead, handle, DeviceAlloc(4096));
    EXPECT_TRUE(io.ok()) << io.status().ToString();
    return io.ok() ? io->file->io() : engine::IoFile{};
  }

  std::string path_ = MakeFile("data", 4096);
};

TEST_F(DriverLifecycleTest, OpenAndCloseCount) {
  EXPECT_EQ(driver().UseCount(), 0);
  EXPECT_EQ(driver().Close(), Status::Op(hipFileDriverNotInitialized));
  ASSERT_TRUE(driver().Open().ok());
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_EQ(driver().UseCount(), 2);
  EXPECT_TRUE(driver().Close().ok());
  EXPECT_EQ(driver().UseCount(), 1);
  EXPECT_TRUE(driver().Close().ok());
  EXPECT_EQ(driver().UseCount(), 0);
  EXPECT_EQ(driver().Close(), Status::Op(hipFileDriverNotInitialized));
}

// An open never waits for the program's streams. A close that found stream-ordered work in
// flight retires the engine instead of freeing its pinned memory (freeing waits for every
// stream); a later open must not free it either, since a stream may be waiting for the very
// thread that opens. The API fuzzer hung an open that way; the next last close frees it.
TEST_F(DriverLifecycleTest, AnOpenDoesNotWaitForAHeldStream) {
  constexpr size_t kBytes = size_t{1} << 20;
  ScopedFd fd(MakeFile("f", kBytes), O_RDONLY);
  ASSERT_TRUE(driver().Open().ok());
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  void* device = DeviceAlloc(kBytes);
  runtime::Stream stream = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream, hipStreamNonBlocking), hipSuccess);
  // A stream-ordered read in flight at the last close: the engine is retired, not freed.
  testing::StreamGate first;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream, testing::StreamGate::Wait, &first), hipSuccess);
  size_t size = kBytes;
  off_t zero = 0;
  ssize_t bytes = -1;
  ASSERT_TRUE(
      driver()
          .SubmitAsync(IoDirection::kRead, *handle, device, &size, &zero, &zero, &bytes, stream)
          .ok());
  ASSERT_TRUE(driver().Close().ok());
  first.Open();
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kBytes));
  AsyncExecutor* executor = *driver().async_executor();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (executor->Outstanding() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(executor->Outstanding(), 0u);

  // The stream held again, by a host function released only once the open has returned.
  testing::StreamGate second;
  ASSERT_EQ(gpu_.LaunchHostFunc(stream, testing::StreamGate::Wait, &second), hipSuccess);
  std::atomic<bool> opened{false};
  std::thread opener([&] {
    EXPECT_TRUE(driver().Open().ok());
    opened = true;
  });
  const auto open_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!opened && std::chrono::steady_clock::now() < open_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(opened) << "the open waited for a held stream";
  second.Open();
  opener.join();
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  const uint64_t freed = gpu_.Calls(GpuOp::kHostFree);
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_GT(gpu_.Calls(GpuOp::kHostFree), freed) << "the last close frees both engines' staging";
  ASSERT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
}

TEST_F(DriverLifecycleTest, RegistrationOpensImplicitlyOnlyOnceStored) {
  EXPECT_FALSE(driver().RegisterHandle(-1).ok());
  EXPECT_EQ(driver().UseCount(), 0);

  ScopedFd a(path_, O_RDONLY), b(path_, O_RDONLY);
  ASSERT_TRUE(driver().RegisterHandle(a.get()).ok());
  EXPECT_EQ(driver().UseCount(), 1);
  ASSERT_TRUE(driver().RegisterHandle(b.get()).ok());
  EXPECT_EQ(driver().UseCount(), 1);  // never above 1 implicitly
  ASSERT_TRUE(driver().RegisterBuffer(DeviceAlloc(4096), 4096, 0).ok());
  EXPECT_EQ(driver().UseCount(), 1);
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_EQ(driver().UseCount(), 2);  // explicit open after implicit
  ASSERT_TRUE(driver().Close().ok());
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, BufferRegistrationOpensImplicitly) {
  ASSERT_TRUE(driver().RegisterBuffer(DeviceAlloc(4096), 4096, 0).ok());
  EXPECT_EQ(driver().UseCount(), 1);
  ASSERT_TRUE(driver().Close().ok());
}

// As hipFile, before anything else: a refused buffer registration leaves the driver open.
TEST_F(DriverLifecycleTest, BufferRegistrationOpensEvenWhenRefused) {
  EXPECT_EQ(driver().RegisterBuffer(nullptr, 10, 0), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().UseCount(), 1);
  EXPECT_EQ(driver().RegisterBuffer(nullptr, 10, 0), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().UseCount(), 1);  // never above 1
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, FailedDuplicateRegistrationsDoNotOpen) {
  ScopedFd fd(path_, O_RDONLY);
  ASSERT_TRUE(driver().RegisterHandle(fd.get()).ok());
  ASSERT_TRUE(driver().Close().ok());  // drops the registration
  ASSERT_TRUE(driver().RegisterHandle(fd.get()).ok());
  EXPECT_EQ(driver().RegisterHandle(fd.get()).status(), Status::Op(hipFileHandleAlreadyRegistered));
  void* p = DeviceAlloc(4096);
  ASSERT_TRUE(driver().RegisterBuffer(p, 4096, 0).ok());
  EXPECT_EQ(driver().RegisterBuffer(p, 100, 0), Status::Op(hipFileMemoryAlreadyRegistered));
  EXPECT_EQ(driver().UseCount(), 1);
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, ConcurrentFirstRegistrationsOpenOnce) {
  constexpr int kThreads = 8;
  std::vector<std::unique_ptr<ScopedFd>> fds;
  for (int i = 0; i < kThreads; ++i) fds.push_back(std::make_unique<ScopedFd>(path_, O_RDONLY));
  Driver& d = driver();  // built before the threads start
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      if (d.RegisterHandle(fds[i]->get()).ok()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), kThreads);
  EXPECT_EQ(driver().UseCount(), 1);
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, ConcurrentRegistrationsOfOneDescriptorStoreOne) {
  ScopedFd fd(path_, O_RDONLY);
  Driver& d = driver();  // built before the threads start
  std::atomic<int> ok{0}, duplicate{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      const Result<void*> r = d.RegisterHandle(fd.get());
      if (r.ok()) ++ok;
      if (r.status().IsOp(hipFileHandleAlreadyRegistered)) ++duplicate;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(duplicate.load(), 7);
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, LastCloseDropsBuffersAndFilesAndTheirDescriptors) {
  ScopedFd fd(path_, O_RDWR);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  void* buffer = DeviceAlloc(4096);
  ASSERT_TRUE(driver().RegisterBuffer(buffer, 4096, 0).ok());
  EXPECT_TRUE(driver().EngineOptionsInUse().has_value());
  // The descriptors the library opened.
  const engine::IoFile owned = Owned(*handle);

  ASSERT_TRUE(driver().Close().ok());
  EXPECT_FALSE(driver().EngineOptionsInUse().has_value());
  EXPECT_FALSE(FdIsOpen(owned.buffered_fd));
  if (owned.direct_fd >= 0) {
    EXPECT_FALSE(FdIsOpen(owned.direct_fd));
  }
  EXPECT_TRUE(FdIsOpen(fd.get()));
  // Registrations are gone: I/O at count 0 is EINVAL, after a reopen the handle is unknown.
  EXPECT_EQ(driver().Read(*handle, buffer, 10, 0, 0).status(), Status::Errno(EINVAL));
  ASSERT_TRUE(driver().Open().ok());
  EXPECT_EQ(driver().Read(*handle, buffer, 10, 0, 0).status(),
            Status::Op(hipFileHandleNotRegistered));
  EXPECT_EQ(driver().DeregisterBuffer(buffer), Status::Op(hipFileMemoryNotRegistered));
  // The descriptor can be registered again.
  EXPECT_TRUE(driver().RegisterHandle(fd.get()).ok());
  ASSERT_TRUE(driver().Close().ok());
}

TEST_F(DriverLifecycleTest, BufferDeregistration) {
  void* p = DeviceAlloc(4096);
  EXPECT_EQ(driver().DeregisterBuffer(p), Status::Op(hipFileDriverClosing));
  ASSERT_TRUE(driver().RegisterBuffer(p, 4096, 0).ok());
  EXPECT_TRUE(driver().DeregisterBuffer(p).ok());
  EXPECT_EQ(driver().DeregisterBuffer(p), Status::Op(hipFileMemoryNotRegistered));
  EXPECT_EQ(driver().UseCount(), 1);  // deregistration does not close
  ASSERT_TRUE(driver().Close().ok());
  EXPECT_EQ(driver().DeregisterBuffer(p), Status::Op(hipFileDriverClosing));
}

TEST_F(DriverLifecycleTest, HandleDeregistration) {
  ScopedFd fd(path_, O_RDONLY);
  driver().DeregisterHandle(&fd);  // unknown: ignored
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  const engine::IoFile owned = Owned(*handle);
  driver().DeregisterHandle(*handle);
  EXPECT_FALSE(FdIsOpen(owned.buffered_fd));
  if (owned.direct_fd >= 0) {
    EXPECT_FALSE(FdIsOpen(owned.direct_fd));
  }
  driver().DeregisterHandle(*handle);  // twice: ignored
  EXPECT_EQ(driver().UseCount(), 1);
  hipFileStatsLevel1_t l1;
  driver().stats().FillL1(&l1);
  EXPECT_EQ(l1.hdl_register_ops.ok, 1u);
  EXPECT_EQ(l1.hdl_deregister_ops.ok, 1u);
  EXPECT_EQ(l1.hdl_deregister_ops.err, 2u);
  ASSERT_TRUE(driver().Close().ok());
}

class DriverIoTest : public CoreTest {
 protected:
  static constexpr size_t kFileSize = 256 << 10;

  void SetUp() override {
    path_ = MakeFile("data", kFileSize);
    fd_ = std::make_unique<ScopedFd>(path_, O_RDWR);
    Result<void*> handle = driver().RegisterHandle(fd_->get());
    ASSERT_TRUE(handle.ok());
    handle_ = *handle;
  }
  void TearDown() override {
    while (driver().UseCount() > 0) ASSERT_TRUE(driver().Close().ok());
  }

  std::vector<unsigned char> DeviceBytes(const void* p, size_t size) {
    std::vector<unsigned char> bytes(size);
    EXPECT_EQ(gpu_.Memcpy(bytes.data(), p, size, hipMemcpyDeviceToHost), hipSuccess);
    return bytes;
  }

  std::string path_;
  std::unique_ptr<ScopedFd> fd_;
  void* handle_ = nullptr;
};

// With a runtime whose device memory is not host memory (FaultRuntime), as on a GPU: pinned host
// memory is read into and written from directly, registered or not, up to its allocation's end.
TEST_F(DriverIoTest, UnregisteredPinnedHostMemoryIsReadAndWrittenDirectly) {
  char* pinned = static_cast<char*>(HostAlloc(kFileSize));
  Result<size_t> n = driver().Read(handle_, pinned + 4096, 10000, 123, 4096);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 10000u);
  const std::vector<unsigned char> want = testing::PatternBytes(kFileSize);
  EXPECT_EQ(std::memcmp(pinned + 8192, want.data() + 123, 10000), 0);
  n = driver().Write(handle_, pinned + 8192, 10000, 0, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 10000u);
  EXPECT_EQ(driver().Read(handle_, pinned + 4096, kFileSize - 4096 + 1, 0, 0).status(),
            Status::Op(hipFileInvalidValue));
}

TEST_F(DriverIoTest, ReadsIntoUnregisteredDeviceMemory) {
  char* buffer = static_cast<char*>(DeviceAlloc(kFileSize));
  Result<size_t> n = driver().Read(handle_, buffer, 10000, 123, 0);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 10000u);
  const std::vector<unsigned char> expected = testing::PatternBytes(kFileSize);
  const std::vector<unsigned char> got = DeviceBytes(buffer, 10000);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin() + 123));
}

TEST_F(DriverIoTest, WritesAndReadsBackThroughRegisteredBuffersWithOffsets) {
  char* src = static_cast<char*>(DeviceAlloc(64 << 10));
  char* dst = static_cast<char*>(HostAlloc(64 << 10));
  const std::vector<unsigned char> data = testing::PatternBytes(64 << 10, 7);
  ASSERT_EQ(gpu_.Memcpy(src, data.data(), data.size(), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_TRUE(driver().RegisterBuffer(src, 64 << 10, 0).ok());
  ASSERT_TRUE(driver().RegisterBuffer(dst, 64 << 10, 0).ok());

  Result<size_t> written = driver().Write(handle_, src, 8192, 4096, 1000);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, 8192u);
  Result<size_t> read = driver().Read(handle_, dst, 8192, 4096, 500);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, 8192u);
  EXPECT_EQ(std::memcmp(dst + 500, data.data() + 1000, 8192), 0);
  const std::vector<unsigned char> file = testing::ReadFileOrDie(path_);
  EXPECT_EQ(std::memcmp(file.data() + 4096, data.data() + 1000, 8192), 0);

  hipFileStatsLevel1_t l1;
  driver().stats().FillL1(&l1);
  EXPECT_EQ(l1.read_ops.ok, 1u);
  EXPECT_EQ(l1.write_ops.ok, 1u);
  EXPECT_EQ(l1.read_bytes, 8192u);
  EXPECT_EQ(l1.write_bytes, 8192u);
  EXPECT_EQ(l1.buf_register_ops.ok, 2u);
}

TEST_F(DriverIoTest, ReadAtEndOfFileIsShort) {
  void* buffer = DeviceAlloc(kFileSize);
  Result<size_t> n = driver().Read(handle_, buffer, 8192, kFileSize - 100, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 100u);
  n = driver().Read(handle_, buffer, 8192, kFileSize + 100, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
}

TEST_F(DriverIoTest, ZeroSizeIsZero) {
  void* buffer = DeviceAlloc(4096);
  Result<size_t> n = driver().Read(handle_, buffer, 0, 0, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
  n = driver().Write(handle_, buffer, 0, 0, 4095);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
}

TEST_F(DriverIoTest, RulesApplyInOrder) {
  void* buffer = DeviceAlloc(4096);
  std::vector<char> pageable(4096);
  int not_a_handle = 0;
  // Rule 2 before rule 3: the handle is checked before the offsets.
  EXPECT_EQ(driver().Read(&not_a_handle, buffer, 10, -1, 0).status(),
            Status::Op(hipFileHandleNotRegistered));
  EXPECT_EQ(driver().Read(nullptr, buffer, 10, 0, 0).status(),
            Status::Op(hipFileHandleNotRegistered));
  // The buffer before the offsets.
  EXPECT_EQ(driver().Read(handle_, pageable.data(), 10, -1, 0).status(),
            Status::Op(hipFileHipMemoryTypeInvalid));
  EXPECT_EQ(driver().Read(handle_, HostAlloc(4096), 10, 0, 4096).status(),
            Status::Op(hipFileInvalidValue));  // pinned: the range is its allocation's
  EXPECT_EQ(driver().Read(handle_, nullptr, 10, 0, 0).status(), Status::Op(hipFileInvalidValue));
  gpu_.FailNth(GpuOp::kPointerGetInfo, 1, hipErrorIllegalAddress);
  EXPECT_EQ(driver().Read(handle_, buffer, 10, 0, 0).status(), Status::Gpu(hipErrorIllegalAddress));
  // Offsets before the range.
  EXPECT_EQ(driver().Read(handle_, buffer, 1 << 20, -1, 0).status(), Status::Errno(EINVAL));
  EXPECT_EQ(driver().Write(handle_, buffer, 10, 0, -1).status(), Status::Errno(EINVAL));
  // Range.
  EXPECT_EQ(driver().Read(handle_, buffer, 4097, 0, 0).status(), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().Read(handle_, buffer, 2, 0, 4095).status(), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().Read(handle_, buffer, 0, 0, 4096).status(), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().Write(handle_, buffer, SIZE_MAX, 0, 1).status(),
            Status::Op(hipFileInvalidValue));

  hipFileStatsLevel1_t l1;
  driver().stats().FillL1(&l1);
  EXPECT_EQ(l1.read_ops.err, 10u);
  EXPECT_EQ(l1.write_ops.err, 2u);
}

TEST_F(DriverIoTest, RegisteredLengthBoundsTheRange) {
  char* buffer = static_cast<char*>(DeviceAlloc(8192));
  ASSERT_TRUE(driver().RegisterBuffer(buffer, 1000, 0).ok());
  EXPECT_EQ(driver().Read(handle_, buffer, 1001, 0, 0).status(), Status::Op(hipFileInvalidValue));
  EXPECT_TRUE(driver().Read(handle_, buffer, 1000, 0, 0).ok());
  // An interior pointer is not the registered base: looked up as unregistered device memory.
  EXPECT_TRUE(driver().Read(handle_, buffer + 100, 5000, 0, 0).ok());
}

TEST_F(DriverIoTest, SystemErrorsKeepTheirErrno) {
  void* buffer = DeviceAlloc(4096);
  sys_.FailAlways(SysOp::kPread, EIO);
  EXPECT_EQ(driver().Read(handle_, buffer, 4096, 0, 0).status(), Status::Errno(EIO));
  sys_.Reset();
  sys_.FailAlways(SysOp::kPwrite, ENOSPC);
  EXPECT_EQ(driver().Write(handle_, buffer, 4096, 0, 0).status(), Status::Errno(ENOSPC));
}

// PrepareMany (a batch submission's lookups): each result as Prepare gives it, in order, and an
// unregistered buffer described once however many transfers name it.
TEST_F(DriverIoTest, PrepareManyAnswersAsPrepareDoesAndDescribesEachBufferOnce) {
  char* registered = static_cast<char*>(DeviceAlloc(4096));
  char* unregistered = static_cast<char*>(DeviceAlloc(8192));
  ASSERT_TRUE(driver().RegisterBuffer(registered, 4096, 0).ok());
  int not_a_handle = 0;
  const Driver::PrepareArgs args[] = {
      {IoDirection::kRead, handle_, registered},
      {IoDirection::kWrite, handle_, unregistered},
      {IoDirection::kRead, &not_a_handle, registered},
      {IoDirection::kRead, handle_, unregistered},
  };
  const uint64_t described = gpu_.Calls(testing::GpuOp::kPointerGetInfo);
  std::vector<Result<PreparedIo>> out = driver().PrepareMany(args, 4);
  ASSERT_EQ(out.size(), 4u);
  ASSERT_TRUE(out[0].ok());
  EXPECT_EQ(out[0]->registered->length, 4096u);
  ASSERT_TRUE(out[1].ok());
  EXPECT_EQ(out[1]->direction, IoDirection::kWrite);
  EXPECT_EQ(out[1]->buffer.length, 8192u);
  EXPECT_EQ(out[1]->registered, nullptr);
  ASSERT_FALSE(out[2].ok());
  EXPECT_EQ(out[2].status().ToString(),
            driver().Prepare(IoDirection::kRead, &not_a_handle, registered).status().ToString());
  ASSERT_TRUE(out[3].ok());
  EXPECT_EQ(out[3]->buffer.length, 8192u);
  EXPECT_EQ(gpu_.Calls(testing::GpuOp::kPointerGetInfo) - described, 1u)
      << "the unregistered buffer was described more than once";
  // With the driver closed, each says so as Prepare does.
  while (driver().UseCount() > 0) ASSERT_TRUE(driver().Close().ok());
  out = driver().PrepareMany(args, 1);
  ASSERT_FALSE(out[0].ok());
  EXPECT_TRUE(out[0].status().IsErrno(EINVAL));
}

class DriverNoCompatTest : public DriverIoTest {
 protected:
  void SetUp() override {
    sys_.Set("HIPFILE_ALLOW_COMPAT_MODE", "false");
    DriverIoTest::SetUp();
  }
};

// The switch turns off the compatibility path only: a transfer is refused, after the other
// rules, where its bytes could move only buffered through staging (here: unaligned); aligned
// ones take O_DIRECT.
TEST_F(DriverNoCompatTest, OnlyTransfersNeedingTheCompatibilityPathFail) {
  void* buffer = DeviceAlloc(4096);
  EXPECT_EQ(driver().Read(handle_, buffer, 10, -1, 0).status(), Status::Errno(EINVAL));
  EXPECT_EQ(driver().Read(handle_, buffer, 5000, 0, 0).status(), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(driver().Read(handle_, buffer, 10, 0, 0).status(), Status::Op(hipFileInternalError));
  EXPECT_EQ(driver().Write(handle_, buffer, 10, 0, 0).status(), Status::Op(hipFileInternalError));
  const Result<size_t> read = driver().Read(handle_, buffer, 4096, 0, 0);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, 4096u);
  const Result<size_t> wrote = driver().Write(handle_, buffer, 4096, 0, 0);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  EXPECT_EQ(*wrote, 4096u);
  EXPECT_EQ(*driver().Read(handle_, buffer, 0, 0, 0), 0u);
}

// The size cap is the page size's MAX_RW_COUNT on every path: under 64 KiB pages (0x7fff0000) a
// stream-ordered read of 0x7ffff000 bytes - the cap of 4 KiB pages - is clamped as hipFileRead
// clamps it, and reads to the end of the file, rather than refused when the stream gets there.
TEST_F(CoreTest, StreamOrderedSizeCapIsTheSyncCapOnEveryPageSize) {
  sys_.SetPageSize(65536);
  ASSERT_EQ(MaxRwCount(65536), size_t{0x7fff0000});
  constexpr size_t kFile = 8192;
  const std::string path = MakeFile("small", kFile);
  ScopedFd fd(path, O_RDWR);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok());
  constexpr size_t kAsked = 0x7ffff000;
  void* buffer = DeviceAlloc(kAsked);  // address space only: the read fills 8 KiB of it
  const Result<size_t> sync = driver().Read(*handle, buffer, kAsked, 0, 0);
  ASSERT_TRUE(sync.ok()) << sync.status().ToString();
  EXPECT_EQ(*sync, kFile);
  runtime::Stream stream = nullptr;
  ASSERT_EQ(gpu_.StreamCreate(&stream, 0), hipSuccess);
  size_t size = kAsked;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  ssize_t bytes = -1;
  const Status submitted = driver().SubmitAsync(IoDirection::kRead, *handle, buffer, &size,
                                                &file_offset, &buffer_offset, &bytes, stream);
  ASSERT_TRUE(submitted.ok()) << submitted.ToString();
  ASSERT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(*sync)) << "the stream-ordered read refused what sync read";
  EXPECT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
  driver().DeregisterHandle(*handle);
  while (driver().UseCount() > 0) ASSERT_TRUE(driver().Close().ok());
}

}  // namespace
}  // namespace hipfile::core
