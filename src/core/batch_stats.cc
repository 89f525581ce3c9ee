// SPDX-License-Identifier: MIT
#include "core/batch_stats.h"

namespace hipfile::core {
namespace {

uint64_t Ratio(uint64_t num, uint64_t den) { return den == 0 ? 0 : num / den; }

}  // namespace

void BatchStats::RecordSubmit(bool ok, uint64_t micros, uint64_t entries, uint64_t read_bytes,
                              uint64_t write_bytes) {
  Add(ok ? submit_ok_ : submit_err_, 1);
  Add(submit_us_, micros);
  if (!ok) return;
  Add(enqueued_, entries);
  last_read_bytes_.store(read_bytes, std::memory_order_relaxed);
  last_write_bytes_.store(write_bytes, std::memory_order_relaxed);
}

void BatchStats::RecordRun(const BatchRunTally& run) {
  Add(processed_ok_, run.ok);
  Add(processed_err_, run.failed);
  Add(read_bytes_, run.read_bytes);
  Add(write_bytes_, run.write_bytes);
  Add(compat_, run.compat);
  Add(ring_, run.ring);
  Add(completion_us_, run.completion_us);
}

void BatchStats::FillL1(hipFileStatsLevel1_t* out) const {
  out->batch_setup_ops = {Load(setup_ok_), Load(setup_err_)};
  out->batch_cancel_ops = {Load(cancel_ok_), Load(cancel_err_)};
  out->batch_destroy_ops = {Load(destroy_ok_), Load(destroy_err_)};
  out->batch_submit_ops = {Load(submit_ok_), Load(submit_err_)};
  out->batch_total_submit_ops = out->batch_submit_ops;
  out->batch_enqueued_ops = {Load(enqueued_), 0};
  out->batch_processed_ops = {Load(processed_ok_), Load(processed_err_)};
  out->batch_complete_ops = out->batch_processed_ops;
  out->batch_posix_enqueued_ops = {Load(compat_), 0};
  out->batch_posix_processed_ops = {Load(compat_), 0};
  out->batch_iouring_submit_ops = {Load(ring_), 0};
  out->batch_read_bytes = Load(read_bytes_);
  out->batch_write_bytes = Load(write_bytes_);
  out->batch_submit_lat_sum_us = Load(submit_us_);
  out->batch_submit_lat_avg_us =
      Ratio(out->batch_submit_lat_sum_us, out->batch_submit_ops.ok + out->batch_submit_ops.err);
  out->batch_completion_lat_sum_us = Load(completion_us_);
  const uint64_t processed = out->batch_processed_ops.ok + out->batch_processed_ops.err;
  out->batch_completion_lat_avg_us = Ratio(out->batch_completion_lat_sum_us, processed);
  out->last_batch_read_bytes = Load(last_read_bytes_);
  out->last_batch_write_bytes = Load(last_write_bytes_);
}

}  // namespace hipfile::core
