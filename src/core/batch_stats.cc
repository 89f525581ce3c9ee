// SPDX-License-Identifier: MIT
#include "core/batch_stats.h"

namespace hipfile::core {
namespace {

uint64_t Ratio(uint64_t num, uint64_t den) { return den == 0 ? 0 : num / den; }
uint64_t Load(const BatchCounters::Counter& c) { return c.load(std::memory_order_relaxed); }

}  // namespace

void BatchStats::RecordSubmit(bool ok, uint64_t micros, uint64_t entries, uint64_t read_bytes,
                              uint64_t write_bytes) {
  Add(ok ? c_.submit_ok : c_.submit_err, 1);
  Add(c_.submit_us, micros);
  if (!ok) return;
  Add(c_.enqueued, entries);
  c_.last_read_bytes.store(read_bytes, std::memory_order_relaxed);
  c_.last_write_bytes.store(write_bytes, std::memory_order_relaxed);
}

void BatchStats::RecordRun(const BatchRunTally& run) {
  Add(c_.processed_ok, run.ok);
  Add(c_.processed_err, run.failed);
  Add(c_.read_bytes, run.read_bytes);
  Add(c_.write_bytes, run.write_bytes);
  Add(c_.compat, run.compat);
  Add(c_.ring, run.ring);
  Add(c_.completion_us, run.completion_us);
}

void FillBatchL1(const BatchCounters& c, hipFileStatsLevel1_t* out) {
  out->batch_setup_ops = {Load(c.setup_ok), Load(c.setup_err)};
  out->batch_cancel_ops = {Load(c.cancel_ok), Load(c.cancel_err)};
  out->batch_destroy_ops = {Load(c.destroy_ok), Load(c.destroy_err)};
  out->batch_submit_ops = {Load(c.submit_ok), Load(c.submit_err)};
  out->batch_total_submit_ops = out->batch_submit_ops;
  out->batch_enqueued_ops = {Load(c.enqueued), 0};
  out->batch_processed_ops = {Load(c.processed_ok), Load(c.processed_err)};
  out->batch_complete_ops = out->batch_processed_ops;
  out->batch_posix_enqueued_ops = {Load(c.compat), 0};
  out->batch_posix_processed_ops = {Load(c.compat), 0};
  out->batch_iouring_submit_ops = {Load(c.ring), 0};
  out->batch_read_bytes = Load(c.read_bytes);
  out->batch_write_bytes = Load(c.write_bytes);
  out->batch_submit_lat_sum_us = Load(c.submit_us);
  out->batch_submit_lat_avg_us =
      Ratio(out->batch_submit_lat_sum_us, out->batch_submit_ops.ok + out->batch_submit_ops.err);
  out->batch_completion_lat_sum_us = Load(c.completion_us);
  const uint64_t processed = out->batch_processed_ops.ok + out->batch_processed_ops.err;
  out->batch_completion_lat_avg_us = Ratio(out->batch_completion_lat_sum_us, processed);
  out->last_batch_read_bytes = Load(c.last_read_bytes);
  out->last_batch_write_bytes = Load(c.last_write_bytes);
}

}  // namespace hipfile::core
