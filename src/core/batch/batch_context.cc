// SPDX-License-Identifier: MIT
#include "core/batch/batch_context.h"

#include <algorithm>
#include <utility>

#include "util/exception_status.h"

namespace hipfile::core {

BatchContext::BatchContext(unsigned capacity, std::atomic<size_t>* pending_everywhere)
    : capacity_(capacity),
      pending_everywhere_(pending_everywhere),
      slots_(capacity),
      done_(capacity) {
  free_.reserve(capacity);
  for (uint32_t i = capacity; i > 0; --i) free_.push_back(i - 1);
}

Result<uint64_t> BatchContext::Accept(std::vector<BatchTransfer> entries) {
  MutexLock lock(mu_);
  if (closed_) return Status::Op(hipFileInvalidValue);
  const size_t outstanding = live_ + done_count_;
  if (entries.size() > capacity_ - outstanding) return Status::Op(hipFileBatchFull);
  const uint64_t first = next_id_;
  // Fits: live_ + done_count_ <= capacity_ and only live entries hold slots. The queue's records
  // are the one allocation: made first, so running out of memory accepts nothing.
  const size_t queued_before = queue_.size();
  try {
    for (size_t i = 0; i < entries.size(); ++i) {
      queue_.push_back({free_[free_.size() - 1 - i], first + i});
    }
  } catch (...) {
    queue_.resize(queued_before);
    throw;
  }
  for (BatchTransfer& entry : entries) {
    const uint32_t index = free_.back();
    free_.pop_back();
    Slot& slot = slots_[index];
    slot.transfer = std::move(entry);
    slot.id = next_id_++;
    slot.state = SlotState::kPending;
  }
  live_ += entries.size();
  AddPending(entries.size(), true);
  return first;
}

size_t BatchContext::GroupShareLocked(const GroupLimits& limits) const {
  size_t pending = live_ - running_;
  if (pending_everywhere_ != nullptr) {
    pending = std::max(pending, pending_everywhere_->load(std::memory_order_relaxed));
  }
  const size_t spread = std::max<size_t>(limits.spread, 1);
  return std::clamp<size_t>((pending + spread - 1) / spread, 1,
                            std::max<size_t>(limits.max_entries, 1));
}

size_t BatchContext::GroupShare(const GroupLimits& limits) const {
  MutexLock lock(mu_);
  return GroupShareLocked(limits);
}

void BatchContext::ClaimLocked(size_t at, const GroupLimits& limits, Claimed* claimed) {
  const size_t want =
      slots_[queue_[at].slot].transfer.size <= limits.max_bytes ? GroupShareLocked(limits) : 1;
  claimed->slots.reserve(want);
  claimed->transfers.reserve(want);
  for (size_t k = at; k < queue_.size() && claimed->slots.size() < want; ++k) {
    if (!IsPendingLocked(queue_[k])) continue;
    Slot& slot = slots_[queue_[k].slot];
    if (!claimed->slots.empty() && slot.transfer.size > limits.max_bytes) continue;
    slot.state = SlotState::kRunning;
    claimed->slots.push_back(queue_[k].slot);
    claimed->transfers.push_back(std::move(slot.transfer));
  }
  while (!queue_.empty() && !IsPendingLocked(queue_.front())) queue_.pop_front();
  running_ += claimed->slots.size();
  AddPending(claimed->slots.size(), false);
}

void BatchContext::Run(uint64_t id, const GroupLimits& limits, const Runner& run) {
  Claimed claimed;
  {
    MutexLock lock(mu_);
    // A loop rather than std::find_if: the analysis would check a predicate lambda without mu_.
    size_t at = 0;
    while (at < queue_.size() && !(queue_[at].id == id && IsPendingLocked(queue_[at]))) ++at;
    if (at == queue_.size()) return;  // canceled, or claimed by another Run
    ClaimLocked(at, limits, &claimed);
  }
  Execute(claimed, run);
}

size_t BatchContext::RunsToQueue(const GroupLimits& limits) {
  MutexLock lock(mu_);
  const size_t pending = live_ - running_;
  if (pending == 0) return 0;
  const size_t share = GroupShareLocked(limits);
  const size_t wanted = (pending + share - 1) / share;
  const size_t more = wanted > queued_runs_ ? wanted - queued_runs_ : 0;
  queued_runs_ += more;
  return more;
}

bool BatchContext::RunNext(const GroupLimits& limits, const Runner& run) {
  Claimed claimed;
  {
    MutexLock lock(mu_);
    if (queued_runs_ > 0) --queued_runs_;  // this is one of them, started
    if (queue_.empty()) return false;      // its front, when there is one, is Pending
    ClaimLocked(0, limits, &claimed);
  }
  return Execute(claimed, run);
}

bool BatchContext::Execute(Claimed& claimed, const Runner& run) {
  const size_t n = claimed.slots.size();
  std::vector<Result<size_t>> results;
  // What the run throws (out of memory) fails every claimed entry; their events need no memory.
  Status thrown = CatchToStatus("batch I/O", [&] {
    std::vector<const BatchTransfer*> transfers(n);
    for (size_t i = 0; i < n; ++i) transfers[i] = &claimed.transfers[i];
    results.assign(n, size_t{0});
    run(transfers, results.data());
    return Status::Ok();
  });
  if (!thrown.ok()) results.clear();
  for (BatchTransfer& transfer : claimed.transfers) {
    // Releases the references before anyone can see the entries finished; the cookie stays.
    void* const cookie = transfer.cookie;
    transfer = BatchTransfer();
    transfer.cookie = cookie;
  }
  bool pending_left = false;
  {
    MutexLock lock(mu_);
    for (size_t i = 0; i < n; ++i) {
      const Result<size_t> moved = thrown.ok() ? results[i] : Result<size_t>(thrown);
      PushEventLocked(claimed.transfers[i].cookie, moved.ok() ? hipFileComplete : hipFileFailed,
                      EventRet(moved));
      FreeSlotLocked(claimed.slots[i]);
    }
    running_ -= n;
    pending_left = !queue_.empty();
  }
  changed_.NotifyAll();
  return pending_left;
}

size_t BatchContext::Reap(unsigned min_nr, unsigned max_events, const BatchDeadline& deadline,
                          hipFileIOEvents_t* out) {
  MutexLock lock(mu_);
  // min_nr is capped at what is outstanding, re-read at every wake-up: entries submitted or
  // events reaped by other threads meanwhile count.
  const auto ready = [&]() REQUIRES(mu_) {
    const size_t outstanding = live_ + done_count_;
    return done_count_ >= std::min<size_t>(min_nr, outstanding);
  };
  if (deadline.has_value()) {
    while (!ready()) {
      if (!changed_.WaitUntil(mu_, *deadline)) break;  // the deadline passed
    }
  } else {
    while (!ready()) changed_.Wait(mu_);
  }
  const size_t n = std::min<size_t>(max_events, done_count_);
  for (size_t i = 0; i < n; ++i) out[i] = done_[(done_head_ + i) % capacity_];
  done_head_ = (done_head_ + n) % capacity_;
  done_count_ -= n;
  return n;
}

void BatchContext::CancelPendingLocked(std::vector<BatchTransfer>* dropped) {
  size_t canceled = 0;
  for (const Queued& q : queue_) {
    if (!IsPendingLocked(q)) continue;
    Slot& slot = slots_[q.slot];
    PushEventLocked(slot.transfer.cookie, hipFileCanceled, 0);
    try {
      dropped->push_back(std::move(slot.transfer));
    } catch (...) {
      // Out of memory: FreeSlotLocked releases this one here, under the lock.
    }
    FreeSlotLocked(q.slot);
    ++canceled;
  }
  queue_.clear();
  AddPending(canceled, false);
}

void BatchContext::Cancel() {
  std::vector<BatchTransfer> dropped;  // destroyed outside the lock
  {
    MutexLock lock(mu_);
    CancelPendingLocked(&dropped);
    changed_.NotifyAll();
    while (running_ != 0) changed_.Wait(mu_);
  }
}

void BatchContext::Close() {
  {
    MutexLock lock(mu_);
    closed_ = true;
  }
  Cancel();
}

void BatchContext::Drop() {
  std::vector<BatchTransfer> dropped;  // destroyed outside the lock
  {
    MutexLock lock(mu_);
    closed_ = true;
    CancelPendingLocked(&dropped);
  }
  changed_.NotifyAll();
}

void BatchContext::WaitForRunning() {
  MutexLock lock(mu_);
  while (running_ != 0) changed_.Wait(mu_);
}

size_t BatchContext::Outstanding() const {
  MutexLock lock(mu_);
  return live_ + done_count_;
}

void BatchContext::FreeSlotLocked(uint32_t slot) {
  slots_[slot].state = SlotState::kFree;
  slots_[slot].transfer = BatchTransfer();
  free_.push_back(slot);
  --live_;
}

void BatchContext::AddPending(size_t n, bool add) {
  if (pending_everywhere_ == nullptr || n == 0) return;
  if (add) {
    pending_everywhere_->fetch_add(n, std::memory_order_relaxed);
  } else {
    pending_everywhere_->fetch_sub(n, std::memory_order_relaxed);
  }
}

void BatchContext::PushEventLocked(void* cookie, hipFileStatus_t status, size_t ret) {
  hipFileIOEvents_t event;
  event.cookie = cookie;
  event.status = status;
  event.ret = ret;
  // Never full: every event belongs to an entry that holds capacity until it is returned.
  done_[(done_head_ + done_count_) % capacity_] = event;
  ++done_count_;
}

}  // namespace hipfile::core
