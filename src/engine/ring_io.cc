// SPDX-License-Identifier: MIT
#include "engine/ring_io.h"

#include <errno.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <deque>
#include <thread>
#include <utility>

#include "util/log.h"

namespace hipfile::engine {
namespace {

using platform::IoRing;
using platform::RingCompletion;
using platform::RingOp;

bool IsRetryable(int e) { return e == EINTR || e == EAGAIN; }

// Runs what remains of transfer `t` (after `r->bytes`) with the serial loops.
void FinishSerially(platform::Sys& sys, const RingTransfer& t, Transfer* r) {
  char* buf = static_cast<char*>(t.buf) + r->bytes;
  const size_t size = t.size - r->bytes;
  const off_t offset = t.offset + static_cast<off_t>(r->bytes);
  Transfer rest;
  if (t.kind == RingOp::Kind::kWrite) {
    rest = PwriteFull(sys, t.fd, buf, size, offset);
  } else if (t.direct_align != 0) {
    rest = PreadDirect(sys, t.fd, buf, size, offset, t.direct_align);
  } else {
    rest = PreadFull(sys, t.fd, buf, size, offset);
  }
  r->bytes += rest.bytes;
  r->status = rest.status;
}

}  // namespace

// One RunAll on one ring: keeps the ring full, continues short transfers and resubmits retries as
// completions come back. Transfer i's op carries tag i.
class RingIo::Run {
 public:
  Run(IoRing& ring, const RingTransfer* t, size_t n, Transfer* results)
      : ring_(ring), t_(t), results_(results), state_(n) {}

  // Runs until every transfer has finished, or the ring failed a submission and every op it took
  // has completed. Either way no op of this run is left in the kernel. Returns false in the second
  // case: the transfers not finished (pending()) are the caller's to complete.
  bool Execute() {
    for (size_t i = 0; i < state_.size(); ++i) {
      if (t_[i].size == 0) {
        state_[i].finished = true;
      } else {
        pending_.push_back(i);
      }
    }
    const size_t depth = ring_.depth();
    std::vector<RingOp> ops;
    ops.reserve(depth);
    std::vector<RingCompletion> completions(depth);
    size_t in_flight = 0;
    bool healthy = true;
    bool wait_error_logged = false;
    for (;;) {
      if (healthy && !pending_.empty() && in_flight < depth) {
        ops.clear();
        while (!pending_.empty() && in_flight + ops.size() < depth) {
          ops.push_back(NextOp(pending_.front()));
          pending_.pop_front();
        }
        const Result<size_t> taken = ring_.Submit(ops.data(), ops.size());
        const size_t k = taken.ok() ? *taken : 0;
        in_flight += k;
        if (k < ops.size()) {
          // The ring is spent (IoRing::Submit); what it did not take goes back, in order.
          healthy = false;
          HF_LOG(kDebug, "io_uring submission took %zu of %zu ops (%s); the rest run serially", k,
                 ops.size(), taken.ok() ? "short" : taken.status().ToString().c_str());
          for (size_t j = ops.size(); j-- > k;) {
            pending_.push_front(static_cast<size_t>(ops[j].tag));
          }
        }
      }
      if (in_flight == 0) break;
      const Result<size_t> got = ring_.Wait(completions.data(), completions.size(), 1);
      if (!got.ok()) {
        if (got.status().IsErrno(EINTR)) continue;
        // The kernel still holds buffers of this run: returning now could let it write into
        // memory the caller has moved on from. Wait on.
        if (!wait_error_logged) {
          HF_LOG(kError, "io_uring wait failed (%s); retrying", got.status().ToString().c_str());
          wait_error_logged = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      in_flight -= *got;
      for (size_t j = 0; j < *got; ++j) Complete(completions[j]);
    }
    return healthy;
  }

  const std::deque<size_t>& pending() const { return pending_; }

 private:
  struct State {
    int retries = 0;      // EINTR/EAGAIN in a row
    int zero_writes = 0;  // writes that completed 0 in a row
    bool finished = false;
  };

  RingOp NextOp(size_t i) const {
    const RingTransfer& t = t_[i];
    const size_t done = results_[i].bytes;
    RingOp op;
    op.kind = t.kind;
    op.fd = t.fd;
    op.buf = static_cast<char*>(t.buf) + done;
    op.size = std::min(t.size - done, platform::kMaxRingOpBytes);
    op.offset = t.offset + static_cast<off_t>(done);
    op.tag = i;
    return op;
  }

  // PreadFull's and PwriteFull's rules, one completion at a time.
  void Complete(const RingCompletion& c) {
    const size_t i = static_cast<size_t>(c.tag);
    assert(i < state_.size() && !state_[i].finished);
    const RingTransfer& t = t_[i];
    Transfer& r = results_[i];
    State& s = state_[i];
    if (c.result < 0) {
      const int e = static_cast<int>(-c.result);
      if (IsRetryable(e) && ++s.retries <= kMaxConsecutiveRetries) {
        pending_.push_back(i);
      } else {
        r.status = Status::Errno(e);
        s.finished = true;
      }
      return;
    }
    s.retries = 0;
    const size_t moved = std::min(static_cast<size_t>(c.result), t.size - r.bytes);
    if (t.kind == RingOp::Kind::kRead) {
      r.bytes += moved;
      // 0 is end of file; so is a count off the O_DIRECT alignment.
      const bool end = moved == 0 || (t.direct_align != 0 && moved % t.direct_align != 0);
      s.finished = end || r.bytes == t.size;
    } else if (moved == 0) {
      // No progress and no errno: tried once more, then EIO (PwriteFull).
      if (++s.zero_writes >= 2) {
        r.status = Status::Errno(EIO);
        s.finished = true;
      }
    } else {
      s.zero_writes = 0;
      r.bytes += moved;
      s.finished = r.bytes == t.size;
    }
    if (!s.finished) pending_.push_back(i);
  }

  IoRing& ring_;
  const RingTransfer* t_;
  Transfer* results_;
  std::vector<State> state_;
  std::deque<size_t> pending_;  // transfers waiting for their next op, in submission order
};

RingIo::RingIo(platform::Sys& sys, RingIoOptions options)
    : sys_(sys),
      options_(options),
      available_(options.enabled && options.depth > 0 && options.max_rings > 0),
      max_rings_(options.max_rings) {}

RingIo::~RingIo() {
  MutexLock lock(mu_);
  assert(idle_.size() == rings_ && "a RunAll is still running");
}

RingIo::Counters RingIo::counters() const {
  Counters c;
  c.ring_calls = ring_calls_.load(std::memory_order_relaxed);
  c.serial_calls = serial_calls_.load(std::memory_order_relaxed);
  MutexLock lock(mu_);
  c.rings_created = rings_created_;
  return c;
}

std::unique_ptr<IoRing> RingIo::Lease() {
  if (!ring_available()) return nullptr;
  {
    MutexLock lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<IoRing> ring = std::move(idle_.back());
      idle_.pop_back();
      return ring;
    }
    if (rings_ >= max_rings_) return nullptr;
    ++rings_;
  }
  // Created outside the lock: setting up a ring maps memory and may take a while.
  Result<std::unique_ptr<IoRing>> ring = sys_.CreateIoRing(options_.depth);
  MutexLock lock(mu_);
  if (ring.ok()) {
    ++rings_created_;
    return std::move(ring).value();
  }
  --rings_;
  if (rings_created_ == 0) {
    // No ring ever worked: io_uring is refused here (ENOSYS, EPERM...). Stop trying.
    if (available_.exchange(false)) {
      // A fallback that costs speed (a batch's small transfers go one system call each): warn.
      HF_LOG(kWarn, "io_uring is not available (%s); reads and writes run one at a time",
             ring.status().ToString().c_str());
    }
  } else if (max_rings_ > rings_) {
    // Rings work but no more can be made (ENOMEM, locked-memory limit): keep those there are.
    HF_LOG(kWarn, "io_uring ring %u could not be created (%s); using %u", rings_ + 1,
           ring.status().ToString().c_str(), rings_);
    max_rings_ = rings_;
  }
  return nullptr;
}

void RingIo::Release(std::unique_ptr<IoRing> ring, bool healthy) {
  MutexLock lock(mu_);
  if (healthy) {
    idle_.push_back(std::move(ring));
    return;
  }
  --rings_;  // a ring that failed a submission cannot take more (IoRing::Submit)
  ring.reset();
}

void RingIo::RunSerially(const RingTransfer* t, size_t n, Transfer* results) {
  serial_calls_.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) FinishSerially(sys_, t[i], &results[i]);
}

bool RingIo::RunAll(const RingTransfer* t, size_t n, Transfer* results) {
  for (size_t i = 0; i < n; ++i) results[i] = Transfer{};
  if (n == 0) return false;
  std::unique_ptr<IoRing> ring = Lease();
  if (ring == nullptr) {
    RunSerially(t, n, results);
    return false;
  }
  ring_calls_.fetch_add(1, std::memory_order_relaxed);
  Run run(*ring, t, n, results);
  const bool healthy = run.Execute();
  Release(std::move(ring), healthy);
  if (!healthy) {
    for (const size_t i : run.pending()) FinishSerially(sys_, t[i], &results[i]);
  }
  return true;
}

}  // namespace hipfile::engine
