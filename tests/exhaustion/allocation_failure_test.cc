// SPDX-License-Identifier: MIT
// Memory exhaustion at every allocation of the C API's main calls: each call is run with its 1st,
// 2nd, ... allocation failing (tests/exhaustion/failing_allocator.h) until it runs through without
// reaching the failure. Every run must return hipFile's documented error or succeed - never throw
// into the caller - leave nothing half-done (no descriptor left open, no batch entry pending
// forever, no stream blocked), and the same call must work once memory is back.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "failing_allocator.h"
#include "fakes/temp_dir.h"

namespace hipfile {
namespace {

using testing::FailAllocation;
using testing::StopFailing;

constexpr uint64_t kMaxSweep = 2000;  // allocations a call may make before the sweep gives up

bool IsSuccess(hipFileError_t e) { return e.err == hipFileSuccess && e.hip_drv_err == hipSuccess; }
// hipFile's answers to exhausted memory (spec §1.10): the GPU runtime's out-of-memory, or an
// internal error.
bool IsOutOfMemory(hipFileError_t e) {
  return (e.err == hipFileHipDriverError && e.hip_drv_err == hipErrorOutOfMemory) ||
         (e.err == hipFileInternalError && e.hip_drv_err == hipSuccess);
}

size_t OpenDescriptors() {
  size_t n = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
  closedir(dir);
  return n;
}

class AllocationFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipFileUseCount(), 0);
    data_ = testing::PatternBytes(kFileBytes);
    testing::WriteFileOrDie(dir_.File("in.bin"), data_);
    fd_ = ::open(dir_.File("in.bin").c_str(), O_RDWR);
    ASSERT_GE(fd_, 0);
    ASSERT_EQ(hipMalloc(&device_, kFileBytes), hipSuccess);
    host_.resize(kFileBytes);
  }
  void TearDown() override {
    (void)StopFailing();
    while (hipFileUseCount() > 0) (void)hipFileDriverClose();
    if (device_ != nullptr) (void)hipFree(device_);
    if (fd_ >= 0) ::close(fd_);
  }
  hipFileHandle_t Register() {
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd_;
    hipFileHandle_t fh = nullptr;
    EXPECT_TRUE(IsSuccess(hipFileHandleRegister(&fh, &descr)));
    return fh;
  }
  // Reads the device buffer back and compares its first `n` bytes with the file.
  void ExpectDeviceHoldsFile(size_t n) {
    ASSERT_EQ(hipMemcpy(host_.data(), device_, n, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(std::memcmp(host_.data(), data_.data(), n), 0);
  }

  // Several chunks, so a read uses the engine's helper threads.
  static constexpr size_t kFileBytes = size_t{24} << 20;
  testing::TempDir dir_;
  std::vector<unsigned char> data_, host_;
  int fd_ = -1;
  void* device_ = nullptr;
};

TEST_F(AllocationFailureTest, HandleRegisterFailsCleanlyAtEveryAllocation) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  // One registration first: what the library opens once for good (its io_uring) is not a leak.
  hipFileHandleDeregister(Register());
  const size_t descriptors = OpenDescriptors();
  uint64_t n = 1;
  for (; n <= kMaxSweep; ++n) {
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd_;
    hipFileHandle_t fh = nullptr;
    FailAllocation(n);
    const hipFileError_t e = hipFileHandleRegister(&fh, &descr);
    const bool hit = StopFailing();
    if (IsSuccess(e)) {
      hipFileHandleDeregister(fh);
      if (!hit) break;  // ran through: every allocation point was tried
    } else {
      EXPECT_TRUE(hit) << "failed without an allocation failing: " << e.err;
      EXPECT_TRUE(IsOutOfMemory(e)) << "allocation " << n << ": " << e.err << "/" << e.hip_drv_err;
    }
    EXPECT_EQ(OpenDescriptors(), descriptors) << "allocation " << n << " left a descriptor open";
  }
  EXPECT_LE(n, kMaxSweep);
  EXPECT_GT(n, 1u);  // registration allocates: the sweep tried something
  // Memory is back: registration and a read work.
  hipFileHandle_t fh = Register();
  EXPECT_EQ(hipFileRead(fh, device_, kFileBytes, 0, 0), static_cast<ssize_t>(kFileBytes));
  hipFileHandleDeregister(fh);
}

TEST_F(AllocationFailureTest, ReadFailsWithEnomemOrMovesBytesAtEveryAllocation) {
  hipFileHandle_t fh = Register();
  uint64_t n = 1;
  for (; n <= kMaxSweep; ++n) {
    errno = 0;
    FailAllocation(n);
    const ssize_t got = hipFileRead(fh, device_, kFileBytes, 0, 0);
    const bool hit = StopFailing();
    if (got == static_cast<ssize_t>(kFileBytes) && !hit) break;
    if (got < 0) {
      // -1 with ENOMEM, or where the bytes go through staging and copies, the GPU runtime's
      // -hipErrorOutOfMemory.
      if (got == -1) {
        EXPECT_EQ(errno, ENOMEM) << "allocation " << n;
      } else {
        EXPECT_EQ(got, -static_cast<ssize_t>(hipErrorOutOfMemory)) << "allocation " << n;
      }
    } else {
      ExpectDeviceHoldsFile(static_cast<size_t>(got));  // a short count is what moved, exactly
    }
  }
  EXPECT_LE(n, kMaxSweep);
  EXPECT_GT(n, 1u);
  EXPECT_EQ(hipFileRead(fh, device_, kFileBytes, 0, 0), static_cast<ssize_t>(kFileBytes));
  ExpectDeviceHoldsFile(kFileBytes);
  hipFileHandleDeregister(fh);
}

TEST_F(AllocationFailureTest, BatchSetUpAndSubmitFailCleanlyAndNoEntryIsLeftPending) {
  hipFileHandle_t fh = Register();
  constexpr unsigned kEntries = 4;
  constexpr size_t kEntryBytes = 64 << 10;
  uint64_t n = 1;
  for (; n <= kMaxSweep; ++n) {
    FailAllocation(n);
    hipFileBatchHandle_t batch = nullptr;
    const hipFileError_t setup = hipFileBatchIOSetUp(&batch, kEntries);
    hipFileIOParams_t params[kEntries] = {};
    for (unsigned i = 0; i < kEntries; ++i) {
      params[i].mode = hipFileBatch;
      params[i].fh = fh;
      params[i].opcode = hipFileBatchRead;
      params[i].cookie = reinterpret_cast<void*>(uintptr_t{i + 1});
      params[i].u.batch.devPtr_base = device_;
      params[i].u.batch.devPtr_offset = static_cast<hoff_t>(i * kEntryBytes);
      params[i].u.batch.file_offset = static_cast<hoff_t>(i * kEntryBytes);
      params[i].u.batch.size = kEntryBytes;
    }
    hipFileError_t submit = {hipFileInvalidValue, hipSuccess};
    if (IsSuccess(setup)) submit = hipFileBatchIOSubmit(batch, kEntries, params, 0);
    const bool hit = StopFailing();
    if (!IsSuccess(setup)) {
      EXPECT_TRUE(IsOutOfMemory(setup)) << "allocation " << n;
      continue;
    }
    if (!IsSuccess(submit)) {
      EXPECT_TRUE(IsOutOfMemory(submit)) << "allocation " << n << ": " << submit.err;
    } else {
      // Every accepted entry reaches an end: complete, or failed with -ENOMEM.
      unsigned seen = 0;
      while (seen < kEntries) {
        hipFileIOEvents_t events[kEntries];
        unsigned nr = kEntries;
        timespec timeout{10, 0};
        ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &nr, events, &timeout)));
        ASSERT_GT(nr, 0u) << "allocation " << n << ": an entry is still pending after 10 s";
        for (unsigned i = 0; i < nr; ++i) {
          if (events[i].status == hipFileComplete) {
            EXPECT_EQ(events[i].ret, kEntryBytes);
          } else {
            EXPECT_EQ(events[i].status, hipFileFailed);
            EXPECT_EQ(static_cast<ssize_t>(events[i].ret), -ENOMEM) << "allocation " << n;
          }
        }
        seen += nr;
      }
    }
    hipFileBatchIODestroy(batch);
    if (IsSuccess(submit) && !hit) break;
  }
  EXPECT_LE(n, kMaxSweep);
  EXPECT_GT(n, 1u);
  hipFileHandleDeregister(fh);
}

TEST_F(AllocationFailureTest, ReadAsyncFailsCleanlyAndTheStreamMovesOn) {
  hipFileHandle_t fh = Register();
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_TRUE(IsSuccess(hipFileStreamRegister(stream, 0)));
  uint64_t n = 1;
  for (; n <= kMaxSweep; ++n) {
    size_t size = kFileBytes;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = -999;
    FailAllocation(n);
    const hipFileError_t e =
        hipFileReadAsync(fh, device_, &size, &file_offset, &buffer_offset, &bytes, stream);
    const bool hit = StopFailing();
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess) << "allocation " << n;
    if (!IsSuccess(e)) {
      EXPECT_TRUE(IsOutOfMemory(e)) << "allocation " << n << ": " << e.err;
      continue;
    }
    if (bytes < 0) {
      EXPECT_EQ(bytes, -ENOMEM) << "allocation " << n;
    } else {
      ExpectDeviceHoldsFile(static_cast<size_t>(bytes));
    }
    if (bytes == static_cast<ssize_t>(kFileBytes) && !hit) break;
  }
  EXPECT_LE(n, kMaxSweep);
  EXPECT_GT(n, 1u);
  EXPECT_TRUE(IsSuccess(hipFileStreamDeregister(stream)));
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  hipFileHandleDeregister(fh);
}

TEST_F(AllocationFailureTest, HipStreamAndEventCreationFailWithOutOfMemory) {
  uint64_t n = 1;
  for (; n <= kMaxSweep; ++n) {
    hipStream_t stream = nullptr;
    hipEvent_t event = nullptr;
    FailAllocation(n);
    const hipError_t s = hipStreamCreate(&stream);
    const hipError_t e = s == hipSuccess ? hipEventCreate(&event) : hipErrorOutOfMemory;
    const bool hit = StopFailing();
    EXPECT_TRUE(s == hipSuccess || s == hipErrorOutOfMemory) << "allocation " << n << ": " << s;
    EXPECT_TRUE(e == hipSuccess || e == hipErrorOutOfMemory) << "allocation " << n << ": " << e;
    (void)hipGetLastError();
    if (event != nullptr) {
      EXPECT_EQ(hipEventDestroy(event), hipSuccess);
    }
    if (stream != nullptr) {
      EXPECT_EQ(hipStreamSynchronize(stream), hipSuccess);
      EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
    }
    if (s == hipSuccess && e == hipSuccess && !hit) break;
  }
  EXPECT_LE(n, kMaxSweep);
  // On CUDA the library allocates nothing for a stream or an event: the first run goes through.
  if (std::string(hipFileExtRuntimeName()) != "cuda") {
    EXPECT_GT(n, 1u);
  }
}

}  // namespace
}  // namespace hipfile
