// SPDX-License-Identifier: MIT
// hipfile_ext.h's readers of another process's statistics: the process publishes from its first
// hipFile call, and a reader sees what hipFileGetStats* report in that process.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <numeric>

#include "api_test_util.h"

namespace {

TEST(StatsRegionApiTest, RefusesNullAndAmbiguousSources) {
  hipFileExtStatsRegion_t* region = nullptr;
  EXPECT_EQ(hipFileExtStatsOpen(0, -1, &region).err, hipFileInvalidValue);  // neither
  EXPECT_EQ(hipFileExtStatsOpen(1, 0, &region).err, hipFileInvalidValue);   // both
  EXPECT_EQ(hipFileExtStatsOpen(-5, -1, &region).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtStatsOpen(getpid(), -1, nullptr).err, hipFileInvalidValue);
  hipFileExtProcessStats_t s;
  EXPECT_EQ(hipFileExtStatsRead(nullptr, &s).err, hipFileInvalidValue);
  hipFileExtLatencyStats_t latency;
  EXPECT_EQ(hipFileExtStatsReadLatency(nullptr, &latency).err, hipFileInvalidValue);
  hipFileExtGpuStats_t gpu;
  EXPECT_EQ(hipFileExtStatsReadGpu(nullptr, 0, &gpu).err, hipFileInvalidValue);
  hipFileExtAsyncWayStats_t ways;
  EXPECT_EQ(hipFileExtStatsReadAsyncWays(nullptr, &ways).err, hipFileInvalidValue);
  hipFileExtCopyWaitStats_t waits;
  EXPECT_EQ(hipFileExtStatsReadCopyWaits(nullptr, &waits).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtGetCopyWaitStats(nullptr).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtGetLatencyStats(nullptr).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtGetGpuStats(0, nullptr).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtGetGpuStats(-1, &gpu).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtGetGpuStats(HIPFILE_MAX_GPUS, &gpu).err, hipFileInvalidValue);
  EXPECT_EQ(hipFileExtStatsRegionCreate(nullptr).err, hipFileInvalidValue);
  hipFileExtStatsClose(nullptr);
}

TEST(StatsRegionApiTest, NoSuchProcessIsEsrch) {
  hipFileExtStatsRegion_t* region = nullptr;
  EXPECT_EQ(hipFileExtStatsOpen(0x3ffffffe, -1, &region).err, hipFileInternalError);
  EXPECT_EQ(errno, ESRCH);
}

TEST(StatsRegionApiTest, ACreatedRegionIsCloseOnExecAndUnclaimed) {
  int fd = -1;
  ASSERT_EQ(hipFileExtStatsRegionCreate(&fd).err, hipFileSuccess);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(0, fd, &region).err, hipFileSuccess);
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.pid, 0);
  EXPECT_EQ(s.stats.detailed.basic.read_bytes, 0u);
  hipFileExtStatsClose(region);
  close(fd);
}

TEST(StatsRegionApiTest, TheProcessPublishesWhatItsOwnCallsReport) {
  hipFileStatsLevel3_t own;
  ASSERT_EQ(hipFileGetStatsL3(&own).err, hipFileSuccess);  // statistics start here
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess) << errno;
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.pid, getpid());
  EXPECT_EQ(s.level, 1u);
  EXPECT_GT(s.published_unix_ns, 0u);
  ASSERT_EQ(hipFileGetStatsL3(&own).err, hipFileSuccess);
  // The same bytes, uuids included (published when the driver opened).
  EXPECT_EQ(std::memcmp(&own, &s.stats, sizeof own), 0);
  hipFileExtPathStats_t paths;
  ASSERT_EQ(hipFileExtGetPathStats(&paths).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&paths, &s.paths, sizeof paths), 0);
  hipFileExtStatsClose(region);
}

class StatsTablesApiTest : public hipfile::api::ApiTest {};

// Known transfers through the API land in ais-stats' size buckets of their GPU, the process's
// tables add up to hipFileGetStatsL1, and another reader of the region sees the same tables and
// the GPU's uuid (hipFileGetStatsL3's).
TEST_F(StatsTablesApiTest, KnownTransfersFillTheGpuTablesAndLatency) {
  const int fd = OpenFile("tables.dat", 1 << 20, O_RDWR);
  void* buf = DeviceAlloc(1 << 20);
  ASSERT_TRUE(hipfile::api::IsSuccess(hipFileDriverOpen()));
  hipFileHandle_t fh = Register(fd);
  int device = 0;
  ASSERT_EQ(hipfile::ProcessRuntime().GetDevice(&device), hipSuccess);
  hipFileExtGpuStats_t before;
  ASSERT_EQ(hipFileExtGetGpuStats(device, &before).err, hipFileSuccess);
  hipFileExtLatencyStats_t latency_before;
  ASSERT_EQ(hipFileExtGetLatencyStats(&latency_before).err, hipFileSuccess);
  hipFileStatsLevel1_t l1_before;
  ASSERT_EQ(hipFileGetStatsL1(&l1_before).err, hipFileSuccess);

  for (int i = 0; i < 3; ++i) ASSERT_EQ(hipFileRead(fh, buf, 4096, i * 4096, 0), 4096);
  ASSERT_EQ(hipFileRead(fh, buf, 1 << 20, 0, 0), 1 << 20);
  ASSERT_EQ(hipFileWrite(fh, buf, 65536, 0, 0), 65536);

  hipFileExtGpuStats_t after;
  ASSERT_EQ(hipFileExtGetGpuStats(device, &after).err, hipFileSuccess);
  EXPECT_EQ(after.in_use, 1u);
  const auto count = [](const hipFileExtGpuStats_t& g, bool read, int bucket) {
    const hipFileExtSizeHistogram_t* h = read ? g.read : g.write;
    return h[hipFileExtBackendFastpath].count[bucket] + h[hipFileExtBackendFallback].count[bucket];
  };
  EXPECT_EQ(count(after, true, 1) - count(before, true, 1), 3u);    // 4-8 KiB
  EXPECT_EQ(count(after, true, 9) - count(before, true, 9), 1u);    // 1024-2048 KiB
  EXPECT_EQ(count(after, false, 5) - count(before, false, 5), 1u);  // 64-128 KiB
  hipFileExtLatencyStats_t latency;
  ASSERT_EQ(hipFileExtGetLatencyStats(&latency).err, hipFileSuccess);
  uint64_t reads = 0, writes = 0;
  for (int i = 0; i < HIPFILE_EXT_LATENCY_BUCKETS; ++i) {
    reads += latency.read_us_hist[i] - latency_before.read_us_hist[i];
    writes += latency.write_us_hist[i] - latency_before.write_us_hist[i];
  }
  EXPECT_EQ(reads, 4u);
  EXPECT_EQ(writes, 1u);

  // Summed over GPUs and backends, the tables are the process's totals.
  hipFileStatsLevel3_t l3;
  ASSERT_EQ(hipFileGetStatsL3(&l3).err, hipFileSuccess);
  uint64_t ok = 0, bytes = 0;
  for (int d = 0; d < HIPFILE_MAX_GPUS; ++d) {
    hipFileExtGpuStats_t g;
    ASSERT_EQ(hipFileExtGetGpuStats(d, &g).err, hipFileSuccess);
    for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
      for (int i = 0; i < HIPFILE_EXT_SIZE_BUCKETS; ++i) {
        ok += g.read[b].count[i] + g.write[b].count[i];
        bytes += g.read[b].bytes[i] + g.write[b].bytes[i];
      }
    }
  }
  const hipFileStatsLevel1_t& l1 = l3.detailed.basic;
  EXPECT_EQ(ok, l1.read_ops.ok + l1.write_ops.ok);
  EXPECT_EQ(bytes, l1.read_bytes + l1.write_bytes);
  EXPECT_EQ(l1.read_ops.ok - l1_before.read_ops.ok, 4u);

  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess) << errno;
  hipFileExtGpuStats_t theirs;
  ASSERT_EQ(hipFileExtStatsReadGpu(region, device, &theirs).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&theirs, &after, sizeof after), 0);
  hipFileExtLatencyStats_t their_latency;
  ASSERT_EQ(hipFileExtStatsReadLatency(region, &their_latency).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&their_latency, &latency, sizeof latency), 0);
  EXPECT_EQ(hipFileExtStatsReadGpu(region, HIPFILE_MAX_GPUS, &theirs).err, hipFileInvalidValue);
  const char zero[HIPFILE_GPU_UUID_LEN] = {};
  EXPECT_NE(std::memcmp(theirs.uuid, zero, sizeof zero), 0) << "no uuid published";
  EXPECT_EQ(std::memcmp(theirs.uuid, l3.per_gpu_stats[device].uuid, sizeof zero), 0);
  hipFileExtStatsClose(region);
  hipFileHandleDeregister(fh);
}

// Stream-ordered reads and writes through the API are each counted once, by direction, under
// one way (hipFileExtGetAsyncWayStats), and another reader of the region sees the same counts.
TEST_F(StatsTablesApiTest, StreamOrderedOperationsAreCountedByWayAndPublished) {
  constexpr size_t kBytes = 1 << 20;
  const int fd = OpenFile("ways.dat", kBytes, O_RDWR);
  void* buf = DeviceAlloc(kBytes);
  ASSERT_TRUE(hipfile::api::IsSuccess(hipFileDriverOpen()));
  hipFileHandle_t fh = Register(fd);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  hipFileExtAsyncWayStats_t before;
  ASSERT_EQ(hipFileExtGetAsyncWayStats(&before).err, hipFileSuccess);
  size_t sizes[3] = {kBytes, 4096, kBytes / 2};
  hoff_t file_offsets[3] = {0, 8192, 0};
  hoff_t buf_offsets[3] = {0, 0, 0};
  ssize_t bytes[3] = {-1, -1, -1};
  ASSERT_TRUE(hipfile::api::IsSuccess(
      hipFileReadAsync(fh, buf, &sizes[0], &file_offsets[0], &buf_offsets[0], &bytes[0], stream)));
  ASSERT_TRUE(hipfile::api::IsSuccess(
      hipFileReadAsync(fh, buf, &sizes[1], &file_offsets[1], &buf_offsets[1], &bytes[1], stream)));
  ASSERT_TRUE(hipfile::api::IsSuccess(
      hipFileWriteAsync(fh, buf, &sizes[2], &file_offsets[2], &buf_offsets[2], &bytes[2], stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes[0], static_cast<ssize_t>(kBytes));
  EXPECT_EQ(bytes[1], 4096);
  EXPECT_EQ(bytes[2], static_cast<ssize_t>(kBytes / 2));
  hipFileExtAsyncWayStats_t after;
  ASSERT_EQ(hipFileExtGetAsyncWayStats(&after).err, hipFileSuccess);
  const auto sum = [](const uint64_t(&ops)[HIPFILE_EXT_MAX_ASYNC_WAYS]) {
    return std::accumulate(ops, ops + HIPFILE_EXT_MAX_ASYNC_WAYS, uint64_t{0});
  };
  EXPECT_EQ(sum(after.read_ops) - sum(before.read_ops), 2u);
  EXPECT_EQ(sum(after.write_ops) - sum(before.write_ops), 1u);
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess) << errno;
  hipFileExtAsyncWayStats_t theirs;
  ASSERT_EQ(hipFileExtStatsReadAsyncWays(region, &theirs).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&theirs, &after, sizeof after), 0);
  hipFileExtStatsClose(region);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  hipFileHandleDeregister(fh);
}

// A read into device memory waits for its copies where the runtime stages it (a GPU's, and
// cpu-staged; not the CPU runtime, whose device memory is host memory), counted by
// hipFileExtGetCopyWaitStats, and another reader of the region sees the same counts.
TEST_F(StatsTablesApiTest, CopyWaitsAreCountedAndPublished) {
  constexpr size_t kBytes = 1 << 20;
  const int fd = OpenFile("waits.dat", kBytes, O_RDONLY);
  void* buf = DeviceAlloc(kBytes);
  ASSERT_TRUE(hipfile::api::IsSuccess(hipFileDriverOpen()));
  hipFileHandle_t fh = Register(fd);
  hipFileExtCopyWaitStats_t before;
  ASSERT_EQ(hipFileExtGetCopyWaitStats(&before).err, hipFileSuccess);
  ASSERT_EQ(hipFileRead(fh, buf, kBytes, 0, 0), static_cast<ssize_t>(kBytes));
  hipFileExtCopyWaitStats_t after;
  ASSERT_EQ(hipFileExtGetCopyWaitStats(&after).err, hipFileSuccess);
  if (std::strcmp(hipFileExtRuntimeName(), "cpu") == 0) {
    EXPECT_EQ(after.waits, before.waits) << "a wait where nothing is staged";
  } else {
    EXPECT_GE(after.waits - before.waits, 1u);
    EXPECT_LE(after.slept - before.slept, after.waits - before.waits);
  }
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess) << errno;
  hipFileExtCopyWaitStats_t theirs;
  ASSERT_EQ(hipFileExtStatsReadCopyWaits(region, &theirs).err, hipFileSuccess);
  EXPECT_EQ(std::memcmp(&theirs, &after, sizeof after), 0);
  hipFileExtStatsClose(region);
  hipFileHandleDeregister(fh);
}

// A child forked without exec counts for itself from the fork on: its parent's published
// counters do not move, and the child still reports its own.
TEST(StatsRegionApiTest, AForkedChildDoesNotCountIntoItsParentsRegion) {
  hipFileStatsLevel1_t before;
  ASSERT_EQ(hipFileGetStatsL1(&before).err, hipFileSuccess);
  hipFileExtStatsRegion_t* region = nullptr;
  ASSERT_EQ(hipFileExtStatsOpen(getpid(), -1, &region).err, hipFileSuccess);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A registration of no descriptor fails, and is counted as a failed registration.
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = -1;
    hipFileHandle_t fh = nullptr;
    (void)hipFileHandleRegister(&fh, &descr);
    hipFileStatsLevel1_t own;
    const bool counted = hipFileGetStatsL1(&own).err == hipFileSuccess &&
                         own.hdl_register_ops.err == before.hdl_register_ops.err + 1;
    _exit(counted ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child did not count its own registration";
  hipFileExtProcessStats_t s;
  ASSERT_EQ(hipFileExtStatsRead(region, &s).err, hipFileSuccess);
  EXPECT_EQ(s.stats.detailed.basic.hdl_register_ops.err, before.hdl_register_ops.err);
  hipFileExtStatsClose(region);
}

}  // namespace
