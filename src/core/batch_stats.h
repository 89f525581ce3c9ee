// SPDX-License-Identifier: MIT
// BatchStats: hipFileStatsLevel1_t's batch fields, recorded by the batch API (core/batch/) into
// BatchCounters, which live inside StatsCounters (so in the region hipfile-stats reads, too).
// Relaxed atomics, as the rest; Stats gates them by its level (Stats::enabled).
//
// What each field counts here (docs/stats.md, "Batch fields"):
//   batch_setup/cancel/destroy_ops     calls, ok or refused
//   batch_submit_ops, total_submit     hipFileBatchIOSubmit calls, ok or refused
//   batch_enqueued_ops                 entries accepted by a submission
//   batch_processed_ops                entries run, ok (bytes moved or end of file) or failed
//   batch_complete_ops                 the same, as their events become ready
//   batch_posix_*_ops                  processed entries that took the compatibility path
//                                      (buffered or io_uring staging) for some bytes
//   batch_iouring_submit_ops           processed entries whose system call went by io_uring
//   batch_read/write_bytes             bytes the processed entries moved
//   batch_submit_lat_*                 time inside hipFileBatchIOSubmit
//   batch_completion_lat_*             from the entry's submission to its completion
//   last_batch_read/write_bytes        bytes the last submission asked for
// nvfs, p2p, aio and mixed submissions have no counterpart here and stay 0, as do the per-second
// rates (there is no window to divide by).
#pragma once

#include <hipfile.h>

#include <atomic>
#include <cstdint>

namespace hipfile::core {

// What one run of entries did, added at once.
struct BatchRunTally {
  uint64_t ok = 0, failed = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t compat = 0, ring = 0;  // entries on the compatibility path, entries by io_uring
  uint64_t completion_us = 0;     // sum over the entries
};

// Plain lock-free atomics, like the rest of StatsCounters: a zero-filled region is all zeros.
struct BatchCounters {
  using Counter = std::atomic<uint64_t>;
  Counter setup_ok, setup_err, cancel_ok, cancel_err;
  Counter destroy_ok, destroy_err, submit_ok, submit_err;
  Counter enqueued, processed_ok, processed_err, compat, ring;
  Counter read_bytes, write_bytes, submit_us, completion_us;
  Counter last_read_bytes, last_write_bytes;
};

// A view that records into one BatchCounters.
class BatchStats {
 public:
  explicit BatchStats(BatchCounters& c) : c_(c) {}
  void RecordSetUp(bool ok) { Add(ok ? c_.setup_ok : c_.setup_err, 1); }
  void RecordCancel(bool ok) { Add(ok ? c_.cancel_ok : c_.cancel_err, 1); }
  void RecordDestroy(bool ok) { Add(ok ? c_.destroy_ok : c_.destroy_err, 1); }
  // A submission of `entries` asking for read_bytes and write_bytes; refused when !ok.
  void RecordSubmit(bool ok, uint64_t micros, uint64_t entries, uint64_t read_bytes,
                    uint64_t write_bytes);
  void RecordRun(const BatchRunTally& run);

 private:
  static void Add(BatchCounters::Counter& c, uint64_t n) {
    if (n != 0) c.fetch_add(n, std::memory_order_relaxed);
  }
  BatchCounters& c_;
};

// The batch fields of *out from the counters (the rest of *out is left as it is).
void FillBatchL1(const BatchCounters& c, hipFileStatsLevel1_t* out);

}  // namespace hipfile::core
