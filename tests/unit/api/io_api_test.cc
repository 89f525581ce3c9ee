// SPDX-License-Identifier: MIT
// File handles, buffers, synchronous I/O and statistics through the C API on the process runtime.
#include <errno.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "api_test_util.h"

namespace hipfile::api {
namespace {

ssize_t Neg(int e) { return -static_cast<ssize_t>(e); }

class HandleApiTest : public ApiTest {};

TEST_F(HandleApiTest, ArgumentErrorsDoNotOpenTheDriver) {
  const int fd = OpenFile("f", 4096, O_RDONLY);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  EXPECT_TRUE(IsOp(hipFileHandleRegister(nullptr, &descr), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileHandleRegister(&fh, nullptr), hipFileInvalidValue));
  for (const int type : {2, 3, 0, 99, -1}) {
    std::memcpy(&descr.type, &type, sizeof type);
    EXPECT_TRUE(IsOp(hipFileHandleRegister(&fh, &descr), hipFileIONotSupported)) << type;
  }
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = -1;
  EXPECT_TRUE(IsOp(hipFileHandleRegister(&fh, &descr), hipFileInvalidValue));
  descr.handle.fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  fds_.push_back(descr.handle.fd);
  EXPECT_TRUE(IsOp(hipFileHandleRegister(&fh, &descr), hipFileInvalidFileType));
  EXPECT_EQ(fh, nullptr);
  EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(HandleApiTest, RegisterOpensImplicitlyAndRefusesDuplicates) {
  const int fd = OpenFile("f", 4096, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  EXPECT_NE(fh, nullptr);
  EXPECT_EQ(hipFileUseCount(), 1);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t again = nullptr;
  EXPECT_TRUE(IsOp(hipFileHandleRegister(&again, &descr), hipFileHandleAlreadyRegistered));
  EXPECT_TRUE(IsSuccess(hipFileDriverOpen()));
  EXPECT_EQ(hipFileUseCount(), 2);
  hipFileHandleDeregister(nullptr);
  hipFileHandleDeregister(&descr);  // unknown: ignored
  hipFileHandleDeregister(fh);
  EXPECT_TRUE(IsSuccess(hipFileHandleRegister(&again, &descr)));
}

class BufferApiTest : public ApiTest {};

TEST_F(BufferApiTest, RegistrationErrors) {
  std::vector<char> pageable(4096);
  EXPECT_TRUE(IsOp(hipFileBufRegister(nullptr, 4096, 0), hipFileInvalidValue));
  void* device = DeviceAlloc(8192);
  EXPECT_TRUE(IsOp(hipFileBufRegister(device, 0, 0), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileBufRegister(pageable.data(), 4096, 0), hipFileHipMemoryTypeInvalid));
  EXPECT_TRUE(IsOp(hipFileBufRegister(device, 8193, 0), hipFileHipPointerRangeError));
  EXPECT_TRUE(IsOp(hipFileBufRegister(static_cast<char*>(device) + 1, SIZE_MAX, 0),
                   hipFileHipPointerRangeError));
  EXPECT_EQ(hipFileUseCount(), 1);  // opened by the first call, never above 1
}

// The bug: hipFileBufRegister(NULL, ...) returned hipFileInvalidValue without the implicit open;
// hipFile opens the driver before it looks at the arguments, so every refused registration (NULL
// included) leaves the use count at 1 - unlike hipFileHandleRegister, whose NULL and descriptor
// errors come first (spec §1.3, §1.6).
TEST_F(BufferApiTest, BufRegisterNullSkippedTheImplicitOpen) {
  std::vector<char> pageable(4096);
  void* device = DeviceAlloc(8192);
  struct Case {
    const char* what;
    const void* ptr;
    size_t length;
    hipFileOpError_t want;
  };
  for (const Case& c : {Case{"NULL", nullptr, 4096, hipFileInvalidValue},
                        Case{"length 0", device, 0, hipFileInvalidValue},
                        Case{"pageable", pageable.data(), 4096, hipFileHipMemoryTypeInvalid},
                        Case{"past the end", device, 8193, hipFileHipPointerRangeError}}) {
    ASSERT_EQ(hipFileUseCount(), 0) << c.what;
    EXPECT_TRUE(IsOp(hipFileBufRegister(c.ptr, c.length, 0), c.want)) << c.what;
    EXPECT_EQ(hipFileUseCount(), 1) << c.what;
    ASSERT_TRUE(IsSuccess(hipFileDriverClose()));
  }
  // The other entry points keep their own order: no open for these.
  EXPECT_TRUE(IsOp(hipFileBufDeregister(device), hipFileDriverClosing));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(nullptr), hipFileInvalidValue));
  hipFileHandle_t fh = nullptr;
  EXPECT_TRUE(IsOp(hipFileHandleRegister(&fh, nullptr), hipFileInvalidValue));
  int dummy = 0;
  EXPECT_EQ(hipFileRead(&dummy, device, 1, 0, 0), -1);
  EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(BufferApiTest, RegisterDeregister) {
  char* device = static_cast<char*>(DeviceAlloc(8192));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(device), hipFileDriverClosing));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(nullptr), hipFileInvalidValue));
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(device + 4096, 4096, 0)));  // interior pointer
  EXPECT_EQ(hipFileUseCount(), 1);
  EXPECT_TRUE(IsOp(hipFileBufRegister(device + 4096, 10, 0), hipFileMemoryAlreadyRegistered));
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(HostAlloc(4096), 4096, 0)));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(device), hipFileMemoryNotRegistered));
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(device + 4096)));
  EXPECT_TRUE(IsOp(hipFileBufDeregister(device + 4096), hipFileMemoryNotRegistered));
}

class IoApiTest : public ApiTest {
 protected:
  static constexpr size_t kSize = 1 << 20;
};

TEST_F(IoApiTest, ClosedDriverIsMinusOneEinval) {
  void* buffer = DeviceAlloc(4096);
  int dummy = 0;
  errno = 0;
  EXPECT_EQ(hipFileRead(&dummy, buffer, 10, 0, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(hipFileWrite(&dummy, buffer, 10, 0, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(IoApiTest, ErrorReturns) {
  hipFileHandle_t fh = Register(OpenFile("f", kSize, O_RDWR));
  void* buffer = DeviceAlloc(4096);
  std::vector<char> pageable(4096);
  int dummy = 0;
  EXPECT_EQ(hipFileRead(&dummy, buffer, 10, 0, 0), Neg(hipFileHandleNotRegistered));
  EXPECT_EQ(hipFileRead(nullptr, buffer, 10, 0, 0), Neg(hipFileHandleNotRegistered));
  EXPECT_EQ(hipFileRead(fh, pageable.data(), 10, 0, 0), Neg(hipFileHipMemoryTypeInvalid));
  EXPECT_EQ(hipFileRead(fh, HostAlloc(4096), 10, 0, 0), 10);  // pinned: served, registered or not
  errno = 0;
  EXPECT_EQ(hipFileRead(fh, buffer, 10, -1, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(hipFileWrite(fh, buffer, 10, 0, -4), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(hipFileRead(fh, buffer, 4097, 0, 0), Neg(hipFileInvalidValue));
  EXPECT_EQ(hipFileWrite(fh, buffer, 1, 0, 4096), Neg(hipFileInvalidValue));
  EXPECT_EQ(hipFileRead(fh, buffer, 0, 0, 0), 0);
}

TEST_F(IoApiTest, RoundTripThroughDeviceMemory) {
  const int fd = OpenFile("f", kSize, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  char* device = static_cast<char*>(DeviceAlloc(kSize));
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(device, kSize, 0)));
  EXPECT_EQ(hipFileRead(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  std::vector<unsigned char> host(kSize);
  ASSERT_EQ(ProcessRuntime().Memcpy(host.data(), device, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(host, testing::PatternBytes(kSize));

  // Write the first half over the second, from a buffer offset, and read it back.
  EXPECT_EQ(hipFileWrite(fh, device, kSize / 2, kSize / 2, 0), static_cast<ssize_t>(kSize / 2));
  EXPECT_EQ(hipFileRead(fh, device, kSize / 2, kSize / 2, kSize / 2),
            static_cast<ssize_t>(kSize / 2));
  ASSERT_EQ(ProcessRuntime().Memcpy(host.data(), device, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::memcmp(host.data(), host.data() + kSize / 2, kSize / 2), 0);
  // Short at end of file.
  EXPECT_EQ(hipFileRead(fh, device, 4096, kSize - 10, 0), 10);
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(device)));
  hipFileHandleDeregister(fh);
}

// As upstream's various-mem-rw example (mode 2): hipFileRead and hipFileWrite on memory from
// hipMallocManaged, which the host then reads and writes directly. Unregistered, then registered.
TEST_F(IoApiTest, ManagedMemoryRoundTrip) {
  const int fd = OpenFile("f", kSize, O_RDWR);
  hipFileHandle_t fh = Register(fd);
  unsigned char* managed = nullptr;
  ASSERT_EQ(hipMallocManaged(&managed, kSize), hipSuccess);
  std::memset(managed, 0, kSize);
  EXPECT_EQ(hipFileRead(fh, managed, kSize, 0, 0), static_cast<ssize_t>(kSize));
  const std::vector<unsigned char> pattern = testing::PatternBytes(kSize);
  EXPECT_EQ(std::memcmp(managed, pattern.data(), kSize), 0);

  // The host changes it; a write of it from a buffer offset lands in the file.
  for (size_t i = 0; i < kSize; ++i) managed[i] = static_cast<unsigned char>(~pattern[i]);
  EXPECT_EQ(hipFileWrite(fh, managed, kSize / 2, 0, kSize / 2), static_cast<ssize_t>(kSize / 2));
  std::vector<unsigned char> file = testing::ReadFileOrDie(dir_.File("f"));
  ASSERT_EQ(file.size(), kSize);
  EXPECT_EQ(std::memcmp(file.data(), managed + kSize / 2, kSize / 2), 0);
  EXPECT_EQ(std::memcmp(file.data() + kSize / 2, pattern.data() + kSize / 2, kSize / 2), 0);

  // Registered, read back into its start.
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(managed, kSize, 0)));
  std::memset(managed, 0, kSize);
  EXPECT_EQ(hipFileRead(fh, managed, kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_EQ(std::memcmp(managed, file.data(), kSize), 0);
  EXPECT_TRUE(IsSuccess(hipFileBufDeregister(managed)));
  hipFileHandleDeregister(fh);
  EXPECT_EQ(hipFree(managed), hipSuccess);
}

class StatsApiTest : public ApiTest {};

TEST_F(StatsApiTest, NullIsInvalidAndCountsMove) {
  EXPECT_TRUE(IsOp(hipFileGetStatsL1(nullptr), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileGetStatsL2(nullptr), hipFileInvalidValue));
  EXPECT_TRUE(IsOp(hipFileGetStatsL3(nullptr), hipFileInvalidValue));
  hipFileStatsLevel3_t before, after;
  ASSERT_TRUE(IsSuccess(hipFileGetStatsL3(&before)));
  EXPECT_EQ(hipFileUseCount(), 0);  // no implicit open

  hipFileHandle_t fh = Register(OpenFile("f", 65536, O_RDWR));
  void* device = DeviceAlloc(65536);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(device, 65536, 0)));
  ASSERT_EQ(hipFileRead(fh, device, 65536, 0, 0), 65536);
  ASSERT_EQ(hipFileWrite(fh, device, 4096, 0, 0), 4096);
  ASSERT_EQ(hipFileRead(fh, device, 10, -1, 0), -1);
  ASSERT_TRUE(IsSuccess(hipFileGetStatsL3(&after)));

  const hipFileStatsLevel1_t& b = before.detailed.basic;
  const hipFileStatsLevel1_t& a = after.detailed.basic;
  EXPECT_EQ(a.read_ops.ok - b.read_ops.ok, 1u);
  EXPECT_EQ(a.read_ops.err - b.read_ops.err, 1u);
  EXPECT_EQ(a.write_ops.ok - b.write_ops.ok, 1u);
  EXPECT_EQ(a.read_bytes - b.read_bytes, 65536u);
  EXPECT_EQ(a.write_bytes - b.write_bytes, 4096u);
  EXPECT_EQ(a.hdl_register_ops.ok - b.hdl_register_ops.ok, 1u);
  EXPECT_EQ(a.buf_register_ops.ok - b.buf_register_ops.ok, 1u);
  EXPECT_EQ(after.detailed.read_size_kb_hist[6] - before.detailed.read_size_kb_hist[6], 1u);
  EXPECT_EQ(after.detailed.write_size_kb_hist[2] - before.detailed.write_size_kb_hist[2], 1u);
  EXPECT_GE(after.num_gpus, 1u);
  // The read took the compatibility path (posix) or not (nvfs): one of the two.
  const hipFilePerGpuStats_t& ga = after.per_gpu_stats[0];
  const hipFilePerGpuStats_t& gb = before.per_gpu_stats[0];
  EXPECT_EQ((ga.n_posix_reads - gb.n_posix_reads) + (ga.n_nvfs_reads - gb.n_nvfs_reads), 1u);
  hipFileStatsLevel1_t l1;
  ASSERT_TRUE(IsSuccess(hipFileGetStatsL1(&l1)));
  EXPECT_EQ(l1.read_ops.ok, a.read_ops.ok);
}

// Exit with registrations outstanding must not crash (the driver is never destroyed).
TEST(ExitApiTest, ExitWithRegistrationsOutstanding) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        testing::TempDir dir;
        testing::WriteFileOrDie(dir.File("f"), testing::PatternBytes(4096));
        const int fd = ::open(dir.File("f").c_str(), O_RDWR);
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        hipFileHandle_t fh = nullptr;
        if (!IsSuccess(hipFileHandleRegister(&fh, &descr))) std::_Exit(3);
        void* device = nullptr;
        if (ProcessRuntime().Malloc(&device, 4096) != hipSuccess) std::_Exit(4);
        if (!IsSuccess(hipFileBufRegister(device, 4096, 0))) std::_Exit(5);
        if (hipFileRead(fh, device, 4096, 0, 0) != 4096) std::_Exit(6);
        // std::exit skips this scope's destructors: remove the directory by hand.
        ::unlink(dir.File("f").c_str());
        ::rmdir(dir.path().c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hipfile::api
