// SPDX-License-Identifier: MIT
// BatchManager: the batches of hipFileBatchIO* (spec §1.9) and the workers that run their
// entries; docs/batch.md has the semantics and the design.
//
// Handles are opaque ids, never reused, so a handle destroyed (or never made) is refused as
// unknown rather than mistaken for a newer batch. A batch goes with the driver's last close, as
// hipFile drops its batches with the driver: its handle is refused as unknown from then on, also
// after the driver opens again, its Pending entries are canceled and the close waits for its
// Running ones, so that the program may free their memory once it returns. A batch set up while
// the driver is closed goes
// with the next last close. Entries run on the Driver's I/O threads (Driver::io_pool, as
// hf-batch-N) through IoService::ExecuteMany, i.e. the same engine and rules as
// hipFileRead/hipFileWrite; a worker takes up to kMaxGroupEntries small entries of a batch at once,
// which share one staging buffer and one wait for their GPU copies (engine/grouped_io.h).
// Thread-safe: any number of threads may use any batches at once.
#pragma once

#include <hipfile.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "core/batch/batch_context.h"
#include "core/driver.h"
#include "engine/worker_pool.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {

class BatchManager {
 public:
  // driver must outlive the manager. Entries run on the driver's I/O threads, as many at once as
  // it has (hipFileParamExecutionMaxIOThreads).
  explicit BatchManager(Driver& driver);
  // Cancels every batch and waits for the entries running.
  ~BatchManager();
  BatchManager(const BatchManager&) = delete;
  BatchManager& operator=(const BatchManager&) = delete;

  // The process's manager, over Driver::Global(); never destroyed.
  static BatchManager& Global();

  // hipFileInvalidValue unless 1 <= max_nr <= min(kMaxBatchIoCount, PropertiesIOBatchsize).
  // The driver need not be open.
  Result<hipFileBatchHandle_t> SetUp(unsigned max_nr);
  // hipFileInvalidValue for an unknown batch, nr 0 or params null; hipFileDriverNotInitialized
  // while the driver is closed; the first entry's error from ValidateBatchEntry; hipFileBatchFull
  // when nr entries do not fit in the capacity left. On any error no entry was accepted.
  Status Submit(hipFileBatchHandle_t batch, unsigned nr, const hipFileIOParams_t* params);
  // hipFileInvalidValue for an unknown batch, events or nr null, *nr 0, min_nr > *nr, or a
  // timeout BatchDeadlineFrom refuses. Waits (see BatchContext::Reap), writes up to *nr events
  // and their count to *nr.
  Status GetStatus(hipFileBatchHandle_t batch, unsigned min_nr, unsigned* nr,
                   hipFileIOEvents_t* events, const struct timespec* timeout);
  // hipFileInvalidValue for an unknown batch; else BatchContext::Cancel.
  Status Cancel(hipFileBatchHandle_t batch);
  // Forgets the batch, cancels it and waits for its running entries. Unknown handles are ignored.
  void Destroy(hipFileBatchHandle_t batch);

  // The most entries one worker runs together. 16 amortizes the copy wait (~20 µs) over entries
  // that each cost ~3 µs to read and queue, while 128 in flight still spread over 8 workers.
  static constexpr size_t kMaxGroupEntries = 16;

  // Batches set up and neither destroyed nor dropped by a close.
  size_t BatchCount() const;

 private:
  // SetUp and Submit without the statistics they record.
  Result<hipFileBatchHandle_t> MakeBatch(unsigned max_nr);
  Status Enqueue(hipFileBatchHandle_t batch, unsigned nr, const hipFileIOParams_t* params,
                 std::chrono::steady_clock::time_point now);
  // The batch, or nullptr when it is unknown, destroyed or dropped by a close (also one whose
  // close hook has not run yet).
  std::shared_ptr<BatchContext> Find(hipFileBatchHandle_t batch) const EXCLUDES(mu_);
  // The close hook: drops every batch set up before the close that made LastCloses() `closes`.
  void DropBatches(uint64_t closes) EXCLUDES(mu_);
  // Queues the RunNext calls the batch asks for (BatchContext::RunsToQueue); each queues what
  // the batch asks for once it has run.
  void Schedule(const std::shared_ptr<BatchContext>& context,
                const BatchContext::GroupLimits& limits);
  // What a worker's run does with the entries it claimed: IoService::ExecuteMany, the rules and
  // engine of hipFileRead/hipFileWrite for each.
  void RunEntries(const std::vector<const BatchTransfer*>& transfers, Result<size_t>* results);

  Driver& driver_;

  std::atomic<size_t> pending_{0};  // Pending entries of all batches (BatchContext's grouping)
  uint64_t close_hook_ = 0;         // Driver::AddCloseHook's id
  struct Batch {
    std::shared_ptr<BatchContext> context;
    uint64_t closes = 0;  // Driver::LastCloses() at set-up: the batch goes with the next one
  };
  mutable Mutex mu_;
  uintptr_t next_handle_ GUARDED_BY(mu_) = 1;
  std::map<uintptr_t, Batch> batches_ GUARDED_BY(mu_);

  // Last: drained first, while what its runs use still exists.
  engine::TaskGroup runs_;
};

}  // namespace hipfile::core
