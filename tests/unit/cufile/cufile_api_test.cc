// SPDX-License-Identifier: MIT
// The drop-in's entry points (src/cufile/) on the process's driver, as a cuFile program calls
// them: device memory from the HIP subset (the same runtime), files in the test's directory.
#include <cufile/cufile.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "unit/api/api_test_util.h"

namespace hipfile::cufile {
namespace {

bool Ok(CUfileError_t e) { return e.err == CU_FILE_SUCCESS && static_cast<int>(e.cu_err) == 0; }
bool Is(CUfileError_t e, CUfileOpError op) {
  return e.err == op && static_cast<int>(e.cu_err) == 0;
}

class CuFileApiTest : public api::ApiTest {
 protected:
  CUfileHandle_t CuRegister(int fd) {
    CUfileDescr_t descr = {};
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd;
    CUfileHandle_t fh = nullptr;
    EXPECT_TRUE(Ok(cuFileHandleRegister(&fh, &descr)));
    return fh;
  }
};

TEST_F(CuFileApiTest, DriverOpensClosesAndCountsUses) {
  EXPECT_EQ(cuFileUseCount(), 0);
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  EXPECT_EQ(cuFileUseCount(), 2);
  EXPECT_TRUE(Ok(cuFileDriverClose()));  // the header's name: cuFileDriverClose_v2
#undef cuFileDriverClose
  EXPECT_TRUE(Ok(cuFileDriverClose()));  // the first version's name
  EXPECT_EQ(cuFileUseCount(), 0);
}

TEST_F(CuFileApiTest, PropertiesSayNoGpuDirectKernelDriver) {
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  CUfileDrvProps_t props;
  std::memset(&props, 0xff, sizeof props);
  ASSERT_TRUE(Ok(cuFileDriverGetProperties(&props)));
  EXPECT_EQ(props.nvfs.major_version, 0u);
  EXPECT_EQ(props.nvfs.minor_version, 0u);
  EXPECT_EQ(props.nvfs.dstatusflags, 0u);
  EXPECT_NE(props.fflags & (1u << CU_FILE_BATCH_IO_SUPPORTED), 0u);
  EXPECT_NE(props.fflags & (1u << CU_FILE_STREAMS_SUPPORTED), 0u);
  EXPECT_EQ(props.max_batch_io_size, 128u);
  hipFileDriverProps_t hp;
  ASSERT_TRUE(api::IsSuccess(hipFileDriverGetProperties(&hp)));
  EXPECT_EQ(props.max_device_pinned_mem_size, hp.max_device_pinned_mem_size);
  EXPECT_EQ(props.nvfs.max_direct_io_size, hp.nvfs.max_direct_io_size);
  EXPECT_TRUE(Is(cuFileDriverGetProperties(nullptr), CU_FILE_INVALID_VALUE));
}

TEST_F(CuFileApiTest, SettersAndParametersReachTheEngine) {
  size_t pinned = 0;
  ASSERT_TRUE(
      Ok(cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB, &pinned)));
  ASSERT_TRUE(Ok(cuFileDriverSetMaxPinnedMemSize(65536)));
  size_t now = 0;
  ASSERT_TRUE(
      Ok(cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB, &now)));
  EXPECT_EQ(now, 65536u);
  EXPECT_TRUE(
      Ok(cuFileSetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB, pinned)));

  bool compat = false;
  ASSERT_TRUE(Ok(cuFileGetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE, &compat)));
  char level[32] = {};
  EXPECT_TRUE(Ok(cuFileGetParameterString(CUFILE_PARAM_LOGGING_LEVEL, level, sizeof level)));
  EXPECT_GT(std::strlen(level), 0u);

  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  EXPECT_TRUE(Is(cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE, compat),
                 CU_FILE_DRIVER_ALREADY_OPEN));
  EXPECT_TRUE(Is(cuFileSetParameterSizeT(static_cast<CUFileSizeTConfigParameter_t>(99), 1),
                 CU_FILE_INVALID_VALUE));
}

// Every size_t parameter's reported range is the setter's: both bounds are taken (each restored
// to what it was), one past either bound is refused.
TEST_F(CuFileApiTest, ParameterMinMaxIsWhatTheSetterTakes) {
  for (int p = CUFILE_PARAM_PROFILE_STATS; p <= CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS; ++p) {
    SCOPED_TRACE(p);
    const auto param = static_cast<CUFileSizeTConfigParameter_t>(p);
    size_t min = 1, max = 0, was = 0;
    ASSERT_TRUE(Ok(cuFileGetParameterMinMaxValue(param, &min, &max)));
    ASSERT_LE(min, max);
    ASSERT_TRUE(Ok(cuFileGetParameterSizeT(param, &was)));
    EXPECT_GE(was, min);
    EXPECT_LE(was, max);
    EXPECT_TRUE(Ok(cuFileSetParameterSizeT(param, min)));
    EXPECT_TRUE(Ok(cuFileSetParameterSizeT(param, max)));
    if (min > 0) {
      EXPECT_TRUE(Is(cuFileSetParameterSizeT(param, min - 1), CU_FILE_INVALID_VALUE));
    }
    if (max < SIZE_MAX) {
      EXPECT_TRUE(Is(cuFileSetParameterSizeT(param, max + 1), CU_FILE_INVALID_VALUE));
    }
    ASSERT_TRUE(Ok(cuFileSetParameterSizeT(param, was)));
  }
  size_t min = 0, max = 0;
  EXPECT_TRUE(Ok(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, &min, &max)));
  EXPECT_EQ(min, 0u);
  EXPECT_EQ(max, 3u);
  EXPECT_TRUE(Ok(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, &min, &max)));
  EXPECT_EQ(min, 1u);
  EXPECT_EQ(max, 128u);
  EXPECT_TRUE(Is(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, nullptr, &max),
                 CU_FILE_INVALID_VALUE));
  EXPECT_TRUE(Is(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, &min, nullptr),
                 CU_FILE_INVALID_VALUE));
  EXPECT_TRUE(
      Is(cuFileGetParameterMinMaxValue(static_cast<CUFileSizeTConfigParameter_t>(99), &min, &max),
         CU_FILE_INVALID_VALUE));
}

// hipFileRead moves at most MAX_RW_COUNT (2 GiB - 4 KiB) a call; cuFileRead, as NVIDIA's, the
// whole size (torch.cuda.gds reads a tensor in one call and takes no short count). A sparse file
// of 2 GiB + 64 KiB with marked pages on both sides of the cap, read whole in one call.
// Not under TSan: the buffer's 2 GiB set and read are 8 GiB of TSan's shadow memory written
// (42 s of CI's TSan stage); the count's split is the calling thread's alone.
TEST_F(CuFileApiTest, ReadMovesMoreThanOneSyscallsWorth) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "2 GiB of device memory set and read: too slow under TSan";
#endif
  constexpr size_t kCap = 0x7ffff000;
  constexpr size_t kSize = (size_t{2} << 30) + (64 << 10);
  const std::string path = dir_.File("big.bin");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  fds_.push_back(fd);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kSize)), 0);
  const std::vector<unsigned char> mark = testing::PatternBytes(8192, 3);
  for (const size_t at : {size_t{0}, kCap - 4096, kSize - 8192}) {
    ASSERT_EQ(::pwrite(fd, mark.data(), mark.size(), static_cast<off_t>(at)),
              static_cast<ssize_t>(mark.size()));
  }
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  CUfileHandle_t fh = CuRegister(fd);
  auto* device = static_cast<unsigned char*>(DeviceAlloc(kSize));
  ASSERT_EQ(hipMemset(device, 0xff, kSize), hipSuccess);
  ASSERT_EQ(cuFileRead(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  for (const size_t at : {size_t{0}, kCap - 4096, kSize - 8192}) {
    EXPECT_EQ(DeviceBytes(device + at, mark.size()), mark) << "at " << at;
  }
  // Between the marks, the file's holes: zeros, not the 0xff the buffer held.
  EXPECT_EQ(DeviceBytes(device + kCap + 8192, 4096), std::vector<unsigned char>(4096, 0));
  // At the end of the file the count is what there was.
  EXPECT_EQ(cuFileRead(fh, device, kSize, 4096, 0), static_cast<ssize_t>(kSize - 4096));
  cuFileHandleDeregister(fh);
}

TEST_F(CuFileApiTest, VersionIsTheCuFileApiLevel) {
  int version = 0;
  ASSERT_TRUE(Ok(cuFileGetVersion(&version)));
  EXPECT_EQ(version, 1150);
  EXPECT_TRUE(Is(cuFileGetVersion(nullptr), CU_FILE_INVALID_VALUE));
}

TEST_F(CuFileApiTest, WritesAndReadsBackThroughARegisteredBuffer) {
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  constexpr size_t kSize = 1 << 20;
  const int fd = OpenFile("rw.bin", 0, O_RDWR);
  CUfileHandle_t fh = CuRegister(fd);
  void* device = DeviceAlloc(kSize);
  ASSERT_TRUE(Ok(cuFileBufRegister(device, kSize, 0)));
  EXPECT_TRUE(Is(cuFileBufRegister(device, kSize, 0), CU_FILE_MEMORY_ALREADY_REGISTERED));
  const std::vector<unsigned char> pattern = testing::PatternBytes(kSize, 7);
  ASSERT_EQ(hipMemcpy(device, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);

  ASSERT_EQ(cuFileWrite(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  ASSERT_EQ(hipMemset(device, 0, kSize), hipSuccess);
  // Into the second half through bufPtr_offset, then the first half.
  ASSERT_EQ(cuFileRead(fh, device, kSize / 2, kSize / 2, kSize / 2),
            static_cast<ssize_t>(kSize / 2));
  ASSERT_EQ(cuFileRead(fh, device, kSize / 2, 0, 0), static_cast<ssize_t>(kSize / 2));
  EXPECT_EQ(DeviceBytes(device, kSize), pattern);
  EXPECT_EQ(cuFileRead(fh, device, kSize, kSize, 0), 0);  // at the end of the file

  EXPECT_TRUE(Ok(cuFileBufDeregister(device)));
  EXPECT_TRUE(Is(cuFileBufDeregister(device), CU_FILE_MEMORY_NOT_REGISTERED));
  cuFileHandleDeregister(fh);
  EXPECT_EQ(cuFileRead(fh, device, 4096, 0, 0), -CU_FILE_HANDLE_NOT_REGISTERED);
}

TEST_F(CuFileApiTest, RegistrationRefusalsAreCuFileCodes) {
  CUfileHandle_t fh = nullptr;
  CUfileDescr_t descr = {};
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  descr.handle.fd = OpenFile("twice.bin", 4096, O_RDWR);
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  ASSERT_TRUE(Ok(cuFileHandleRegister(&fh, &descr)));
  CUfileHandle_t again = nullptr;
  EXPECT_TRUE(Is(cuFileHandleRegister(&again, &descr), CU_FILE_HANDLE_ALREADY_REGISTERED));
  EXPECT_TRUE(Is(cuFileHandleRegister(&again, nullptr), CU_FILE_INVALID_VALUE));
  descr.handle.fd = -1;
  EXPECT_FALSE(Ok(cuFileHandleRegister(&again, &descr)));
  cuFileHandleDeregister(fh);
}

TEST_F(CuFileApiTest, PageableMemoryNeedsAllowSystemMemory) {
  constexpr size_t kSize = 64 << 10;
  const int fd = OpenFile("host.bin", kSize, O_RDWR);
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  CUfileHandle_t fh = CuRegister(fd);
  std::vector<unsigned char> host(kSize);
  EXPECT_EQ(cuFileRead(fh, host.data(), kSize, 0, 0), -CU_FILE_CUDA_MEMORY_TYPE_INVALID);
  EXPECT_TRUE(Is(cuFileBufRegister(host.data(), kSize, 0), CU_FILE_CUDA_MEMORY_TYPE_INVALID));
  cuFileHandleDeregister(fh);
  ASSERT_TRUE(Ok(cuFileDriverClose()));

  ASSERT_TRUE(Ok(cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, true)));
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  fh = CuRegister(fd);
  ASSERT_TRUE(Ok(cuFileBufRegister(host.data(), kSize, 0)));
  EXPECT_TRUE(Is(cuFileBufRegister(host.data(), kSize, 0), CU_FILE_MEMORY_ALREADY_REGISTERED));
  EXPECT_EQ(cuFileRead(fh, host.data(), kSize - 100, 100, 100), static_cast<ssize_t>(kSize - 100));
  const std::vector<unsigned char> pattern = testing::PatternBytes(kSize);
  EXPECT_EQ(std::memcmp(host.data() + 100, pattern.data() + 100, kSize - 100), 0);
  std::vector<unsigned char> other = testing::PatternBytes(kSize, 3);
  EXPECT_EQ(cuFileWrite(fh, other.data(), kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("host.bin")), other);
  EXPECT_TRUE(Ok(cuFileBufDeregister(host.data())));
  EXPECT_TRUE(Is(cuFileBufDeregister(host.data()), CU_FILE_MEMORY_NOT_REGISTERED));
  cuFileHandleDeregister(fh);
  ASSERT_TRUE(Ok(cuFileDriverClose()));
  ASSERT_TRUE(Ok(cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, false)));
}

TEST_F(CuFileApiTest, StreamOrderedReadAndWrite) {
  constexpr size_t kSize = 256 << 10;
  const int in = OpenFile("async-in.bin", kSize, O_RDWR);
  const int out = OpenFile("async-out.bin", 0, O_RDWR);
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  CUfileHandle_t fin = CuRegister(in), fout = CuRegister(out);
  void* device = DeviceAlloc(kSize);
  hipStream_t hs = nullptr;
  ASSERT_EQ(hipStreamCreate(&hs), hipSuccess);
  CUstream stream = reinterpret_cast<CUstream>(hs);
  ASSERT_TRUE(Ok(cuFileStreamRegister(stream, CU_FILE_STREAM_FIXED_BUF_OFFSET |
                                                  CU_FILE_STREAM_FIXED_FILE_OFFSET |
                                                  CU_FILE_STREAM_FIXED_FILE_SIZE)));
  size_t size = kSize;
  off_t file_offset = 0, buf_offset = 0;
  ssize_t read = -7, written = -7;
  ASSERT_TRUE(Ok(cuFileReadAsync(fin, device, &size, &file_offset, &buf_offset, &read, stream)));
  ASSERT_TRUE(
      Ok(cuFileWriteAsync(fout, device, &size, &file_offset, &buf_offset, &written, stream)));
  ASSERT_EQ(hipStreamSynchronize(hs), hipSuccess);
  EXPECT_EQ(read, static_cast<ssize_t>(kSize));
  EXPECT_EQ(written, static_cast<ssize_t>(kSize));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("async-out.bin")), testing::PatternBytes(kSize));
  EXPECT_TRUE(Ok(cuFileStreamDeregister(stream)));
  EXPECT_TRUE(Is(cuFileReadAsync(fin, device, nullptr, &file_offset, &buf_offset, &read, stream),
                 CU_FILE_INVALID_VALUE));
  ASSERT_EQ(hipStreamDestroy(hs), hipSuccess);
  cuFileHandleDeregister(fin);
  cuFileHandleDeregister(fout);
}

TEST_F(CuFileApiTest, BatchReadsCompleteWithTheirCookies) {
  constexpr size_t kChunk = 64 << 10;
  constexpr unsigned kEntries = 4;
  const int fd = OpenFile("batch.bin", kChunk * kEntries, O_RDWR);
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  CUfileHandle_t fh = CuRegister(fd);
  void* device = DeviceAlloc(kChunk * kEntries);
  CUfileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(Ok(cuFileBatchIOSetUp(&batch, kEntries)));
  CUfileIOParams_t params[kEntries] = {};
  for (unsigned i = 0; i < kEntries; ++i) {
    params[i].mode = CUFILE_BATCH;
    params[i].opcode = CUFILE_READ;
    params[i].fh = fh;
    params[i].u.batch.devPtr_base = device;
    params[i].u.batch.devPtr_offset = static_cast<off_t>(i * kChunk);
    params[i].u.batch.file_offset = static_cast<off_t>((kEntries - 1 - i) * kChunk);
    params[i].u.batch.size = kChunk;
    params[i].cookie = reinterpret_cast<void*>(static_cast<uintptr_t>(100 + i));
  }
  ASSERT_TRUE(Ok(cuFileBatchIOSubmit(batch, kEntries, params, 0)));
  unsigned done = 0;
  CUfileIOEvents_t events[kEntries];
  while (done < kEntries) {
    unsigned nr = kEntries - done;
    timespec timeout = {5, 0};
    ASSERT_TRUE(Ok(cuFileBatchIOGetStatus(batch, 1, &nr, events + done, &timeout)));
    done += nr;
  }
  for (const CUfileIOEvents_t& e : events) {
    EXPECT_EQ(e.status, CUFILE_COMPLETE);
    EXPECT_EQ(e.ret, kChunk);
    const uintptr_t cookie = reinterpret_cast<uintptr_t>(e.cookie);
    EXPECT_TRUE(cookie >= 100 && cookie < 100 + kEntries);
  }
  const std::vector<unsigned char> file = testing::PatternBytes(kChunk * kEntries);
  const std::vector<unsigned char> got = DeviceBytes(device, kChunk * kEntries);
  for (unsigned i = 0; i < kEntries; ++i) {
    EXPECT_EQ(
        std::memcmp(got.data() + i * kChunk, file.data() + (kEntries - 1 - i) * kChunk, kChunk), 0)
        << "entry " << i;
  }
  EXPECT_TRUE(Is(cuFileBatchIOSubmit(batch, 129, params, 0), CU_FILE_INVALID_VALUE));
  cuFileBatchIODestroy(batch);
  cuFileHandleDeregister(fh);
}

TEST_F(CuFileApiTest, StatisticsLevelStartStopAndReset) {
  EXPECT_TRUE(Is(cuFileSetStatsLevel(4), CU_FILE_INVALID_VALUE));
  EXPECT_TRUE(Is(cuFileSetStatsLevel(-1), CU_FILE_INVALID_VALUE));
  EXPECT_TRUE(Is(cuFileStatsStart(), CU_FILE_DRIVER_NOT_INITIALIZED));
  EXPECT_TRUE(Is(cuFileStatsReset(), CU_FILE_DRIVER_NOT_INITIALIZED));
  int level = -1;
  ASSERT_TRUE(Ok(cuFileGetStatsLevel(&level)));
  const int configured = level;

  ASSERT_TRUE(Ok(cuFileSetStatsLevel(2)));  // closed: the next open's level
  ASSERT_TRUE(Ok(cuFileDriverOpen()));
  ASSERT_TRUE(Ok(cuFileGetStatsLevel(&level)));
  EXPECT_EQ(level, 2);
  ASSERT_TRUE(Ok(cuFileStatsReset()));
  constexpr size_t kSize = 64 << 10;
  CUfileHandle_t fh = CuRegister(OpenFile("stats.bin", kSize, O_RDWR));
  void* device = DeviceAlloc(kSize);
  CUfileStatsLevel2_t l2;
  ASSERT_EQ(cuFileRead(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  ASSERT_TRUE(Ok(cuFileGetStatsL2(&l2)));
  EXPECT_EQ(l2.basic.read_ops.ok, 1u);
  EXPECT_EQ(l2.basic.read_bytes, kSize);
  EXPECT_EQ(l2.basic.hdl_register_ops.ok, 1u);

  ASSERT_TRUE(Ok(cuFileStatsStop()));
  ASSERT_TRUE(Ok(cuFileGetStatsLevel(&level)));
  EXPECT_EQ(level, 0);
  ASSERT_EQ(cuFileRead(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  CUfileStatsLevel1_t l1;
  ASSERT_TRUE(Ok(cuFileGetStatsL1(&l1)));
  EXPECT_EQ(l1.read_ops.ok, 1u) << "stopped: not counted";

  ASSERT_TRUE(Ok(cuFileStatsStart()));
  ASSERT_TRUE(Ok(cuFileGetStatsLevel(&level)));
  EXPECT_EQ(level, 2) << "resumed at the level stopped";
  ASSERT_EQ(cuFileRead(fh, device, kSize, 0, 0), static_cast<ssize_t>(kSize));
  CUfileStatsLevel3_t l3;
  ASSERT_TRUE(Ok(cuFileGetStatsL3(&l3)));
  EXPECT_EQ(l3.detailed.basic.read_ops.ok, 2u);
  EXPECT_GE(l3.num_gpus, 1u);
  EXPECT_EQ(l3.per_gpu_stats[0].read_bytes, 2 * kSize);

  ASSERT_TRUE(Ok(cuFileSetStatsLevel(1)));  // open: from now on
  ASSERT_TRUE(Ok(cuFileGetStatsLevel(&level)));
  EXPECT_EQ(level, 1);
  ASSERT_TRUE(Ok(cuFileStatsReset()));
  ASSERT_TRUE(Ok(cuFileGetStatsL1(&l1)));
  EXPECT_EQ(l1.read_ops.ok, 0u);
  EXPECT_EQ(l1.read_bytes, 0u);
  EXPECT_TRUE(Is(cuFileGetStatsL1(nullptr), CU_FILE_INVALID_VALUE));
  cuFileHandleDeregister(fh);
  ASSERT_TRUE(Ok(cuFileDriverClose()));
  ASSERT_TRUE(Ok(cuFileSetStatsLevel(configured)));
}

}  // namespace
}  // namespace hipfile::cufile
