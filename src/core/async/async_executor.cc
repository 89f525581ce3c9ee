// SPDX-License-Identifier: MIT
#include "core/async/async_executor.h"

#include <hipfile.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <deque>
#include <list>

#include "core/async/async_channel.h"
#include "util/errors.h"
#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::core {

using namespace async_detail;  // NOLINT(google-build-using-namespace): this file's own words

namespace {

void SleepMicros(long us) {
  timespec ts{0, us * 1000};
  nanosleep(&ts, nullptr);
}

unsigned DefaultWorkers(unsigned requested) {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw < 4 ? 4 : hw;
}

}  // namespace

// What a host-function wait hands over (fallback path only).
struct AsyncExecutor::Ready {
  AsyncExecutor* self;
  Channel* channel;
  uint32_t seq;
  AsyncOp* op;
};

AsyncExecutor::AsyncExecutor(runtime::GpuRuntime& gpu, unsigned workers, size_t max_channels)
    : gpu_(gpu),
      workers_(std::make_unique<WorkerPool>(DefaultWorkers(workers), "async")),
      reaper_(std::make_unique<WorkerPool>(1, "reap")),
      max_channels_(max_channels) {
  void* slab = nullptr;
  const hipError_t e = gpu_.HostMalloc(&slab, max_channels_ * kWordsPerChannel * sizeof(uint32_t),
                                       hipHostMallocPortable | hipHostMallocMapped);
  if (e == hipSuccess) {
    slab_ = static_cast<uint32_t*>(slab);
  } else {
    HF_LOG(kError, "pinning the stream-ordered I/O words failed: %s", GpuErrorName(e));
  }
  int devices = 0;
  if (gpu_.GetDeviceCount(&devices) != hipSuccess) devices = 0;
  for (int d = 0; d < devices; ++d) {
    mem_ops_.push_back(gpu_.SupportsStreamMemOps(d) ? 1 : 0);
    tables_.push_back(gpu_.SupportsCopyTable(d) ? 1 : 0);
  }
  poller_ = std::thread([this] {
    NameThisThread("poll");
    PollLoop();
  });
}

AsyncExecutor::~AsyncExecutor() {
  WaitIdle();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_poller_.notify_all();
  poller_.join();
  workers_.reset();  // joins: no task touches the executor after this
  reaper_.reset();
  for (auto& entry : channels_) {
    if (entry.second->staging_block != nullptr) (void)gpu_.HostFree(entry.second->staging_block);
  }
  if (slab_ != nullptr) (void)gpu_.HostFree(slab_);
}

Status AsyncExecutor::RegisterStream(runtime::Stream stream, unsigned flags) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!registered_.emplace(stream, flags).second) return Status::Op(hipFileInvalidValue);
  return Status::Ok();
}

Status AsyncExecutor::DeregisterStream(runtime::Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  return registered_.erase(stream) == 1 ? Status::Ok() : Status::Op(hipFileInvalidValue);
}

void AsyncExecutor::ForgetRegistrations() {
  std::lock_guard<std::mutex> lock(mutex_);
  registered_.clear();
}

unsigned AsyncExecutor::StreamFlags(runtime::Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = registered_.find(stream);
  return it == registered_.end() ? 0 : it->second;
}

Result<AsyncExecutor::Channel*> AsyncExecutor::ChannelFor(runtime::Stream stream) {
  auto it = channels_.find(stream);
  if (it != channels_.end()) {
    Channel* channel = it->second.get();
    lru_.splice(lru_.end(), lru_, channel->lru);
    return channel;
  }
  int device = 0;
  HF_RETURN_IF_ERROR(Status::FromGpu(gpu_.StreamGetDevice(stream, &device)));
  if (slab_ == nullptr) return Status::Op(hipFileInternalError);  // logged at construction
  Channel* channel = nullptr;
  if (slab_used_ < max_channels_) {
    auto fresh = std::make_unique<Channel>();
    fresh->words = slab_ + kWordsPerChannel * slab_used_++;
    StoreWord(&fresh->words[kReached], 0);
    StoreWord(&fresh->words[kDone], 0);
    StoreWord(&fresh->words[kReady], 0);
    StoreWord(&fresh->words[kCopied], 0);
    channel = fresh.get();
    channel->lru = lru_.insert(lru_.end(), channel);
    channels_.emplace(stream, std::move(fresh));
  } else {
    channel = IdleChannel();
    if (channel == nullptr) {
      HF_LOG(kError,
             "stream-ordered I/O: all %zu channels have operations in flight; refusing another "
             "stream",
             max_channels_);
      return Status::Op(hipFileInternalError);
    }
    if (recycled_++ == 0) {
      HF_LOG(kInfo, "stream-ordered I/O: more than %zu streams; recycling idle channels",
             max_channels_);
    }
    auto node = channels_.extract(channel->stream);
    node.key() = stream;
    channels_.insert(std::move(node));
    // done == reached == last_seq already where the old stream used stream memory operations;
    // a host-function stream never wrote `reached`, and the poller must not take its stale value
    // for the new stream's progress. No write of the old stream to it is pending (see header).
    StoreWord(&channel->words[kReached], channel->last_seq);
    lru_.splice(lru_.end(), lru_, channel->lru);
  }
  channel->stream = stream;
  const bool mem_ops = device >= 0 && static_cast<size_t>(device) < mem_ops_.size() &&
                       mem_ops_[static_cast<size_t>(device)] != 0;
  channel->host_fn = !mem_ops;
  channel->copy_tables = device >= 0 && static_cast<size_t>(device) < tables_.size() &&
                         tables_[static_cast<size_t>(device)] != 0;
  if (channel->host_fn && !warned_host_fn_fallback_) {
    warned_host_fn_fallback_ = true;
    HF_LOG(kWarn,
           "device %d has no stream memory operations: stream-ordered I/O waits in host "
           "functions, which the driver may serialize across streams",
           device);
  }
  return channel;
}

AsyncExecutor::Channel* AsyncExecutor::IdleChannel() {
  Channel* registered_idle = nullptr;
  for (Channel* channel : lru_) {
    if (!channel->Idle()) continue;
    if (registered_.count(channel->stream) == 0) return channel;
    // A registered stream is likely to come back: take its channel only when no other is idle.
    if (registered_idle == nullptr) registered_idle = channel;
  }
  return registered_idle;
}

Status AsyncExecutor::Submit(runtime::Stream stream, std::unique_ptr<AsyncOp> op) {
  Channel* channel = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Result<Channel*> found = ChannelFor(stream);
    if (!found.ok()) return found.status();
    channel = *found;
    // Until its operation is queued or refused, the submission keeps the channel with this
    // stream and counts as outstanding (no recycling, no staging moved, no RunIfIdle).
    ++channel->submitters;
    ++outstanding_;
  }
  // Submissions to one stream queue their stream operations one at a time, in the order they
  // take submit_mu: the order of their sequence numbers. The executor's mutex is not held
  // meanwhile: a runtime call may wait for the stream (a full queue), and the stream for the
  // poller, which takes that mutex.
  std::lock_guard<std::mutex> order(channel->submit_mu);
  return SubmitOrdered(channel, stream, std::move(op));
}

void AsyncExecutor::EndSubmissionLocked(Channel* channel, bool refused) {
  --channel->submitters;
  if (!refused) return;
  --channel->last_seq;
  if (--outstanding_ == 0) idle_.notify_all();
}

Status AsyncExecutor::SubmitOrdered(Channel* channel, runtime::Stream stream,
                                    std::unique_ptr<AsyncOp> op) {
  bool staged = false;
  uint32_t seq = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    staged = CanStage(*channel, *op) && EnsureStaging(channel);
    seq = ++channel->last_seq;
  }
  if (staged) return SubmitStaged(channel, stream, seq, std::move(op));

  if (channel->host_fn) {
    auto* ready = new Ready{this, channel, seq, op.get()};
    const hipError_t err = gpu_.LaunchHostFunc(stream, &AsyncExecutor::HostFnTrampoline, ready);
    std::lock_guard<std::mutex> lock(mutex_);
    if (err != hipSuccess) {
      delete ready;
      EndSubmissionLocked(channel, true);
      return Status::Gpu(err);
    }
    op.release();  // owned by the host function's call now, which completes it
    EndSubmissionLocked(channel, false);
    return Status::Ok();
  }

  const hipError_t reached = gpu_.StreamWriteValue32(stream, &channel->words[kReached], seq);
  if (reached != hipSuccess) {
    std::lock_guard<std::mutex> lock(mutex_);
    EndSubmissionLocked(channel, true);
    return Status::Gpu(reached);
  }
  const hipError_t wait = gpu_.StreamWaitValue32(stream, &channel->words[kDone], seq);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Once `reached` is on the stream the sequence number is spent: if the wait could not be
    // enqueued, the operation is abandoned and the poller only completes the handshake.
    channel->queued.push_back({seq, wait == hipSuccess ? std::move(op) : nullptr});
    ++queued_;
    EndSubmissionLocked(channel, false);
  }
  wake_poller_.notify_one();
  return Status::FromGpu(wait);
}

void AsyncExecutor::HostFnTrampoline(void* arg) {
  std::unique_ptr<Ready> ready(static_cast<Ready*>(arg));
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  AsyncExecutor* self = ready->self;
  Channel* channel = ready->channel;
  const uint32_t seq = ready->seq;
  AsyncOp* op = ready->op;
  self->workers_->Post([&, self, channel, seq, op] {
    self->Complete(channel, seq, std::unique_ptr<AsyncOp>(op));
    std::lock_guard<std::mutex> lock(done_mutex);
    done = true;
    done_cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(done_mutex);
  done_cv.wait(lock, [&] { return done; });
}

void AsyncExecutor::Complete(Channel* channel, uint32_t seq, std::unique_ptr<AsyncOp> op) {
  if (op) *op->bytes_p = RunBound(*op);
  StoreWord(&channel->words[kDone], seq);
  if (op) {
    AsyncOp* finished = op.release();
    reaper_->Post([finished] { delete finished; });
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (--outstanding_ == 0) idle_.notify_all();
}

size_t AsyncExecutor::ChannelsRecycled() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recycled_;
}

size_t AsyncExecutor::Outstanding() {
  std::lock_guard<std::mutex> lock(mutex_);
  return outstanding_;
}

void AsyncExecutor::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return outstanding_ == 0; });
}

bool AsyncExecutor::RunIfIdle(const std::function<void()>& fn) {
  std::lock_guard<std::mutex> lock(mutex_);  // Submit takes it too
  if (outstanding_ != 0) return false;
  fn();
  return true;
}

void AsyncExecutor::PollLoop() {
  // Back-off while operations wait for their streams: yield for the first rounds (latency of a
  // few microseconds), then sleep 20 us (tens of microseconds), then 200 us once nothing has
  // happened for about 100 ms. With nothing queued the poller sleeps on a condition variable.
  unsigned idle_rounds = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (queued_ == 0 && waiting_ == 0) {
      if (stopping_) return;
      wake_poller_.wait(lock, [this] { return stopping_ || queued_ > 0 || waiting_ > 0; });
      idle_rounds = 0;
      continue;
    }
    bool progressed = false;
    for (auto& entry : channels_) {
      Channel* channel = entry.second.get();
      if (channel->waiting && Reached(LoadWord(&channel->words[kCopied]), channel->trigger)) {
        channel->waiting = false;
        --waiting_;
        progressed = true;
        workers_->Post([this, channel] { Step(channel); });
      }
      if (channel->queued.empty()) continue;
      const uint32_t reached = LoadWord(&channel->words[kReached]);
      while (!channel->queued.empty() && Reached(reached, channel->queued.front().seq)) {
        Channel::Pending pending = std::move(channel->queued.front());
        channel->queued.pop_front();
        --queued_;
        progressed = true;
        const uint32_t seq = pending.seq;
        if (pending.staged != nullptr) {
          // The stream passed the previous operation's whole chain: none is active.
          channel->active = std::move(pending.staged);
          workers_->Post([this, channel] { Step(channel); });
        } else if (pending.abandoned_staged) {
          const uint32_t ready = pending.abandoned_ready;
          workers_->Post([this, channel, seq, ready] { ReleaseAbandoned(channel, seq, ready); });
        } else {
          AsyncOp* op = pending.op.release();
          workers_->Post(
              [this, channel, seq, op] { Complete(channel, seq, std::unique_ptr<AsyncOp>(op)); });
        }
      }
    }
    idle_rounds = progressed ? 0 : idle_rounds + 1;
    // A staged operation waiting for its stream's copy is near: its copy takes microseconds to
    // a millisecond, and the worker that moves it on waits for this loop.
    if (waiting_ > 0) idle_rounds = std::min(idle_rounds, 4999u);
    lock.unlock();
    if (idle_rounds < 64) {
      sched_yield();
    } else if (idle_rounds < 5000) {
      SleepMicros(20);
    } else {
      SleepMicros(200);
    }
    lock.lock();
  }
}

}  // namespace hipfile::core
