// SPDX-License-Identifier: MIT
// Several GPUs in one process (issue 23), through the C API and the HIP subset: buffers on every
// device, sync reads and writes into each from several threads, stream-ordered reads and writes
// on streams of every device at once (some submitted by a thread with another device current),
// one batch with entries on every device, and each device's bytes in hipFileGetStatsL3's per-GPU
// section; every byte checked. Needs 2 devices or more (up to 4 are used): CTest runs it on the
// CPU runtime with 4 (system_tests.cpu-4, and .cpu-staged-4 through a GPU's data paths), and on
// CUDA as gpu-multi.system (label gpu-multi), which runs on a machine with several GPUs and says
// it skipped elsewhere.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fakes/batch_entry.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

// Two staging chunks and an unaligned tail: the multi-chunk and buffered paths both run.
constexpr size_t kSlice = (4 << 20) + 12288 + 777;

std::vector<unsigned char> Slice(const std::vector<unsigned char>& all, size_t index) {
  return std::vector<unsigned char>(
      all.begin() + static_cast<std::ptrdiff_t>(index * kSlice),
      all.begin() + static_cast<std::ptrdiff_t>((index + 1) * kSlice));
}

std::vector<unsigned char> FileBytes(int fd, size_t size) {
  std::vector<unsigned char> bytes(size);
  EXPECT_EQ(::pread(fd, bytes.data(), size, 0), static_cast<ssize_t>(size));
  return bytes;
}

class MultiGpuTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    int count = 0;
    // A forced runtime that cannot work (HIPFILE_RUNTIME=cuda without a GPU: the gpu-multi
    // run) has no device at all.
    if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
    if (count < 2) {
      GTEST_SKIP() << "needs 2 GPUs; the " << ProcessRuntime().Name() << " runtime has " << count
                   << " (HIPFILE_CPU_DEVICES=4 gives the CPU runtime 4)";
    }
    devices_ = std::min(count, 4);
  }
  void TearDown() override {
    if (devices_ > 0) {
      EXPECT_EQ(hipSetDevice(0), hipSuccess);
    }
    for (hipStream_t s : streams_) EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    ApiTest::TearDown();
  }

  // Device memory made with `device` current; the thread is back on device 0 after.
  void* DeviceAllocOn(int device, size_t size) {
    EXPECT_EQ(hipSetDevice(device), hipSuccess);
    void* p = DeviceAlloc(size);
    EXPECT_EQ(hipSetDevice(0), hipSuccess);
    int owner = -1;
    hipPointerAttribute_t attributes = {};
    EXPECT_EQ(hipPointerGetAttributes(&attributes, p), hipSuccess);
    owner = attributes.device;
    EXPECT_EQ(owner, device);
    return p;
  }
  hipStream_t StreamOn(int device) {
    hipStream_t s = nullptr;
    EXPECT_EQ(hipSetDevice(device), hipSuccess);
    EXPECT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    EXPECT_EQ(hipSetDevice(0), hipSuccess);
    streams_.push_back(s);
    return s;
  }
  void Fill(void* device, const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(hipMemcpy(device, bytes.data(), bytes.size(), hipMemcpyHostToDevice), hipSuccess);
  }
  // A file of `size` zero bytes, opened read-write and registered.
  hipFileHandle_t ZeroFile(const std::string& name, size_t size, int* fd) {
    const std::string path = dir_.File(name);
    testing::WriteFileOrDie(path, std::vector<unsigned char>(size, 0));
    *fd = ::open(path.c_str(), O_RDWR);
    EXPECT_GE(*fd, 0);
    fds_.push_back(*fd);
    return Register(*fd);
  }

  int devices_ = 0;
  std::vector<hipStream_t> streams_;
};

// Two threads per device, each on its device, each reading its slice of one file three times
// into its own buffer (one registered, one not), then writing new bytes to its slice of another.
TEST_F(MultiGpuTest, SyncReadsAndWritesIntoEveryDeviceFromSeveralThreads) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  const size_t slices = 2 * static_cast<size_t>(devices_);
  const hipFileHandle_t fh = Register(OpenFile("f", slices * kSlice, O_RDONLY));
  int out_fd = -1;
  const hipFileHandle_t out = ZeroFile("g", slices * kSlice, &out_fd);
  const std::vector<unsigned char> file = testing::PatternBytes(slices * kSlice);
  std::vector<void*> buffers;
  for (size_t i = 0; i < slices; ++i) {
    buffers.push_back(DeviceAllocOn(static_cast<int>(i / 2), kSlice));
    if (i % 2 == 0) {
      ASSERT_TRUE(IsSuccess(hipFileBufRegister(buffers[i], kSlice, 0)));
    }
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < slices; ++i) {
    threads.emplace_back([&, i] {
      const int device = static_cast<int>(i / 2);
      EXPECT_EQ(hipSetDevice(device), hipSuccess);
      const off_t offset = static_cast<off_t>(i * kSlice);
      for (int round = 0; round < 3; ++round) {
        ASSERT_EQ(hipMemset(buffers[i], 0xee, kSlice), hipSuccess);
        ASSERT_EQ(hipFileRead(fh, buffers[i], kSlice, offset, 0), static_cast<ssize_t>(kSlice));
        EXPECT_TRUE(DeviceBytes(buffers[i], kSlice) == Slice(file, i))
            << "device " << device << ", thread " << i << ", round " << round;
      }
      const std::vector<unsigned char> mine = testing::PatternBytes(kSlice, 100 + i);
      ASSERT_EQ(hipMemcpy(buffers[i], mine.data(), kSlice, hipMemcpyHostToDevice), hipSuccess);
      ASSERT_EQ(hipFileWrite(out, buffers[i], kSlice, offset, 0), static_cast<ssize_t>(kSlice));
      int current = -1;
      EXPECT_EQ(hipGetDevice(&current), hipSuccess);
      EXPECT_EQ(current, device) << "the library changed the thread's device";
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<unsigned char> written = FileBytes(out_fd, slices * kSlice);
  for (size_t i = 0; i < slices; ++i) {
    EXPECT_TRUE(Slice(written, i) == testing::PatternBytes(kSlice, 100 + i)) << "slice " << i;
  }
  for (size_t i = 0; i < slices; i += 2) {
    ASSERT_TRUE(IsSuccess(hipFileBufDeregister(buffers[i])));
  }
}

// Per device two streams, one registered; one submitting thread per device, every other one
// with device 0 current (a stream of another device is used as it is, as CUDA allows). Each
// stream reads its slice into its buffer, then writes the buffer to the same slice of another
// file: stream order makes the write follow the read.
TEST_F(MultiGpuTest, StreamOrderedReadsAndWritesOnStreamsOfEveryDeviceAtOnce) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  const size_t slices = 2 * static_cast<size_t>(devices_);
  const hipFileHandle_t fh = Register(OpenFile("f", slices * kSlice, O_RDONLY));
  int out_fd = -1;
  const hipFileHandle_t out = ZeroFile("g", slices * kSlice, &out_fd);
  const std::vector<unsigned char> file = testing::PatternBytes(slices * kSlice);
  struct Op {
    void* buffer = nullptr;
    hipStream_t stream = nullptr;
    size_t size = kSlice;
    off_t file_offset = 0;
    off_t buffer_offset = 0;
    ssize_t read = -1;
    ssize_t written = -1;
  };
  std::vector<Op> ops(slices);
  for (size_t i = 0; i < slices; ++i) {
    const int device = static_cast<int>(i / 2);
    ops[i].buffer = DeviceAllocOn(device, kSlice);
    ops[i].stream = StreamOn(device);
    ops[i].file_offset = static_cast<off_t>(i * kSlice);
    Fill(ops[i].buffer, std::vector<unsigned char>(kSlice, 0xee));
    if (i % 2 == 0) {
      ASSERT_TRUE(IsSuccess(hipFileStreamRegister(ops[i].stream, 0)));
    }
  }
  std::vector<std::thread> threads;
  for (int device = 0; device < devices_; ++device) {
    threads.emplace_back([&, device] {
      EXPECT_EQ(hipSetDevice(device % 2 == 0 ? device : 0), hipSuccess);
      for (size_t i = 2 * static_cast<size_t>(device); i < 2 * static_cast<size_t>(device) + 2;
           ++i) {
        Op& op = ops[i];
        EXPECT_TRUE(IsSuccess(hipFileReadAsync(fh, op.buffer, &op.size, &op.file_offset,
                                               &op.buffer_offset, &op.read, op.stream)));
        EXPECT_TRUE(IsSuccess(hipFileWriteAsync(out, op.buffer, &op.size, &op.file_offset,
                                                &op.buffer_offset, &op.written, op.stream)));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < slices; ++i) {
    ASSERT_EQ(hipStreamSynchronize(ops[i].stream), hipSuccess);
    EXPECT_EQ(ops[i].read, static_cast<ssize_t>(kSlice)) << "slice " << i;
    EXPECT_EQ(ops[i].written, static_cast<ssize_t>(kSlice)) << "slice " << i;
    EXPECT_TRUE(DeviceBytes(ops[i].buffer, kSlice) == Slice(file, i)) << "slice " << i;
  }
  EXPECT_TRUE(FileBytes(out_fd, slices * kSlice) == file);
  for (size_t i = 0; i < slices; i += 2) {
    ASSERT_TRUE(IsSuccess(hipFileStreamDeregister(ops[i].stream)));
  }
}

// One batch whose entries read into buffers of every device (a large and a small entry each),
// then one writing them all back elsewhere.
TEST_F(MultiGpuTest, OneBatchWithEntriesOnEveryDevice) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  const size_t n = static_cast<size_t>(devices_);
  const hipFileHandle_t fh = Register(OpenFile("f", n * kSlice, O_RDONLY));
  int out_fd = -1;
  const hipFileHandle_t out = ZeroFile("g", n * kSlice, &out_fd);
  const std::vector<unsigned char> file = testing::PatternBytes(n * kSlice);
  constexpr size_t kSmall = 8192;  // the rest of each slice is the large entry
  std::vector<void*> buffers;
  std::vector<hipFileIOParams_t> reads, writes;
  for (size_t d = 0; d < n; ++d) {
    buffers.push_back(DeviceAllocOn(static_cast<int>(d), kSlice));
    const auto at = static_cast<int64_t>(d * kSlice);
    reads.push_back(testing::BatchEntry(hipFileBatchRead, fh, buffers[d], kSmall, at, 0));
    reads.push_back(testing::BatchEntry(hipFileBatchRead, fh, buffers[d], kSlice - kSmall,
                                        at + static_cast<int64_t>(kSmall), kSmall));
    writes.push_back(testing::BatchEntry(hipFileBatchWrite, out, buffers[d], kSlice, at, 0));
  }
  for (std::vector<hipFileIOParams_t>* entries : {&reads, &writes}) {
    hipFileBatchHandle_t batch = nullptr;
    const auto nr = static_cast<unsigned>(entries->size());
    ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, nr)));
    ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, nr, entries->data(), 0)));
    unsigned done = 0;
    std::vector<hipFileIOEvents_t> events(nr);
    while (done < nr) {
      unsigned got = nr - done;
      ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &got, events.data(), nullptr)));
      for (unsigned i = 0; i < got; ++i) {
        EXPECT_EQ(events[i].status, hipFileComplete);
        EXPECT_TRUE(events[i].ret == kSmall || events[i].ret == kSlice - kSmall ||
                    events[i].ret == kSlice)
            << events[i].ret;
      }
      done += got;
    }
    hipFileBatchIODestroy(batch);
    if (entries == &reads) {
      for (size_t d = 0; d < n; ++d) {
        EXPECT_TRUE(DeviceBytes(buffers[d], kSlice) == Slice(file, d)) << "device " << d;
      }
    }
  }
  EXPECT_TRUE(FileBytes(out_fd, n * kSlice) == file);
}

// hipFileGetStatsL3's per-GPU section: device d reads (d + 1) slices and writes one, and its
// section grows by exactly that, under its own UUID; num_gpus counts every device used.
TEST_F(MultiGpuTest, PerGpuStatisticsCountEachDevicesBytes) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  const size_t n = static_cast<size_t>(devices_);
  const hipFileHandle_t fh = Register(OpenFile("f", n * kSlice, O_RDWR));
  std::vector<void*> buffers;
  for (size_t d = 0; d < n; ++d) buffers.push_back(DeviceAllocOn(static_cast<int>(d), kSlice));
  hipFileStatsLevel3_t before = {};
  ASSERT_TRUE(IsSuccess(hipFileGetStatsL3(&before)));
  for (size_t d = 0; d < n; ++d) {
    std::thread([&, d] {
      EXPECT_EQ(hipSetDevice(static_cast<int>(d)), hipSuccess);
      for (size_t r = 0; r <= d; ++r) {
        EXPECT_EQ(hipFileRead(fh, buffers[d], kSlice, static_cast<off_t>(r * kSlice), 0),
                  static_cast<ssize_t>(kSlice));
      }
      EXPECT_EQ(hipFileWrite(fh, buffers[d], kSlice, static_cast<off_t>(d * kSlice), 0),
                static_cast<ssize_t>(kSlice));
    }).join();
  }
  hipFileStatsLevel3_t after = {};
  ASSERT_TRUE(IsSuccess(hipFileGetStatsL3(&after)));
  EXPECT_GE(after.num_gpus, static_cast<uint32_t>(n));
  for (size_t d = 0; d < n; ++d) {
    const hipFilePerGpuStats_t& a = after.per_gpu_stats[d];
    const hipFilePerGpuStats_t& b = before.per_gpu_stats[d];
    EXPECT_EQ(a.read_bytes - b.read_bytes, (d + 1) * kSlice) << "device " << d;
    EXPECT_EQ(a.n_total_reads - b.n_total_reads, d + 1) << "device " << d;
    EXPECT_EQ(a.write_bytes - b.write_bytes, kSlice) << "device " << d;
    EXPECT_EQ(a.n_total_writes - b.n_total_writes, 1u) << "device " << d;
    char uuid[16] = {};
    ASSERT_EQ(ProcessRuntime().GetDeviceUuid(static_cast<int>(d), uuid), hipSuccess);
    EXPECT_EQ(std::memcmp(a.uuid, uuid, sizeof(uuid)), 0) << "device " << d;
  }
  // The sum over the devices is L1's.
  uint64_t sum = 0;
  for (const hipFilePerGpuStats_t& g : after.per_gpu_stats) sum += g.read_bytes;
  EXPECT_EQ(sum, after.detailed.basic.read_bytes);
}

}  // namespace
}  // namespace hipfile::api
