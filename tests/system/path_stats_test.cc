// SPDX-License-Identifier: MIT
// Which path every byte took, through the C API (hipFileExtGetPathStats, hipFileGetStatsL3), on
// `cpu` (device memory is host memory) and, as system_tests.cpu-staged, `cpu-staged` (a GPU's
// data paths): after sync, stream-ordered and batch transfers of known sizes, the bytes by path
// add up to hipFileGetStatsL1's totals, the transfers by path to its op counts, and each GPU's
// posix and nvfs counts to its total; the paths and reasons are the ones docs/stats.md says.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "core/process_runtime.h"
#include "fakes/batch_entry.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

constexpr size_t kBig = 4 << 20;

struct Snapshot {
  hipFileStatsLevel3_t l3;
  hipFileExtPathStats_t paths;
};

Snapshot Take() {
  Snapshot s;
  EXPECT_TRUE(IsSuccess(hipFileGetStatsL3(&s.l3)));
  EXPECT_TRUE(IsSuccess(hipFileExtGetPathStats(&s.paths)));
  return s;
}

uint64_t Sum(const uint64_t* a, int n) {
  uint64_t s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}

class PathStatsTest : public ApiTest {
 protected:
  static bool Staged() { return !ProcessRuntime().DeviceMemoryIsHostMemory(); }
};

TEST_F(PathStatsTest, EveryByteHasOnePathOnEveryApi) {
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  const Snapshot before = Take();
  hipFileHandle_t fh = Register(OpenFile("f", kBig, O_RDWR));
  char* dev = static_cast<char*>(DeviceAlloc(kBig));
  // Synchronous: a large aligned write and read, an unaligned small write, a small read.
  ASSERT_EQ(hipFileWrite(fh, dev, kBig, 0, 0), static_cast<ssize_t>(kBig));
  ASSERT_EQ(hipFileRead(fh, dev, kBig, 0, 0), static_cast<ssize_t>(kBig));
  ASSERT_EQ(hipFileWrite(fh, dev, 1000, 0, 0), 1000);
  ASSERT_EQ(hipFileRead(fh, dev, 4096, 8192, 0), 4096);
  // Batch: eight 4 KiB reads.
  hipFileBatchHandle_t batch = nullptr;
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 8)));
  std::vector<hipFileIOParams_t> entries;
  for (int i = 0; i < 8; ++i) {
    entries.push_back(testing::BatchEntry(hipFileBatchRead, fh, dev, 4096, i * 65536, i * 4096));
  }
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 8, entries.data(), 0)));
  std::vector<hipFileIOEvents_t> events(8);
  unsigned got = 0;
  while (got < 8) {
    unsigned nr = 8 - got;
    ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, nr, &nr, events.data() + got, nullptr)));
    got += nr;
  }
  for (const hipFileIOEvents_t& e : events) ASSERT_EQ(e.ret, 4096u);
  hipFileBatchIODestroy(batch);
  // Stream-ordered: one 1 MiB read.
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_TRUE(IsSuccess(hipFileStreamRegister(stream, 0)));
  size_t size = 1 << 20;
  hoff_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = 0;
  ASSERT_TRUE(
      IsSuccess(hipFileReadAsync(fh, dev, &size, &file_offset, &buffer_offset, &bytes, stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  ASSERT_EQ(bytes, 1 << 20);
  ASSERT_TRUE(IsSuccess(hipFileStreamDeregister(stream)));
  ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);
  hipFileHandleDeregister(fh);

  const Snapshot after = Take();
  const hipFileStatsLevel1_t& a = after.l3.detailed.basic;
  const hipFileStatsLevel1_t& b = before.l3.detailed.basic;
  const uint64_t read_bytes = a.read_bytes - b.read_bytes;
  const uint64_t write_bytes = a.write_bytes - b.write_bytes;
  EXPECT_EQ(read_bytes, kBig + 4096 + 8 * 4096 + (1 << 20));
  EXPECT_EQ(write_bytes, kBig + 1000);
  hipFileExtPathStats_t d;  // after - before
  const uint64_t* pa = &after.paths.read_bytes[0];
  const uint64_t* pb = &before.paths.read_bytes[0];
  uint64_t* pd = &d.read_bytes[0];
  for (size_t i = 0; i < sizeof d / sizeof(uint64_t); ++i) pd[i] = pa[i] - pb[i];
  EXPECT_EQ(Sum(d.read_bytes, HIPFILE_EXT_MAX_PATHS), read_bytes);
  EXPECT_EQ(Sum(d.write_bytes, HIPFILE_EXT_MAX_PATHS), write_bytes);
  EXPECT_EQ(Sum(d.read_ops, HIPFILE_EXT_MAX_PATHS), a.read_ops.ok - b.read_ops.ok);
  EXPECT_EQ(Sum(d.write_ops, HIPFILE_EXT_MAX_PATHS), a.write_ops.ok - b.write_ops.ok);
  EXPECT_EQ(a.read_ops.ok - b.read_ops.ok, 1u + 1u + 8u + 1u);
  // Buffered bytes are all accounted for by a reason.
  EXPECT_EQ(Sum(d.read_fallback_bytes, HIPFILE_EXT_MAX_FALLBACKS),
            d.read_bytes[hipFileExtPathBuffered]);
  EXPECT_EQ(Sum(d.write_fallback_bytes, HIPFILE_EXT_MAX_FALLBACKS),
            d.write_bytes[hipFileExtPathBuffered]);
  const hipFilePerGpuStats_t& ga = after.l3.per_gpu_stats[0];
  const hipFilePerGpuStats_t& gb = before.l3.per_gpu_stats[0];
  EXPECT_EQ((ga.n_posix_reads - gb.n_posix_reads) + (ga.n_nvfs_reads - gb.n_nvfs_reads),
            ga.n_total_reads - gb.n_total_reads);
  EXPECT_EQ((ga.n_posix_writes - gb.n_posix_writes) + (ga.n_nvfs_writes - gb.n_nvfs_writes),
            ga.n_total_writes - gb.n_total_writes);

  // The batch fields of L1: one set-up, one submission of eight 4 KiB reads, all processed.
  EXPECT_EQ(a.batch_setup_ops.ok - b.batch_setup_ops.ok, 1u);
  EXPECT_EQ(a.batch_submit_ops.ok - b.batch_submit_ops.ok, 1u);
  EXPECT_EQ(a.batch_total_submit_ops.ok - b.batch_total_submit_ops.ok, 1u);
  EXPECT_EQ(a.batch_enqueued_ops.ok - b.batch_enqueued_ops.ok, 8u);
  EXPECT_EQ(a.batch_processed_ops.ok - b.batch_processed_ops.ok, 8u);
  EXPECT_EQ(a.batch_complete_ops.ok - b.batch_complete_ops.ok, 8u);
  EXPECT_EQ(a.batch_processed_ops.err - b.batch_processed_ops.err, 0u);
  EXPECT_EQ(a.batch_destroy_ops.ok - b.batch_destroy_ops.ok, 1u);
  EXPECT_EQ(a.batch_read_bytes - b.batch_read_bytes, 8u * 4096);
  EXPECT_EQ(a.batch_write_bytes - b.batch_write_bytes, 0u);
  EXPECT_EQ(a.last_batch_read_bytes, 8u * 4096);
  EXPECT_LE(a.batch_iouring_submit_ops.ok - b.batch_iouring_submit_ops.ok,
            a.batch_posix_processed_ops.ok - b.batch_posix_processed_ops.ok);
  EXPECT_EQ(a.batch_posix_processed_ops.ok - b.batch_posix_processed_ops.ok, Staged() ? 8u : 0u);
  EXPECT_GE(a.batch_completion_lat_sum_us, a.batch_completion_lat_avg_us);

  if (!Staged()) {
    // Host memory: the system calls moved every byte straight in or out of it.
    EXPECT_EQ(d.read_bytes[hipFileExtPathHost], read_bytes);
    EXPECT_EQ(d.write_bytes[hipFileExtPathHost], write_bytes);
    EXPECT_EQ(ga.n_posix_reads - gb.n_posix_reads, 0u);
    return;
  }
  // A GPU's paths. The aligned 4 MiB write went by O_DIRECT (the build tree is on ext4); the
  // 1000-byte write is off the alignment; the 4 KiB read is too small to look its cache up; the
  // batch entries went in groups through io_uring (or one by one where it is refused), or alone,
  // buffered for being small: the compatibility path either way.
  EXPECT_EQ(d.write_bytes[hipFileExtPathDirect], kBig);
  EXPECT_EQ(d.write_fallback_bytes[hipFileExtFallbackUnaligned], 1000u);
  EXPECT_GE(d.read_fallback_bytes[hipFileExtFallbackSmall], 4096u);
  EXPECT_GE(d.read_bytes[hipFileExtPathIoUring] + d.read_bytes[hipFileExtPathBuffered],
            8u * 4096 + 4096);
  EXPECT_EQ(d.read_bytes[hipFileExtPathHost], 0u);
  EXPECT_GE(ga.n_posix_writes - gb.n_posix_writes, 1u);
  EXPECT_GE(ga.n_nvfs_writes - gb.n_nvfs_writes, 1u);
}

TEST_F(PathStatsTest, NamesAndNullArguments) {
  EXPECT_TRUE(IsOp(hipFileExtGetPathStats(nullptr), hipFileInvalidValue));
  EXPECT_STREQ(hipFileExtPathName(hipFileExtPathPageCache), "page_cache");
  EXPECT_STREQ(hipFileExtPathName(hipFileExtPathIoUring), "io_uring");
  EXPECT_STREQ(hipFileExtPathName(HIPFILE_EXT_PATH_COUNT), "unknown");
  EXPECT_STREQ(hipFileExtPathName(-1), "unknown");
  EXPECT_STREQ(hipFileExtFallbackName(hipFileExtFallbackNotPinned), "not_pinned");
  EXPECT_STREQ(hipFileExtFallbackName(HIPFILE_EXT_FALLBACK_COUNT), "unknown");
}

}  // namespace
}  // namespace hipfile::api
