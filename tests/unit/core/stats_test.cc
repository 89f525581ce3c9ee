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

TEST(StatsTest, ResetZeroesCountsButKeepsLevelUuidAndRegisteredBytes) {
  Stats stats;
  stats.set_level(2);
  const char uuid[16] = {'g', 'p', 'u', '-', '3'};
  stats.PublishUuid(3, uuid);
  stats.RecordBufRegister(true, 3, 1 << 20);
  stats.RecordHandleRegister(true);
  stats.RecordIo(IoDirection::kRead, 3, true, 4096, 10, false);
  stats.RecordIo(IoDirection::kWrite, 3, false, 4096, 0, false);
  stats.Reset();

  hipFileStatsLevel2_t l2;
  stats.FillL2(&l2);
  EXPECT_EQ(l2.basic.read_ops.ok, 0u);
  EXPECT_EQ(l2.basic.write_ops.err, 0u);
  EXPECT_EQ(l2.basic.read_bytes, 0u);
  EXPECT_EQ(l2.basic.hdl_register_ops.ok, 0u);
  EXPECT_EQ(l2.basic.buf_register_ops.ok, 0u);
  for (uint64_t bucket : l2.read_size_kb_hist) EXPECT_EQ(bucket, 0u);
  EXPECT_EQ(stats.level(), 2u);
  const StatsCounters& c = stats.counters();
  EXPECT_EQ(c.gpus[3].reg_bytes.load(), uint64_t{1} << 20);
  EXPECT_EQ(c.gpus[3].in_use.load(), 1u);
  char kept[16];
  const uint64_t words[2] = {c.gpus[3].uuid[0].load(), c.gpus[3].uuid[1].load()};
  std::memcpy(kept, words, sizeof kept);
  EXPECT_EQ(std::memcmp(kept, uuid, sizeof uuid), 0);

  // Counting resumes from zero, and the registered bytes still come off at deregistration.
  stats.RecordIo(IoDirection::kRead, 3, true, 8192, 10, false);
  stats.RecordBufDeregister(true, 3, 1 << 20);
  stats.FillL2(&l2);
  EXPECT_EQ(l2.basic.read_ops.ok, 1u);
  EXPECT_EQ(l2.basic.read_bytes, 8192u);
  EXPECT_EQ(c.gpus[3].reg_bytes.load(), 0u);
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
      {IoDirection::kRead, 0, false, 65536, 0, false},
      {IoDirection::kWrite, 1, true, 1 << 20, 3, false},
      {IoDirection::kRead, -1, false, 0, 0, false},
      {IoDirection::kWrite, 2, true, 100, 1, true},
      {IoDirection::kRead, 3, true, 8192, 7, false},
      {IoDirection::kRead, 0, true, 2048, 2, false},
  };
  Stats separate;
  Stats tallied;
  engine::PathBytes buffered;  // the second record's bytes: a Fallback transfer
  buffered.AddBuffered(engine::Fallback::kUnaligned, 4096);
  {
    IoTally tally(tallied);
    for (const Rec& r : recs) {
      const engine::PathBytes* paths = &r == &recs[1] ? &buffered : nullptr;
      separate.RecordIo(r.direction, r.device, r.ok, r.bytes, r.micros, r.unaligned, paths);
      tally.Record(r.direction, r.device, r.ok, r.bytes, r.micros, r.unaligned, paths);
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
  hipFileExtLatencyStats_t la, lb;
  separate.FillLatency(&la);
  tallied.FillLatency(&lb);
  EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0);
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    hipFileExtGpuStats_t ga, gb;
    separate.FillGpu(device, &ga);
    tallied.FillGpu(device, &gb);
    EXPECT_EQ(std::memcmp(&ga, &gb, sizeof ga), 0) << "GPU " << device;
  }
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
  {
    IoTally tally(stats);
    tally.Record(IoDirection::kWrite, 1, true, 4096, 10, false);
    tally.Record(IoDirection::kWrite, 1, false, 4096, 10, false);
  }
  hipFileStatsLevel1_t l1;
  stats.FillL1(&l1);
  EXPECT_EQ(l1.read_ops.ok, 0u);
  EXPECT_EQ(l1.write_ops.ok, 0u);
  EXPECT_EQ(l1.write_ops.err, 0u);
  EXPECT_EQ(l1.hdl_register_ops.ok, 0u);
  EXPECT_EQ(l1.buf_register_ops.ok, 0u);
  hipFileExtLatencyStats_t latency;
  stats.FillLatency(&latency);
  const hipFileExtLatencyStats_t zero_latency = {};
  EXPECT_EQ(std::memcmp(&latency, &zero_latency, sizeof latency), 0);
  for (const int device : {0, 1}) {
    hipFileExtGpuStats_t g;
    stats.FillGpu(device, &g);
    const hipFileExtGpuStats_t zero_gpu = {};
    EXPECT_EQ(std::memcmp(&g, &zero_gpu, sizeof g), 0) << "GPU " << device;
  }
}

// ais-stats' buckets: min(15, bit_length(bytes >> 12)), so 0 is [0, 4 KiB), 1 [4, 8) KiB, 15
// 64 MiB and more.
TEST(AisSizeBucketTest, FollowsAisStats) {
  EXPECT_EQ(AisSizeBucket(0), 0u);
  EXPECT_EQ(AisSizeBucket(4095), 0u);
  EXPECT_EQ(AisSizeBucket(4096), 1u);
  EXPECT_EQ(AisSizeBucket(5000), 1u);
  EXPECT_EQ(AisSizeBucket(8191), 1u);
  EXPECT_EQ(AisSizeBucket(8192), 2u);
  EXPECT_EQ(AisSizeBucket(65536), 5u);
  EXPECT_EQ(AisSizeBucket(262144), 7u);
  EXPECT_EQ(AisSizeBucket(1 << 20), 9u);  // the "1024-2048" KiB row
  EXPECT_EQ(AisSizeBucket((64ull << 20) - 1), 14u);
  EXPECT_EQ(AisSizeBucket(64ull << 20), 15u);
  EXPECT_EQ(AisSizeBucket(UINT64_MAX), 15u);
}

// Latency buckets: 0 under 1 us, k [2^(k-1), 2^k) us, 31 from 2^30 us.
TEST(LatencyBucketTest, Log2OfMicroseconds) {
  EXPECT_EQ(LatencyBucket(0), 0u);
  EXPECT_EQ(LatencyBucket(1), 1u);
  EXPECT_EQ(LatencyBucket(2), 2u);
  EXPECT_EQ(LatencyBucket(3), 2u);
  EXPECT_EQ(LatencyBucket(12), 4u);  // a 4 KiB read on a GPU: [8, 16) us
  EXPECT_EQ(LatencyBucket(1023), 10u);
  EXPECT_EQ(LatencyBucket(1024), 11u);
  EXPECT_EQ(LatencyBucket((1ull << 30) - 1), 30u);
  EXPECT_EQ(LatencyBucket(1ull << 30), 31u);
  EXPECT_EQ(LatencyBucket(UINT64_MAX), 31u);
}

uint64_t SumOf(const uint64_t (&buckets)[HIPFILE_EXT_SIZE_BUCKETS]) {
  uint64_t total = 0;
  for (const uint64_t b : buckets) total += b;
  return total;
}

// Known transfers land in ais-stats' size bucket and backend, per GPU and direction; summed
// over GPUs and backends they are hipFileGetStatsL1's totals, and the latency buckets add up to
// the transfers.
TEST_F(StatsL3Test, GpuTablesHoldEachTransferInItsBucketAndBackend) {
  Stats stats;
  engine::PathBytes direct;
  direct.Add(engine::IoPath::kDirect, 1 << 20);
  engine::PathBytes small;
  small.AddBuffered(engine::Fallback::kSmall, 4096);
  engine::PathBytes mixed;  // an unaligned head buffered, the body O_DIRECT: Fallback
  mixed.AddBuffered(engine::Fallback::kUnaligned, 512);
  mixed.Add(engine::IoPath::kDirect, 65536);
  stats.RecordIo(IoDirection::kRead, 0, true, 1 << 20, 100, false, &direct);
  stats.RecordIo(IoDirection::kRead, 0, true, 1 << 20, 300, false, &direct);
  stats.RecordIo(IoDirection::kRead, 0, true, 4096, 12, false, &small);
  stats.RecordIo(IoDirection::kRead, 0, true, mixed.total(), 40, true, &mixed);
  stats.RecordIo(IoDirection::kRead, 0, false, 8192, 5, false);       // failed: asked 8 KiB
  stats.RecordIo(IoDirection::kRead, -1, false, 0, 0, false);         // refused: no GPU known
  stats.RecordIo(IoDirection::kWrite, 3, true, 100 << 20, 7, false);  // host memory: Fastpath

  hipFileExtGpuStats_t g0;
  stats.FillGpu(0, &g0);
  EXPECT_EQ(g0.in_use, 1u);
  const hipFileExtSizeHistogram_t& fast = g0.read[hipFileExtBackendFastpath];
  const hipFileExtSizeHistogram_t& slow = g0.read[hipFileExtBackendFallback];
  EXPECT_EQ(fast.count[9], 2u);  // the two 1 MiB O_DIRECT reads
  EXPECT_EQ(fast.bytes[9], 2u << 20);
  EXPECT_EQ(fast.time_us[9], 400u);
  EXPECT_EQ(SumOf(fast.count), 2u);
  EXPECT_EQ(slow.count[1], 1u);  // the small buffered 4 KiB read
  EXPECT_EQ(slow.time_us[1], 12u);
  EXPECT_EQ(slow.count[5], 1u);  // the mixed one: 66048 bytes, the 64-128 KiB row
  EXPECT_EQ(slow.bytes[5], 66048u);
  EXPECT_EQ(SumOf(slow.count), 2u);
  EXPECT_EQ(fast.errors[2], 1u);  // a failure: Fastpath, by the size asked for
  EXPECT_EQ(SumOf(fast.errors) + SumOf(slow.errors), 1u);
  EXPECT_EQ(g0.read_unaligned[hipFileExtBackendFallback], 1u);
  EXPECT_EQ(g0.read_unaligned[hipFileExtBackendFastpath], 0u);
  EXPECT_EQ(SumOf(g0.write[0].count) + SumOf(g0.write[1].count), 0u);
  hipFileExtGpuStats_t g3;
  stats.FillGpu(3, &g3);
  EXPECT_EQ(g3.write[hipFileExtBackendFastpath].count[15], 1u);  // 100 MiB: "65536-..."

  hipFileStatsLevel3_t l3;
  stats.FillL3(&l3, gpu_);
  const hipFileStatsLevel1_t& l1 = l3.detailed.basic;
  uint64_t reads = 0, read_bytes = 0, writes = 0, write_bytes = 0, read_errors = 0;
  for (int device = 0; device < HIPFILE_MAX_GPUS; ++device) {
    hipFileExtGpuStats_t g;
    stats.FillGpu(device, &g);
    for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
      reads += SumOf(g.read[b].count);
      read_bytes += SumOf(g.read[b].bytes);
      writes += SumOf(g.write[b].count);
      write_bytes += SumOf(g.write[b].bytes);
      read_errors += SumOf(g.read[b].errors);
    }
  }
  EXPECT_EQ(reads, l1.read_ops.ok);
  EXPECT_EQ(read_bytes, l1.read_bytes);
  EXPECT_EQ(writes, l1.write_ops.ok);
  EXPECT_EQ(write_bytes, l1.write_bytes);
  EXPECT_EQ(read_errors + 1, l1.read_ops.err);  // the refusal before a buffer was known
  // hipFileGetStatsL3's split is the tables'.
  EXPECT_EQ(l3.per_gpu_stats[0].n_nvfs_reads, 2u);
  EXPECT_EQ(l3.per_gpu_stats[0].n_posix_reads, 2u);
  EXPECT_EQ(l3.per_gpu_stats[0].n_reads_err, 1u);
  EXPECT_EQ(l3.per_gpu_stats[0].read_duration_us, 452u);

  hipFileExtLatencyStats_t latency;
  stats.FillLatency(&latency);
  uint64_t read_latencies = 0, write_latencies = 0;
  for (int i = 0; i < HIPFILE_EXT_LATENCY_BUCKETS; ++i) {
    read_latencies += latency.read_us_hist[i];
    write_latencies += latency.write_us_hist[i];
  }
  EXPECT_EQ(read_latencies, l1.read_ops.ok);
  EXPECT_EQ(write_latencies, l1.write_ops.ok);
  EXPECT_EQ(latency.read_us_hist[7], 1u);   // 100 us: [64, 128)
  EXPECT_EQ(latency.read_us_hist[9], 1u);   // 300 us: [256, 512)
  EXPECT_EQ(latency.read_us_hist[4], 1u);   // 12 us: [8, 16)
  EXPECT_EQ(latency.read_us_hist[6], 1u);   // 40 us: [32, 64)
  EXPECT_EQ(latency.write_us_hist[3], 1u);  // 7 us: [4, 8)
}

// A reader of the counters (another process) sees each GPU's uuid as the process published it.
TEST(StatsTest, PublishedUuidsReachAReaderOfTheCounters) {
  Stats stats;
  const char uuid[16] = {'u', 'u', 'i', 'd', '-', 'o', 'f', '-',
                         'g', 'p', 'u', '-', 't', 'w', 'o', '!'};
  stats.PublishUuid(2, uuid);
  stats.PublishUuid(HIPFILE_MAX_GPUS, uuid);  // ignored
  stats.RecordIo(IoDirection::kRead, 2, true, 4096, 1, false);
  hipFileStatsLevel3_t l3;
  FillL3(stats.counters(), &l3);
  EXPECT_EQ(std::memcmp(l3.per_gpu_stats[2].uuid, uuid, sizeof uuid), 0);
  hipFileExtGpuStats_t g;
  stats.FillGpu(2, &g);
  EXPECT_EQ(std::memcmp(g.uuid, uuid, sizeof uuid), 0);
}

}  // namespace
}  // namespace hipfile::core
