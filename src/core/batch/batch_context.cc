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

Result<uint64_t> BatchContext::Accept(std::vector<Entry> entries) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Status::Op(hipFileInvalidValue);
  const size_t outstanding = ops_.size() + done_.size();
  if (entries.size() > capacity_ - outstanding) return Status::Op(hipFileBatchFull);
  const uint64_t first = next_id_;
  for (Entry& entry : entries) {
    Op& op = ops_[next_id_++];
    op.cookie = entry.cookie;
    op.work = std::move(entry.work);
  }
  return first;
}

void BatchContext::Run(uint64_t id) {
  Work work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = ops_.find(id);
    if (it == ops_.end() || it->second.running) return;  // canceled
    it->second.running = true;
    ++running_;
    work = std::move(it->second.work);
  }
  const Result<size_t> moved = work();
  work = nullptr;  // releases the transfer's references before anyone can see it finished
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = ops_.find(id);
    PushEventLocked(it->second.cookie, moved.ok() ? hipFileComplete : hipFileFailed,
                    EventRet(moved));
    ops_.erase(it);
    --running_;
  }
  changed_.notify_all();
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
  std::vector<Work> dropped;  // destroyed outside the lock: they may close descriptors
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto it = ops_.begin(); it != ops_.end();) {
      if (it->second.running) {
        ++it;
        continue;
      }
      dropped.push_back(std::move(it->second.work));
      PushEventLocked(it->second.cookie, hipFileCanceled, 0);
      it = ops_.erase(it);
    }
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

void BatchContext::PushEventLocked(void* cookie, hipFileStatus_t status, size_t ret) {
  hipFileIOEvents_t event;
  event.cookie = cookie;
  event.status = status;
  event.ret = ret;
  done_.push_back(event);
}

}  // namespace hipfile::core
