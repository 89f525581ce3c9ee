// SPDX-License-Identifier: MIT
// Pinned host memory (hipHostMalloc, hipHostRegister) as the buffer of every I/O path, registered
// with hipFileBufRegister or not; pageable memory refused on every path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api_test_util.h"

namespace hipfile::api {
namespace {

constexpr size_t kSize = 256 << 10;

ssize_t Neg(int e) { return -static_cast<ssize_t>(e); }

class HostMemoryApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    in_ = Register(OpenFile("in", kSize, O_RDONLY));
    out_ = Register(OpenFile("out", kSize, O_RDWR));
  }
  static bool HoldsPattern(const void* p, size_t size, size_t file_offset, unsigned seed = 1) {
    const std::vector<unsigned char> want = testing::PatternBytes(file_offset + size, seed);
    return std::memcmp(p, want.data() + file_offset, size) == 0;
  }

  hipFileHandle_t in_ = nullptr;   // kSize pattern bytes
  hipFileHandle_t out_ = nullptr;  // written by the tests
};

// The bug: pinned host memory not registered with hipFileBufRegister was refused by
// hipFileRead/Write (-hipFileInvalidValue), where upstream's newest tree serves host memory
// through its host backend, as cuFile does (upstream's various-mem-rw mode 3 needs it).
TEST_F(HostMemoryApiTest, UnregisteredPinnedHostMemoryWasRefused) {
  char* pinned = static_cast<char*>(HostAlloc(kSize));
  ASSERT_EQ(hipFileRead(in_, pinned, kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_TRUE(HoldsPattern(pinned, kSize, 0));
  // An interior pointer and a buffer offset: the range reaches the end of the allocation.
  std::memset(pinned, 0, kSize);
  ASSERT_EQ(hipFileRead(in_, pinned + 4096, 8192, 100, 4096), 8192);
  EXPECT_TRUE(HoldsPattern(pinned + 8192, 8192, 100));
  EXPECT_EQ(hipFileRead(in_, pinned + 4096, kSize - 4096 + 1, 0, 0), Neg(hipFileInvalidValue));
  EXPECT_EQ(hipFileRead(in_, pinned, 1, 0, kSize), Neg(hipFileInvalidValue));
  // Written back from it.
  ASSERT_EQ(hipFileRead(in_, pinned, kSize, 0, 0), static_cast<ssize_t>(kSize));
  ASSERT_EQ(hipFileWrite(out_, pinned, kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), testing::PatternBytes(kSize));
}

TEST_F(HostMemoryApiTest, HostRegisteredMemoryReachesTheEndOfItsRegistration) {
  std::vector<char> storage(kSize + 8192);
  char* registered = storage.data() + 4096;
  ASSERT_EQ(hipHostRegister(registered, kSize, hipHostRegisterDefault), hipSuccess);
  EXPECT_EQ(hipFileRead(in_, registered, kSize, 0, 0), static_cast<ssize_t>(kSize));
  EXPECT_TRUE(HoldsPattern(registered, kSize, 0));
  EXPECT_EQ(hipFileRead(in_, registered, kSize + 1, 0, 0), Neg(hipFileInvalidValue))
      << "the registration's range, not the vector's";
  EXPECT_EQ(hipFileWrite(out_, registered + 10, 4096, 0, kSize - 4096 - 10), 4096);  // to its end
  EXPECT_EQ(hipFileWrite(out_, registered + 10, 4096, 0, kSize - 4096 - 9),
            Neg(hipFileInvalidValue));
  ASSERT_EQ(hipHostUnregister(registered), hipSuccess);
  EXPECT_EQ(hipFileRead(in_, registered, 4096, 0, 0), Neg(hipFileHipMemoryTypeInvalid))
      << "pageable again";
}

TEST_F(HostMemoryApiTest, StreamOrderedIoThroughUnregisteredPinnedMemory) {
  char* pinned = static_cast<char*>(HostAlloc(kSize));
  size_t size = kSize - 4096;
  hoff_t fo = 4096, bo = 4096;
  ssize_t read = -1, written = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(in_, pinned, &size, &fo, &bo, &read, nullptr)));
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(out_, pinned, &size, &fo, &bo, &written, nullptr)));
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(read, static_cast<ssize_t>(kSize - 4096));
  EXPECT_EQ(written, static_cast<ssize_t>(kSize - 4096));
  EXPECT_TRUE(HoldsPattern(pinned + 4096, kSize - 4096, 4096));
  const std::vector<unsigned char> out = testing::ReadFileOrDie(dir_.File("out"));
  EXPECT_TRUE(HoldsPattern(out.data() + 4096, kSize - 4096, 4096));
  size = kSize - 4096 + 1;  // past the pinned allocation
  EXPECT_TRUE(
      IsOp(hipFileReadAsync(in_, pinned, &size, &fo, &bo, &read, nullptr), hipFileInvalidValue));
}

TEST_F(HostMemoryApiTest, BatchEntriesThroughUnregisteredPinnedMemory) {
  char* pinned = static_cast<char*>(HostAlloc(kSize));
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 8)));
  std::vector<hipFileIOParams_t> entries(8);
  for (size_t i = 0; i < entries.size(); ++i) {
    hipFileIOParams_t& e = entries[i];
    e.mode = hipFileBatch;
    e.opcode = hipFileBatchRead;
    e.fh = in_;
    e.u.batch.devPtr_base = pinned;
    e.u.batch.size = 4096;
    e.u.batch.file_offset = static_cast<int64_t>(i * 4096);
    e.u.batch.devPtr_offset = static_cast<int64_t>(i * 4096);
  }
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 8, entries.data(), 0)));
  unsigned got = 0;
  while (got < 8) {
    hipFileIOEvents_t events[8];
    unsigned nr = 8;
    ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events, nullptr)));
    for (unsigned i = 0; i < nr; ++i) {
      EXPECT_EQ(events[i].status, hipFileComplete);
      EXPECT_EQ(events[i].ret, 4096u);
    }
    got += nr;
  }
  EXPECT_TRUE(HoldsPattern(pinned, 8 * 4096, 0));
  entries[0].u.batch.devPtr_offset = kSize;  // outside the pinned allocation
  entries[0].u.batch.size = 0;
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 1, entries.data(), 0), hipFileInvalidValue));
  hipFileBatchIODestroy(batch);
}

// Plain pageable memory stays refused on every path, as AMD's hipFile refuses it.
TEST_F(HostMemoryApiTest, PageableMemoryIsRefusedOnEveryPath) {
  std::vector<char> pageable(kSize);
  EXPECT_EQ(hipFileRead(in_, pageable.data(), 4096, 0, 0), Neg(hipFileHipMemoryTypeInvalid));
  EXPECT_EQ(hipFileWrite(out_, pageable.data(), 4096, 0, 0), Neg(hipFileHipMemoryTypeInvalid));
  size_t size = 4096;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = -7;
  EXPECT_TRUE(IsOp(hipFileReadAsync(in_, pageable.data(), &size, &fo, &bo, &bytes, nullptr),
                   hipFileHipMemoryTypeInvalid));
  EXPECT_EQ(bytes, -7);
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 1)));
  hipFileIOParams_t entry = {};
  entry.mode = hipFileBatch;
  entry.opcode = hipFileBatchRead;
  entry.fh = in_;
  entry.u.batch.devPtr_base = pageable.data();
  entry.u.batch.size = 4096;
  EXPECT_TRUE(IsOp(hipFileBatchIOSubmit(batch, 1, &entry, 0), hipFileHipMemoryTypeInvalid));
  hipFileBatchIODestroy(batch);
  EXPECT_TRUE(IsOp(hipFileBufRegister(pageable.data(), kSize, 0), hipFileHipMemoryTypeInvalid));
}

// hipFileExtReadHost / WriteHost take the memory the C API refuses: plain pageable memory, at any
// alignment, counted as host-path bytes.
TEST_F(HostMemoryApiTest, ExtHostEntryPointsMovePageableMemory) {
  hipFileExtPathStats_t before = {};
  ASSERT_TRUE(IsSuccess(hipFileExtGetPathStats(&before)));
  std::vector<char> pageable(kSize + 1);
  char* odd = pageable.data() + 1;  // off every O_DIRECT alignment
  ASSERT_EQ(hipFileExtReadHost(in_, odd, kSize, 0), static_cast<ssize_t>(kSize));
  EXPECT_TRUE(HoldsPattern(odd, kSize, 0));
  std::vector<char> aligned_storage(kSize + 4096);
  char* aligned = aligned_storage.data() +
                  (4096 - reinterpret_cast<uintptr_t>(aligned_storage.data()) % 4096) % 4096;
  ASSERT_EQ(hipFileExtReadHost(in_, aligned, 8192, 4096), 8192);
  EXPECT_TRUE(HoldsPattern(aligned, 8192, 4096));
  // Past the end of the file: what there is.
  EXPECT_EQ(hipFileExtReadHost(in_, aligned, 8192, kSize - 100), 100);
  EXPECT_EQ(hipFileExtReadHost(in_, aligned, 8192, kSize), 0);
  // Written out from unaligned pageable memory, read back as the file.
  ASSERT_EQ(hipFileExtWriteHost(out_, odd, kSize, 0), static_cast<ssize_t>(kSize));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("out")), testing::PatternBytes(kSize));
  hipFileExtPathStats_t after = {};
  ASSERT_TRUE(IsSuccess(hipFileExtGetPathStats(&after)));
  EXPECT_EQ(after.read_bytes[hipFileExtPathHost] - before.read_bytes[hipFileExtPathHost],
            kSize + 8192 + 100);
  EXPECT_EQ(after.write_bytes[hipFileExtPathHost] - before.write_bytes[hipFileExtPathHost], kSize);
}

TEST_F(HostMemoryApiTest, ExtHostEntryPointsKeepReadsRules) {
  std::vector<char> pageable(4096);
  EXPECT_EQ(hipFileExtReadHost(in_, nullptr, 4096, 0), Neg(hipFileInvalidValue));
  EXPECT_EQ(hipFileExtWriteHost(out_, nullptr, 4096, 0), Neg(hipFileInvalidValue));
  EXPECT_EQ(hipFileExtReadHost(in_, nullptr, 0, 0), 0) << "size 0 moves nothing";
  errno = 0;
  EXPECT_EQ(hipFileExtReadHost(in_, pageable.data(), 4096, -1), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(hipFileExtReadHost(in_, pageable.data(), 0, -1), -1) << "checked at size 0 too";
  EXPECT_EQ(errno, EINVAL);
  int stray = 0;
  EXPECT_EQ(hipFileExtReadHost(reinterpret_cast<hipFileHandle_t>(&stray), pageable.data(), 4096, 0),
            Neg(hipFileHandleNotRegistered));
  errno = 0;
  EXPECT_EQ(hipFileExtWriteHost(in_, pageable.data(), 4096, 0), -1) << "opened O_RDONLY";
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace hipfile::api
