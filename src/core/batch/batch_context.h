// SPDX-License-Identifier: MIT
// BatchContext: one batch of hipFileBatchIO* (spec §1.9, §2.5) - the entries accepted and not yet
// finished, the terminal events not yet returned, and the capacity that bounds both.
//
// An entry is Pending from Accept until a worker claims it, Running while its transfer runs,
// then terminal (Complete or Failed). Cancel makes every Pending entry Canceled at once and waits
// for the Running ones. Terminal events queue in completion order until Reap returns them; an
// entry occupies capacity from Accept until its event is returned.
//
// The context does not move bytes itself: whoever accepts entries hands RunNext (or Run(id)) to
// workers, with a Runner that does the transfers. A run claims one entry together with other
// Pending small entries of the batch (GroupLimits) and hands them to the Runner at once, so small
// transfers share one copy (engine/grouped_io.h); a Run(id) whose entry was claimed by another
// run or canceled meanwhile does nothing. Thread-safe.
#pragma once

#include <hipfile.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "core/io_result.h"
#include "core/io_service.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {

// One accepted entry, holding the references its transfer needs (the file, a registered buffer
// and the engine stay alive until it is destroyed).
struct BatchTransfer {
  void* cookie = nullptr;
  PreparedIo io;
  size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  std::chrono::steady_clock::time_point submitted;  // statistics: completion latency
};

// When a wait ends: nullopt waits for as long as it takes; a time in the past polls.
using BatchDeadline = std::optional<std::chrono::steady_clock::time_point>;

class BatchContext {
 public:
  // Runs claimed transfers, writing results[i] for transfers[i]. The transfers are destroyed
  // before their events become visible, so whatever they hold (file, buffer references) is
  // released by the time the caller sees them done.
  using Runner = std::function<void(const std::vector<const BatchTransfer*>& transfers,
                                    Result<size_t>* results)>;

  // How many entries one Run claims: its own and more Pending entries of at most max_bytes each
  // (an entry larger than that runs alone), up to max_entries, and no more than a share
  // ceil(pending / spread) of what is pending, so `spread` workers all get work. `pending` is the
  // larger of this batch's Pending entries and the shared count given to the constructor (every
  // batch's): with many batches busy, each worker takes full groups even from a batch that alone
  // would be spread thin.
  struct GroupLimits {
    size_t max_entries = 1;
    size_t max_bytes = 0;
    size_t spread = 1;
  };

  // pending_everywhere, when given, counts Pending entries over all batches sharing it: this one
  // adds what it accepts and subtracts what it claims or cancels. It must outlive the context.
  explicit BatchContext(unsigned capacity, std::atomic<size_t>* pending_everywhere = nullptr);
  BatchContext(const BatchContext&) = delete;
  BatchContext& operator=(const BatchContext&) = delete;

  unsigned capacity() const { return capacity_; }

  // Accepts all entries or none: hipFileBatchFull when they do not fit in what is left of the
  // capacity, hipFileInvalidValue once closed. Returns the id of the first; the others follow
  // consecutively.
  Result<uint64_t> Accept(std::vector<BatchTransfer> entries);

  // If entry `id` is still Pending: claims it and, when it is small, more small Pending entries
  // after it (limits), runs them through `run` and queues their events.
  void Run(uint64_t id, const GroupLimits& limits, const Runner& run);
  // The same from the oldest Pending entry, if any. Returns whether Pending entries are left
  // once the claimed ones finished, so a worker pool can hand one run per group rather than per
  // entry: each run that leaves work schedules the next.
  bool RunNext(const GroupLimits& limits, const Runner& run);
  // How many small entries a run would claim now: ceil(pending / spread), within 1..max_entries.
  size_t GroupShare(const GroupLimits& limits) const;
  // How many more RunNext calls the caller should queue now: enough for the Pending entries in
  // groups of GroupShare, less those queued already (counted from here until a RunNext starts).
  // A pool that queues what this says after each Accept and after each RunNext keeps every
  // batch's queued runs in proportion to its Pending entries - so batches share the workers
  // round-robin instead of by how often they submit - and a Pending entry always has a run
  // queued or running that will look at it again.
  size_t RunsToQueue(const GroupLimits& limits);

  // Waits until min(min_nr, outstanding) events are ready or the deadline passes, then moves up to
  // max_events of them (oldest first) to out and returns how many.
  size_t Reap(unsigned min_nr, unsigned max_events, const BatchDeadline& deadline,
              hipFileIOEvents_t* out);

  // Pending entries become Canceled; then waits until no entry is Running.
  void Cancel();
  // Accept refuses from now on; then Cancel.
  void Close();
  // Close without the wait: for a batch whose handle the driver's last close dropped. The close
  // drops every such batch first, so that no batch's queued entries wait behind another's running
  // ones, then waits for each one's running entries (WaitForRunning). Their events are dropped
  // with the context unless a Reap already waiting takes them.
  void Drop();
  // Returns once no entry is running.
  void WaitForRunning();

  // Entries accepted whose event was not returned yet.
  size_t Outstanding() const;

 private:
  // An accepted entry's place. Slots are reused; `id` tells a reused slot from its former entry.
  enum class SlotState : uint8_t { kFree, kPending, kRunning };
  struct Slot {
    BatchTransfer transfer;
    uint64_t id = 0;
    SlotState state = SlotState::kFree;
  };
  // An entry in acceptance order. Records whose slot moved on (claimed, canceled, reused) are
  // stale and skipped; the front is kept free of them.
  struct Queued {
    uint32_t slot;
    uint64_t id;
  };

  struct Claimed {
    std::vector<uint32_t> slots;
    std::vector<BatchTransfer> transfers;
  };

  bool IsPendingLocked(const Queued& q) const REQUIRES(mu_) {
    const Slot& slot = slots_[q.slot];
    return slot.id == q.id && slot.state == SlotState::kPending;
  }
  size_t GroupShareLocked(const GroupLimits& limits) const REQUIRES(mu_);
  // Claims the entry of queue_[at] (Pending) and, when small, more small Pending entries after
  // it.
  void ClaimLocked(size_t at, const GroupLimits& limits, Claimed* claimed) REQUIRES(mu_);
  // Runs the claimed entries and queues their events; returns whether Pending entries are left.
  bool Execute(Claimed& claimed, const Runner& run) EXCLUDES(mu_);
  // Turns every Pending entry into a Canceled event; their transfers go to `dropped`, for the
  // caller to destroy outside the lock (they may close descriptors).
  void CancelPendingLocked(std::vector<BatchTransfer>* dropped) REQUIRES(mu_);
  void PushEventLocked(void* cookie, hipFileStatus_t status, size_t ret) REQUIRES(mu_);
  void FreeSlotLocked(uint32_t slot) REQUIRES(mu_);
  void AddPending(size_t n, bool add);

  const unsigned capacity_;
  std::atomic<size_t>* const pending_everywhere_;  // may be null
  mutable Mutex mu_;
  CondVar changed_;  // an event was queued, or a Running entry finished
  bool closed_ GUARDED_BY(mu_) = false;
  uint64_t next_id_ GUARDED_BY(mu_) = 1;
  std::vector<Slot> slots_ GUARDED_BY(mu_);     // capacity_ of them
  std::vector<uint32_t> free_ GUARDED_BY(mu_);  // free slots
  std::deque<Queued> queue_ GUARDED_BY(mu_);    // Pending entries, oldest first
  size_t live_ GUARDED_BY(mu_) = 0;             // Pending and Running entries
  size_t running_ GUARDED_BY(mu_) = 0;
  size_t queued_runs_ GUARDED_BY(mu_) = 0;  // see RunsToQueue
  // Terminal events, oldest first, a ring of capacity_ (made with the context, so finishing an
  // entry never allocates).
  std::vector<hipFileIOEvents_t> done_ GUARDED_BY(mu_);
  size_t done_head_ GUARDED_BY(mu_) = 0;
  size_t done_count_ GUARDED_BY(mu_) = 0;
};

// hipFileIOEvents_t::ret of a finished transfer: EncodeResult (core/io_result.h) cast to size_t.
inline size_t EventRet(const Result<size_t>& moved) {
  return static_cast<size_t>(EncodeResult(moved));
}

}  // namespace hipfile::core
