// SPDX-License-Identifier: MIT
// BatchStats: hipFileStatsLevel1_t's batch fields, filled by the batch API (core/batch/).
// Relaxed atomics, as Stats; Stats owns one and gates it by its level.
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

class BatchStats {
 public:
  void RecordSetUp(bool ok) { Add(ok ? setup_ok_ : setup_err_, 1); }
  void RecordCancel(bool ok) { Add(ok ? cancel_ok_ : cancel_err_, 1); }
  void RecordDestroy(bool ok) { Add(ok ? destroy_ok_ : destroy_err_, 1); }
  // A submission of `entries` asking for read_bytes and write_bytes; refused when !ok.
  void RecordSubmit(bool ok, uint64_t micros, uint64_t entries, uint64_t read_bytes,
                    uint64_t write_bytes);
  void RecordRun(const BatchRunTally& run);

  void FillL1(hipFileStatsLevel1_t* out) const;

 private:
  using Counter = std::atomic<uint64_t>;
  static void Add(Counter& c, uint64_t n) {
    if (n != 0) c.fetch_add(n, std::memory_order_relaxed);
  }
  static uint64_t Load(const Counter& c) { return c.load(std::memory_order_relaxed); }

  Counter setup_ok_{0}, setup_err_{0}, cancel_ok_{0}, cancel_err_{0};
  Counter destroy_ok_{0}, destroy_err_{0}, submit_ok_{0}, submit_err_{0};
  Counter enqueued_{0}, processed_ok_{0}, processed_err_{0}, compat_{0}, ring_{0};
  Counter read_bytes_{0}, write_bytes_{0}, submit_us_{0}, completion_us_{0};
  Counter last_read_bytes_{0}, last_write_bytes_{0};
};

}  // namespace hipfile::core
