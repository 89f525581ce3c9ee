#include "core/batch/batch_context.h"

#include <algorithm>
#include <utility>

namespace hipfile::core {

size_t EventRet(const Result<size_t>& moved) {
  if (moved.ok()) return *moved;
  const Status status = moved.status();
  int64_t code = hipFileHipDriverError;
  if (status.kind() == Status::Kind::kErrno || status.kind() == Status::Kind::kOp) {
    code = status.code();
  }
  return static_cast<size_t>(-code);
}

Result<uint64_t> BatchContext::Accept(std::vector<BatchTransfer> entries) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Status::Op(hipFileInvalidValue);
  const size_t outstanding = ops_.size() + done_.size();
  if (entries.size() > capacity_ - outstanding) return Status::Op(hipFileBatchFull);
  const uint64_t first = next_id_;
  for (BatchTransfer& entry : entries) ops_[next_id_++].transfer = std::move(entry);
  AddPending(entries.size(), true);
  return first;
}

size_t BatchContext::GroupShareLocked(const GroupLimits& limits) const {
  size_t pending = ops_.size() - running_;
  if (pending_everywhere_ != nullptr) {
    pending = std::max(pending, pending_everywhere_->load(std::memory_order_relaxed));
  }
  const size_t spread = std::max<size_t>(limits.spread, 1);
  return std::clamp<size_t>((pending + spread - 1) / spread, 1,
                            std::max<size_t>(limits.max_entries, 1));
}

size_t BatchContext::GroupShare(const GroupLimits& limits) const {
  std::lock_guard<std::mutex> lock(mu_);
  return GroupShareLocked(limits);
}

void BatchContext::ClaimLocked(std::map<uint64_t, Op>::iterator it, const GroupLimits& limits,
                               Claimed* claimed) {
  const size_t want = it->second.transfer.size <= limits.max_bytes ? GroupShareLocked(limits) : 1;
  for (; it != ops_.end() && claimed->ids.size() < want; ++it) {
    Op& op = it->second;
    if (op.running || (!claimed->ids.empty() && op.transfer.size > limits.max_bytes)) continue;
    op.running = true;
    claimed->ids.push_back(it->first);
    claimed->transfers.push_back(std::move(op.transfer));
  }
  running_ += claimed->ids.size();
  AddPending(claimed->ids.size(), false);
}

void BatchContext::Run(uint64_t id, const GroupLimits& limits, const Runner& run) {
  Claimed claimed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ops_.find(id);
    if (it == ops_.end() || it->second.running) return;  // canceled, or claimed by another Run
    ClaimLocked(it, limits, &claimed);
  }
  Execute(claimed, run);
}

bool BatchContext::RunNext(const GroupLimits& limits, const Runner& run) {
  Claimed claimed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it =
        std::find_if(ops_.begin(), ops_.end(), [](const auto& op) { return !op.second.running; });
    if (it == ops_.end()) return false;
    ClaimLocked(it, limits, &claimed);
  }
  return Execute(claimed, run);
}

bool BatchContext::Execute(Claimed& claimed, const Runner& run) {
  std::vector<const BatchTransfer*> transfers;
  transfers.reserve(claimed.transfers.size());
  for (const BatchTransfer& t : claimed.transfers) transfers.push_back(&t);
  std::vector<Result<size_t>> results(transfers.size(), size_t{0});
  run(transfers, results.data());
  std::vector<void*> cookies;
  cookies.reserve(transfers.size());
  for (const BatchTransfer& t : claimed.transfers) cookies.push_back(t.cookie);
  claimed.transfers.clear();  // releases the references before anyone can see the entries finished
  bool pending_left = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < claimed.ids.size(); ++i) {
      PushEventLocked(cookies[i], results[i].ok() ? hipFileComplete : hipFileFailed,
                      EventRet(results[i]));
      ops_.erase(claimed.ids[i]);
    }
    running_ -= claimed.ids.size();
    pending_left = ops_.size() > running_;
  }
  changed_.notify_all();
  return pending_left;
}

size_t BatchContext::Reap(unsigned min_nr, unsigned max_events, const BatchDeadline& deadline,
                          hipFileIOEvents_t* out) {
  std::unique_lock<std::mutex> lock(mu_);
  // min_nr is capped at what is outstanding, re-read at every wake-up: entries submitted or
  // events reaped by other threads meanwhile count.
  const auto ready = [&] {
    const size_t outstanding = ops_.size() + done_.size();
    return done_.size() >= std::min<size_t>(min_nr, outstanding);
  };
  if (deadline.has_value()) {
    changed_.wait_until(lock, *deadline, ready);
  } else {
    changed_.wait(lock, ready);
  }
  const size_t n = std::min<size_t>(max_events, done_.size());
  std::copy_n(done_.begin(), n, out);
  done_.erase(done_.begin(), done_.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

void BatchContext::Cancel() {
  std::vector<BatchTransfer> dropped;  // destroyed outside the lock: they may close descriptors
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto it = ops_.begin(); it != ops_.end();) {
      if (it->second.running) {
        ++it;
        continue;
      }
      PushEventLocked(it->second.transfer.cookie, hipFileCanceled, 0);
      dropped.push_back(std::move(it->second.transfer));
      it = ops_.erase(it);
    }
    AddPending(dropped.size(), false);
    changed_.notify_all();
    changed_.wait(lock, [this] { return running_ == 0; });
  }
}

void BatchContext::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  Cancel();
}

size_t BatchContext::Outstanding() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ops_.size() + done_.size();
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
  done_.push_back(event);
}

}  // namespace hipfile::core
