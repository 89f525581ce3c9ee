// SPDX-License-Identifier: MIT
#include "core/batch/batch_manager.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "core/batch/batch_rules.h"
#include "core/config.h"
#include "core/params.h"
#include "util/log.h"

namespace hipfile::core {

BatchManager::BatchManager(Driver& driver) : driver_(driver), runs_(driver.io_pool(), "batch") {
  close_hook_ = driver_.AddCloseHook([this](uint64_t closes) { DropBatches(closes); });
}

BatchManager::~BatchManager() {
  driver_.RemoveCloseHook(close_hook_);
  std::map<uintptr_t, Batch> batches;
  {
    MutexLock lock(mu_);
    batches.swap(batches_);
  }
  for (auto& [id, batch] : batches) batch.context->Close();
  // runs_ drains next: the runs left are of canceled entries, no-ops.
}

BatchManager& BatchManager::Global() {
  // Leaked like the Driver it uses: exit with entries in flight must not join workers that are
  // still inside the engine.
  static BatchManager* manager = new BatchManager(Driver::Global());
  return *manager;
}

Result<hipFileBatchHandle_t> BatchManager::SetUp(unsigned max_nr) {
  Result<hipFileBatchHandle_t> made = MakeBatch(max_nr);
  if (driver_.stats().enabled()) driver_.stats().batch().RecordSetUp(made.ok());
  return made;
}

Result<hipFileBatchHandle_t> BatchManager::MakeBatch(unsigned max_nr) {
  size_t limit = kMaxBatchIoCount;
  const Result<size_t> param = driver_.GetParameterSizeT(hipFileParamPropertiesIOBatchsize);
  if (param.ok()) limit = std::min(limit, *param);
  if (max_nr == 0 || max_nr > limit) {
    HF_LOG_LIMITED(kWarn, "hipFileBatchIOSetUp: max_nr %u is outside 1..%zu", max_nr, limit);
    return Status::Op(hipFileInvalidValue);
  }
  MutexLock lock(mu_);
  const uintptr_t id = next_handle_++;
  // The count is read under mu_, which DropBatches takes after the close counted: a batch either
  // saw that close or is dropped by it.
  batches_.emplace(id,
                   Batch{std::make_shared<BatchContext>(max_nr, &pending_), driver_.LastCloses()});
  return reinterpret_cast<hipFileBatchHandle_t>(id);
}

Status BatchManager::Submit(hipFileBatchHandle_t batch, unsigned nr,
                            const hipFileIOParams_t* params) {
  const auto start = std::chrono::steady_clock::now();
  const Status submitted = Enqueue(batch, nr, params, start);
  Stats& stats = driver_.stats();
  if (stats.enabled()) {
    uint64_t read_bytes = 0, write_bytes = 0;
    for (unsigned i = 0; submitted.ok() && i < nr; ++i) {
      (params[i].opcode == hipFileBatchWrite ? write_bytes : read_bytes) += params[i].u.batch.size;
    }
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    stats.batch().RecordSubmit(submitted.ok(), static_cast<uint64_t>(micros), nr, read_bytes,
                               write_bytes);
  }
  return submitted;
}

Status BatchManager::Enqueue(hipFileBatchHandle_t batch, unsigned nr,
                             const hipFileIOParams_t* params,
                             std::chrono::steady_clock::time_point now) {
  const std::shared_ptr<BatchContext> context = Find(batch);
  if (context == nullptr || nr == 0 || params == nullptr) {
    HF_LOG_LIMITED(kWarn, "hipFileBatchIOSubmit: %s",
                   context == nullptr ? "not a batch handle (or dropped by a driver close)"
                   : nr == 0          ? "nr is 0"
                                      : "iocbp is NULL");
    return Status::Op(hipFileInvalidValue);
  }
  if (driver_.UseCount() == 0) {
    HF_LOG_LIMITED(kWarn, "hipFileBatchIOSubmit: the driver is not open");
    return Status::Op(hipFileDriverNotInitialized);
  }
  if (nr > context->capacity()) {
    HF_LOG_LIMITED(kWarn, "hipFileBatchIOSubmit: nr %u past the batch's capacity (max_nr %u)", nr,
                   context->capacity());
    return Status::Op(hipFileBatchFull);
  }

  // The threads first: when they are refused (a process limit), nothing is accepted.
  HF_RETURN_IF_ERROR(runs_.pool().Start());
  Result<std::vector<BatchTransfer>> entries = ValidateBatchEntries(driver_, params, nr);
  if (!entries.ok()) return entries.status();
  // Each device the entries' device memory is on, before any of them runs (its copies may load
  // the device's copy kernels): Driver::PrepareDevice. One look per run of entries on a device.
  int prepared_device = -1;
  for (BatchTransfer& t : *entries) {
    t.submitted = now;
    if (t.io.buffer.type == hipMemoryTypeDevice && t.io.buffer.device != prepared_device) {
      prepared_device = t.io.buffer.device;
      driver_.PrepareDevice(prepared_device);
    }
  }
  if (const Result<uint64_t> accepted = context->Accept(std::move(*entries)); !accepted.ok()) {
    if (accepted.status().IsOp(hipFileBatchFull)) {
      HF_LOG_LIMITED(kWarn,
                     "hipFileBatchIOSubmit: nr %u past what is free of the batch's capacity "
                     "(max_nr %u, counting entries not yet reaped by hipFileBatchIOGetStatus)",
                     nr, context->capacity());
    }
    return accepted.status();
  }
  BatchContext::GroupLimits limits;
  limits.max_entries = kMaxGroupEntries;
  limits.max_bytes = engine::SyncEngine::kMaxGroupedBytes;
  limits.spread = std::max<size_t>(runs_.pool().size(), 1);
  // One run per group the Pending entries make, counting the runs already queued, not one per
  // entry or per submission: a run with nothing left to claim still costs a worker's wake-up,
  // and at hundreds of thousands of entries a second the wake-ups cost more than the transfers
  // (H200); and a batch that submits often would get more than its share of the workers (one
  // worker serving 16 batches had a p99 of 40-70 ms that way). Each run queues what its batch
  // still needs, so no entry waits for a later Submit.
  Schedule(context, limits);
  return Status::Ok();
}

void BatchManager::Schedule(const std::shared_ptr<BatchContext>& context,
                            const BatchContext::GroupLimits& limits) {
  // runs_ outlives its tasks: draining it runs every queued task (and those they queue). A run
  // that cannot be queued (no thread, no memory for the task) runs here: RunsToQueue counted it,
  // and the entries it stands for have no other run coming.
  for (size_t runs = context->RunsToQueue(limits); runs > 0; --runs) {
    runs_.PostOrRun([this, context, limits] {
      context->RunNext(limits, [this](const std::vector<const BatchTransfer*>& transfers,
                                      Result<size_t>* results) { RunEntries(transfers, results); });
      Schedule(context, limits);
    });
  }
}

void BatchManager::RunEntries(const std::vector<const BatchTransfer*>& transfers,
                              Result<size_t>* results) {
  std::vector<IoService::IoCall> calls(transfers.size());
  for (size_t i = 0; i < transfers.size(); ++i) {
    calls[i].io = &transfers[i]->io;
    calls[i].size = transfers[i]->size;
    calls[i].file_offset = transfers[i]->file_offset;
    calls[i].buffer_offset = transfers[i]->buffer_offset;
  }
  Stats& stats = driver_.stats();
  if (!stats.enabled()) {
    driver_.io_service().ExecuteMany(calls.data(), calls.size(), results);
    return;
  }
  std::vector<engine::PathBytes> paths(transfers.size());
  driver_.io_service().ExecuteMany(calls.data(), calls.size(), results, paths.data());
  const auto end = std::chrono::steady_clock::now();
  BatchRunTally run;
  for (size_t i = 0; i < transfers.size(); ++i) {
    run.completion_us += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(end - transfers[i]->submitted)
            .count());
    if (!results[i].ok()) {
      ++run.failed;
      continue;
    }
    ++run.ok;
    (transfers[i]->io.direction == IoDirection::kWrite ? run.write_bytes : run.read_bytes) +=
        *results[i];
    const engine::PathBytes& p = paths[i];
    const uint64_t ring = p.bytes[static_cast<size_t>(engine::IoPath::kIoUring)];
    if (ring > 0) ++run.ring;
    if (ring > 0 || p.bytes[static_cast<size_t>(engine::IoPath::kBuffered)] > 0) ++run.compat;
  }
  stats.batch().RecordRun(run);
}

Status BatchManager::GetStatus(hipFileBatchHandle_t batch, unsigned min_nr, unsigned* nr,
                               hipFileIOEvents_t* events, const struct timespec* timeout) {
  const std::shared_ptr<BatchContext> context = Find(batch);
  if (context == nullptr || events == nullptr || nr == nullptr || *nr == 0 || min_nr > *nr) {
    if (context == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileBatchIOGetStatus: not a batch handle (or dropped by a close)");
    } else if (events == nullptr || nr == nullptr) {
      HF_LOG_LIMITED(kWarn, "hipFileBatchIOGetStatus: %s is NULL",
                     events == nullptr ? "iocbp" : "nr");
    } else if (*nr == 0) {
      HF_LOG_LIMITED(kWarn, "hipFileBatchIOGetStatus: *nr is 0");
    } else {
      HF_LOG_LIMITED(kWarn, "hipFileBatchIOGetStatus: min_nr %u past *nr (%u)", min_nr, *nr);
    }
    return Status::Op(hipFileInvalidValue);
  }
  HF_ASSIGN_OR_RETURN(const BatchDeadline deadline, BatchDeadlineFrom(timeout));
  *nr = static_cast<unsigned>(context->Reap(min_nr, *nr, deadline, events));
  return Status::Ok();
}

Status BatchManager::Cancel(hipFileBatchHandle_t batch) {
  const std::shared_ptr<BatchContext> context = Find(batch);
  if (context == nullptr) {
    HF_LOG_LIMITED(kWarn, "hipFileBatchIOCancel: not a batch handle (or dropped by a close)");
    if (driver_.stats().enabled()) driver_.stats().batch().RecordCancel(false);
    return Status::Op(hipFileInvalidValue);
  }
  context->Cancel();
  if (driver_.stats().enabled()) driver_.stats().batch().RecordCancel(true);
  return Status::Ok();
}

void BatchManager::Destroy(hipFileBatchHandle_t batch) {
  std::shared_ptr<BatchContext> context;
  {
    MutexLock lock(mu_);
    const auto it = batches_.find(reinterpret_cast<uintptr_t>(batch));
    if (it == batches_.end() || it->second.closes != driver_.LastCloses()) {
      // Dropped by a close, whose hook drops it if it has not yet.
      HF_LOG(kDebug, "hipFileBatchIODestroy(%p): not a batch (or dropped by a close); ignored",
             batch);
      if (driver_.stats().enabled()) driver_.stats().batch().RecordDestroy(false);
      return;
    }
    context = std::move(it->second.context);
    batches_.erase(it);
  }
  // Workers still holding Runs for it keep the context alive until those find nothing to do.
  context->Close();
  if (driver_.stats().enabled()) driver_.stats().batch().RecordDestroy(true);
}

size_t BatchManager::BatchCount() const {
  MutexLock lock(mu_);
  return batches_.size();
}

std::shared_ptr<BatchContext> BatchManager::Find(hipFileBatchHandle_t batch) const {
  MutexLock lock(mu_);
  const auto it = batches_.find(reinterpret_cast<uintptr_t>(batch));
  if (it == batches_.end() || it->second.closes != driver_.LastCloses()) return nullptr;
  return it->second.context;
}

void BatchManager::DropBatches(uint64_t closes) {
  std::vector<std::shared_ptr<BatchContext>> dropped;
  {
    MutexLock lock(mu_);
    for (auto it = batches_.begin(); it != batches_.end();) {
      if (it->second.closes < closes) {
        dropped.push_back(std::move(it->second.context));
        it = batches_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Every dropped batch's queued entries are canceled first; then the close waits for the entries
  // running (at most a group per I/O thread), so that once it returns the library touches none
  // of their buffers: a program frees its memory after the close (the fuzzer's use-after-free,
  // found when the close returned with entries still running).
  for (const std::shared_ptr<BatchContext>& context : dropped) context->Drop();
  for (const std::shared_ptr<BatchContext>& context : dropped) context->WaitForRunning();
  if (!dropped.empty()) {
    HF_LOG(kInfo, "driver closed: %zu batch(es) dropped with it", dropped.size());
  }
}

}  // namespace hipfile::core
