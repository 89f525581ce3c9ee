// SPDX-License-Identifier: MIT
#include "core/stats.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core_test_util.h"

namespace hipfile::core {
namespace {

TEST(SizeHistogramBucketTest, PowerOfTwoKiBBuckets) {
  EXPECT_EQ(SizeHistogramBucket(0), 0u);
  EXPECT_EQ(SizeHistogramBucket(2047), 0u);
  EXPECT_EQ(SizeHistogramBucket(2048), 1u);
  EXPECT_EQ(SizeHistogramBucket(4095), 1u);
  EXPECT_EQ(SizeHistogramBucket(4096), 2u);
  EXPECT_EQ(SizeHistogramBucket(1 << 20), 10u);  // 1 MiB = 2^10 KiB
  EXPECT_EQ(SizeHistogramBucket((1ull << 40) - 1), 29u);
  EXPECT_EQ(SizeHistogramBucket(1ull << 41), 31u);
  EXPECT_EQ(SizeHistogramBucket(UINT64_MAX), 31u);
}

TEST(StatsTest, CountsOperationsBytesAndLatency) {
  Stats stats;
  stats.RecordIo(IoDirection::kRead, 0, true, 4096, 10, false);
  stats.RecordIo(IoDirection::kRead, 0, true, 1 << 20, 30, true);
  stats.RecordIo(IoDirection::kRead, -1, false, 0, 0, false);
  stats.RecordIo(IoDirection::kWrite, 1, true, 2048, 5, false);
  stats.RecordHandleRegister(true);
  stats.RecordHandleRegister(false);
  stats.RecordHandleDeregister(true);
  stats.RecordBufRegister(true, 0, 8192);
  stats.RecordBufDeregister(false, -1, 0);

  hipFileStatsLevel1_t l1;
  stats.FillL1(&l1);
  EXPECT_EQ(l1.read_ops.ok, 2u);
  EXPECT_EQ(l1.read_ops.err, 1u);
  EXPECT_EQ(l1.read_bytes, 4096u + (1u << 20));
  EXPECT_EQ(l1.read_lat_sum_us, 40u);
  EXPECT_EQ(l1.read_lat_avg_us, 20u);
  EXPECT_EQ(l1.read_bw_bytes_per_sec, (4096u + (1u << 20)) * 1000000ull / 40);
  EXPECT_EQ(l1.write_ops.ok, 1u);
  EXPECT_EQ(l1.write_bytes, 2048u);
  EXPECT_EQ(l1.hdl_register_ops.ok, 1u);
  EXPECT_EQ(l1.hdl_register_ops.err, 1u);
  EXPECT_EQ(l1.hdl_deregister_ops.ok, 1u);
  EXPECT_EQ(l1.buf_register_ops.ok, 1u);
  EXPECT_EQ(l1.buf_deregister_ops.err, 1u);
  EXPECT_EQ(l1.batch_submit_ops.ok, 0u);

  hipFileStatsLevel2_t l2;
  stats.FillL2(&l2);
  EXPECT_EQ(std::memcmp(&l2.basic, &l1, sizeof l1), 0);
  EXPECT_EQ(l2.read_size_kb_hist[2], 1u);
  EXPECT_EQ(l2.read_size_kb_hist[10], 1u);
  EXPECT_EQ(l2.write_size_kb_hist[1], 1u);
}

class StatsL3Test : public CoreTest {};

TEST_F(StatsL3Test, PerGpuSlotsAreIndexedByDevice) {
  Stats stats;
  stats.RecordBufRegister(true, 0, 8192);
  engine::PathBytes buffered;
  buffered.AddBuffered(engine::Fallback::kSmall, 4096);
  stats.RecordIo(IoDirection::kRead, 0, true, 4096, 10, true, &buffered);
  stats.RecordIo(IoDirection::kRead, 0, true, 512, 1, false);  // no report: host memory
  stats.RecordIo(IoDirection::kWrite, 0, false, 0, 0, false);
  stats.RecordIo(IoDirection::kWrite, 2, true, 100, 1, false);
  hipFileStatsLevel3_t l3;
  stats.FillL3(&l3, gpu_);
  EXPECT_EQ(l3.num_gpus, 2u);
  const hipFilePerGpuStats_t& g0 = l3.per_gpu_stats[0];
  char uuid[16];
  ASSERT_EQ(gpu_.GetDeviceUuid(0, uuid), hipSuccess);
  EXPECT_EQ(std::memcmp(g0.uuid, uuid, sizeof uuid), 0);
  EXPECT_EQ(g0.read_bytes, 4608u);
  EXPECT_EQ(g0.n_total_reads, 2u);
  EXPECT_EQ(g0.n_posix_reads, 1u);  // the buffered one: the compatibility path
  EXPECT_EQ(g0.n_nvfs_reads, 1u);
  EXPECT_EQ(g0.n_unaligned_reads, 1u);
  EXPECT_EQ(g0.n_writes_err, 1u);
  EXPECT_EQ(g0.reg_bytes, 8192u);
  EXPECT_EQ(g0.n_mmap, 1u);
  EXPECT_EQ(l3.per_gpu_stats[1].n_total_writes, 0u);
  EXPECT_EQ(l3.per_gpu_stats[2].n_total_writes, 1u);
  stats.RecordBufDeregister(true, 0, 8192);
  stats.FillL3(&l3, gpu_);
  EXPECT_EQ(l3.per_gpu_stats[0].reg_bytes, 0u);
}

// Bytes by path add up to the totals, transfers are counted under the path that moved most of
// their bytes, and buffered bytes under why.
TEST_F(StatsL3Test, PathBytesAddUpToTheTotals) {
  Stats stats;
  engine::PathBytes mixed;  // an unaligned head, an O_DIRECT body
  mixed.AddBuffered(engine::Fallback::kUnaligned, 1000);
  mixed.Add(engine::IoPath::kDirect, 1 << 20);
  engine::PathBytes cached;
  cached.Add(engine::IoPath::kPageCache, 4 << 20);
  engine::PathBytes ring;
  ring.Add(engine::IoPath::kIoUring, 4096);
  stats.RecordIo(IoDirection::kRead, 0, true, mixed.total(), 5, true, &mixed);
  stats.RecordIo(IoDirection::kRead, 0, true, cached.total(), 5, false, &cached);
  stats.RecordIo(IoDirection::kWrite, 1, true, ring.total(), 5, false, &ring);
  stats.RecordIo(IoDirection::kWrite, 1, false, 0, 5, false, nullptr);  // failed: no path
  IoTally tally(stats);
  tally.Record(IoDirection::kRead, 0, true, ring.total(), 1, false, &ring);
  tally.Flush();

  hipFileExtPathStats_t p;
  stats.FillPaths(&p);
  hipFileStatsLevel1_t l1;
  stats.FillL1(&l1);
  uint64_t read_bytes = 0, write_bytes = 0, read_ops = 0, write_ops = 0;
  for (int i = 0; i < HIPFILE_EXT_MAX_PATHS; ++i) {
    read_bytes += p.read_bytes[i];
    write_bytes += p.write_bytes[i];
    read_ops += p.read_ops[i];
    write_ops += p.write_ops[i];
  }
  EXPECT_EQ(read_bytes, l1.read_bytes);
  EXPECT_EQ(write_bytes, l1.write_bytes);
  EXPECT_EQ(read_ops, l1.read_ops.ok);
  EXPECT_EQ(write_ops, l1.write_ops.ok);
  EXPECT_EQ(p.read_bytes[hipFileExtPathDirect], 1u << 20);
  EXPECT_EQ(p.read_bytes[hipFileExtPathBuffered], 1000u);
  EXPECT_EQ(p.read_bytes[hipFileExtPathPageCache], 4u << 20);
  EXPECT_EQ(p.read_bytes[hipFileExtPathIoUring], 4096u);
  EXPECT_EQ(p.write_bytes[hipFileExtPathIoUring], 4096u);
  EXPECT_EQ(p.read_ops[hipFileExtPathDirect], 1u);  // most of the mixed read's bytes
  EXPECT_EQ(p.read_ops[hipFileExtPathBuffered], 0u);
  EXPECT_EQ(p.read_fallback_bytes[hipFileExtFallbackUnaligned], 1000u);
  hipFileStatsLevel3_t l3;
  stats.FillL3(&l3, gpu_);
  EXPECT_EQ(l3.per_gpu_stats[0].n_posix_reads, 2u);  // the mixed read and the grouped one
  EXPECT_EQ(l3.per_gpu_stats[0].n_nvfs_reads, 1u);
  EXPECT_EQ(l3.per_gpu_stats[1].n_posix_writes, 1u);

  stats.set_level(0);  // nothing recorded at level 0
  stats.RecordIo(IoDirection::kRead, 0, true, cached.total(), 5, false, &cached);
  hipFileExtPathStats_t again;
  stats.FillPaths(&again);
  EXPECT_EQ(std::memcmp(&again, &p, sizeof p), 0);
}

// A tally adds up to what the same records made one by one add, including past its limit of
// direction/GPU pairs, and adds nothing before it is flushed.
TEST_F(StatsL3Test, TallyAddsWhatSeparateRecordsAdd) {
  struct Rec {
    IoDirection direction;
    int device;
    bool ok;
    uint64_t bytes, micros;
    bool unaligned;
  };
  const Rec recs[] = {
      {IoDirection::kRead, 0, true, 4096, 10, false},
      {IoDirection::kRead, 0, true, 4096, 12, true},
      {IoDirection::kRead, 0, false, 0, 0, false},
      {IoDirection::kWrite, 1, true, 1 << 20, 3, false},
      {IoDirection::kRead, -1, false, 0, 0, false},
      {IoDirection::kWrite, 2, true, 100, 1, true},
      {IoDirection::kRead, 3, true, 8192, 7, false},
      {IoDirection::kRead, 0, true, 2048, 2, false},
  };
  Stats separate;
  Stats tallied;
  {
    IoTally tally(tallied);
    for (const Rec& r : recs) {
      separate.RecordIo(r.direction, r.device, r.ok, r.bytes, r.micros, r.unaligned);
      tally.Record(r.direction, r.device, r.ok, r.bytes, r.micros, r.unaligned);
    }
    hipFileStatsLevel1_t l1;
    tallied.FillL1(&l1);
    // Five pairs were recorded against a limit of four: the first four were added then.
    EXPECT_EQ(l1.read_ops.ok, 2u);
    EXPECT_EQ(l1.read_ops.err, 2u);
  }
  hipFileStatsLevel3_t a;
  hipFileStatsLevel3_t b;
  separate.FillL3(&a, gpu_);
  tallied.FillL3(&b, gpu_);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  EXPECT_EQ(b.detailed.basic.read_ops.ok, 4u);
  EXPECT_EQ(b.detailed.basic.read_ops.err, 2u);
  EXPECT_EQ(b.per_gpu_stats[0].n_unaligned_reads, 1u);
  EXPECT_EQ(b.per_gpu_stats[2].n_unaligned_writes, 1u);
}

TEST(StatsTest, LevelZeroRecordsNothing) {
  Stats stats;
  stats.set_level(0);
  stats.RecordIo(IoDirection::kRead, 0, true, 4096, 10, false);
  stats.RecordHandleRegister(true);
  stats.RecordBufRegister(true, 0, 10);
  hipFileStatsLevel1_t l1;
  stats.FillL1(&l1);
  EXPECT_EQ(l1.read_ops.ok, 0u);
  EXPECT_EQ(l1.hdl_register_ops.ok, 0u);
  EXPECT_EQ(l1.buf_register_ops.ok, 0u);
}

}  // namespace
}  // namespace hipfile::core
