// SPDX-License-Identifier: MIT
#include "core/async/async_executor.h"

#include <hipfile.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <list>

#include "core/async/async_channel.h"
#include "util/errors.h"
#include "util/exception_status.h"
#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::core {

using namespace async_detail;  // NOLINT(google-build-using-namespace): this file's own words

// What a host-function wait hands over (fallback path only).
struct AsyncExecutor::Ready {
  AsyncExecutor* self;
  Channel* channel;
  uint32_t seq;
  AsyncOp* op;
  // The host function runs the operation itself (the runtime's host functions run per stream);
  // false: it hands it to a worker and waits.
  bool here;
};

Result<std::unique_ptr<AsyncExecutor>> AsyncExecutor::Create(
    platform::Sys& sys, runtime::GpuRuntime& gpu, engine::WorkerPool& workers, size_t max_channels,
    AsyncStageStats* stage_stats, Stats* stats) {
  std::unique_ptr<AsyncExecutor> executor(new AsyncExecutor(gpu, max_channels, stage_stats, stats));
  HF_RETURN_IF_ERROR(executor->Start(sys, workers));
  return executor;
}

AsyncExecutor::AsyncExecutor(runtime::GpuRuntime& gpu, size_t max_channels,
                             AsyncStageStats* stage_stats, Stats* stats)
    : gpu_(gpu),
      stage_stats_(stage_stats),
      stats_(stats),
      scratch_(gpu),
      max_channels_(max_channels) {
  void* slab = nullptr;
  const hipError_t e = gpu_.HostMalloc(&slab, max_channels_ * kWordsPerChannel * sizeof(uint32_t),
                                       hipHostMallocPortable | hipHostMallocMapped);
  if (e == hipSuccess) {
    slab_ = static_cast<uint32_t*>(slab);
  } else {
    HF_LOG(kError, "pinning the stream-ordered I/O words failed: %s", GpuErrorName(e));
  }
  starved_.reserve(max_channels_);  // the poller queues a channel there without allocating
  busy_.reserve(max_channels_);     // and a submission or a worker marks one busy
  if (gpu_.GetDeviceCount(&devices_) != hipSuccess || devices_ < 0) devices_ = 0;
  caps_ = std::make_unique<DeviceCapsState[]>(static_cast<size_t>(devices_));
}

void AsyncExecutor::DeviceCaps(int device) {
  if (device < 0 || device >= devices_) return;
  DeviceCapsState& caps = caps_[device];
  if (caps.known.load(std::memory_order_acquire) != 0) return;
  // Racing threads ask twice; the runtime remembers its answers, so the code loads once.
  caps.mem_ops.store(gpu_.SupportsStreamMemOps(device), std::memory_order_relaxed);
  caps.tables.store(gpu_.SupportsCopyTable(device), std::memory_order_relaxed);
  caps.known.store(1, std::memory_order_release);
}

Status AsyncExecutor::Start(platform::Sys& sys, engine::WorkerPool& workers) {
  if (workers.size() == 0) {
    // The poller hands operations over from under its lock: they need threads of their own.
    HF_LOG(kError, "stream-ordered I/O needs at least one I/O thread; the pool has none");
    return Status::Op(hipFileInvalidValue);
  }
  HF_RETURN_IF_ERROR(workers.Start());
  workers_ = std::make_unique<engine::TaskGroup>(workers, "async");
  reap_pool_ = std::make_unique<engine::WorkerPool>(sys, 1, "reap");
  HF_RETURN_IF_ERROR(reap_pool_->Start());
  reaper_ = std::make_unique<engine::TaskGroup>(*reap_pool_, "reap");
  reap_ = std::make_unique<ReapQueue>(*reaper_);
  Result<std::thread> poller = sys.StartThread([this, &sys] {
    NameThisThread("poll");
    PollLoop(sys);
  });
  if (!poller.ok()) {
    HF_LOG(kWarn, "starting the stream-ordered poller failed: errno %d", poller.status().code());
    return poller.status();
  }
  poller_ = std::move(poller).value();
  return Status::Ok();
}

AsyncExecutor::~AsyncExecutor() {
  WaitIdle();
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_poller_.NotifyAll();
  if (poller_.joinable()) poller_.join();  // not started when Create failed
  workers_.reset();                        // drained: no task touches the executor after this
  reaper_.reset();                         // drained: reap_ holds nothing more
  reap_.reset();
  reap_pool_.reset();
  for (auto& entry : channels_) {
    entry.second->tables.Free(gpu_);
    for (const Channel::Mirror& m : entry.second->mirrors) {
      if (m.tables != nullptr) (void)gpu_.Free(m.tables);
    }
    DropCompanion(entry.second.get());
  }
  for (engine::StreamStagingBlock& block : free_blocks_) block.Free(gpu_);
  for (engine::StreamStagingBlock& block : large_free_) block.Free(gpu_);
  for (Draining& draining : draining_) draining.block.Free(gpu_);
  if (slab_ != nullptr) (void)gpu_.HostFree(slab_);
  MutexLock probing(probe_mu_);
  if (probe_host_ != nullptr) (void)gpu_.HostFree(probe_host_);
}

StreamKey AsyncExecutor::KeyOf(runtime::Stream stream) {
  int device = -1;
  if (StreamKey::PerDevice(stream)) (void)NoThrow([&] { return gpu_.GetDevice(&device); });
  return StreamKey::Of(stream, device);
}

Status AsyncExecutor::RegisterStream(runtime::Stream stream, unsigned flags) {
  const StreamKey key = KeyOf(stream);
  MutexLock lock(mutex_);
  if (!registered_.emplace(key, flags).second) {
    HF_LOG_LIMITED(kWarn, "hipFileStreamRegister: stream %p is already registered",
                   static_cast<void*>(stream));
    return Status::Op(hipFileInvalidValue);
  }
  return Status::Ok();
}

Status AsyncExecutor::DeregisterStream(runtime::Stream stream) {
  const StreamKey key = KeyOf(stream);
  MutexLock lock(mutex_);
  if (registered_.erase(key) == 1) return Status::Ok();
  HF_LOG_LIMITED(kWarn, "hipFileStreamDeregister: stream %p is not registered",
                 static_cast<void*>(stream));
  return Status::Op(hipFileInvalidValue);
}

void AsyncExecutor::ForgetRegistrations() {
  MutexLock lock(mutex_);
  registered_.clear();
}

unsigned AsyncExecutor::StreamFlags(runtime::Stream stream) {
  const StreamKey key = KeyOf(stream);
  MutexLock lock(mutex_);
  auto it = registered_.find(key);
  return it == registered_.end() ? 0 : it->second;
}

Result<AsyncExecutor::Channel*> AsyncExecutor::ChannelFor(const StreamKey& stream, int device) {
  auto it = channels_.find(stream);
  if (it != channels_.end()) {
    Channel* channel = it->second.get();
    lru_.splice(lru_.end(), lru_, channel->lru);
    return channel;
  }
  if (slab_ == nullptr) return Status::Op(hipFileInternalError);  // logged at construction
  Channel* channel = nullptr;
  if (slab_used_ < max_channels_) {
    auto fresh = std::make_unique<Channel>();
    fresh->words = slab_ + kWordsPerChannel * slab_used_;
    StoreWord(&fresh->words[kReached], 0);
    StoreWord(&fresh->words[kDone], 0);
    StoreWord(&fresh->words[kReady], 0);
    StoreWord(&fresh->words[kCopied], 0);
    StoreWord(&fresh->words[kMark], 0);
    channel = fresh.get();
    channel->lru = lru_.insert(lru_.end(), channel);
    try {
      channels_.emplace(stream, std::move(fresh));
    } catch (...) {
      lru_.erase(channel->lru);  // out of memory: as if the channel had never been made
      throw;
    }
    ++slab_used_;
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
    // The old stream's reads at submission are its own; a mark of it landing late only lowers
    // kMark below the new stream's marks (which continue from last_mark): they count longer.
    channel->cached_marked.clear();
    channel->cached_marked_bytes = 0;
    channel->cached_unmarked = 0;
    // The old stream's region copied ahead (possibly of another device) is not this stream's.
    channel->ahead_region.reset();
    channel->ahead_region_bytes = 0;
    lru_.splice(lru_.end(), lru_, channel->lru);
  }
  channel->stream = stream;
  channel->device = device;
  channel->follows_legacy = -1;
  channel->window = 0;  // a recycled channel's stream is counted anew
  // DeviceCaps(device) ran before (SubmitUntimed); a device it could not ask has neither.
  const bool known =
      device >= 0 && device < devices_ && caps_[device].known.load(std::memory_order_acquire) != 0;
  const bool mem_ops = known && caps_[device].mem_ops.load(std::memory_order_relaxed);
  channel->host_fn = !mem_ops;
  channel->copy_tables = known && caps_[device].tables.load(std::memory_order_relaxed);
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
  std::shared_ptr<AsyncStamps> stamps = stage_stats_ != nullptr ? stage_stats_->Start() : nullptr;
  if (stamps == nullptr) return SubmitUntimed(stream, std::move(op));
  op->stamps = stamps;
  const Status status = SubmitUntimed(stream, std::move(op));
  // A refused submission is not recorded (one refused part-way leaves its stamps unfinished).
  if (status.ok()) {
    stamps->t[AsyncStamps::kReturned] = StampNow();
    stage_stats_->Finish(stamps);
  }
  return status;
}

void AsyncExecutor::StampRelease(Channel* channel, const std::shared_ptr<AsyncStamps>& stamps,
                                 uint32_t last, bool watch) {
  const uint64_t now = StampNow();
  stamps->t[AsyncStamps::kReleased] = now;
  if (watch && !Reached(LoadWord(&channel->words[kCopied]), last)) {
    bool watched = false;
    {
      MutexLock lock(mutex_);
      try {
        copy_watch_.push_back(CopyWatch{&channel->words[kCopied], last, stamps});
        watched = true;
      } catch (...) {
        // No room: the copy counts as made at the release.
      }
    }
    if (watched) {
      // The poller stamps it; it polls while copy_watch_ has entries, but may be asleep now.
      wake_poller_.NotifyOne();
      return;
    }
  }
  stamps->t[AsyncStamps::kCopied] = now;
  stage_stats_->Finish(stamps);
}

Status AsyncExecutor::SubmitUntimed(runtime::Stream stream, std::unique_ptr<AsyncOp> op) {
  submitting_.fetch_add(1, std::memory_order_relaxed);
  struct Leave {
    std::atomic<unsigned>& count;
    ~Leave() { count.fetch_sub(1, std::memory_order_relaxed); }
  } leave{submitting_};
  Channel* channel = nullptr;
  // A stream without a channel gets one for its device, which is asked without mutex_ (no runtime
  // call is made with it held: see the header). Twice at most: the channel a stream had when the
  // first look found it may be recycled before the second.
  int device = -1;
  bool device_known = false;
  RecentStreams recent;
  const StreamKey key = KeyOf(stream);
  for (;;) {
    {
      MutexLock lock(mutex_);
      if (device_known || channels_.count(key) != 0) {
        Result<Channel*> found = ChannelFor(key, device);
        if (!found.ok()) return found.status();
        channel = *found;
        // The stream's HIPFILE_STREAM_FIXED_* flags, as registered now.
        if (auto flags = registered_.find(key); flags != registered_.end()) {
          op->fixed_flags |= flags->second;
        }
        // Until its operation is queued or refused, the submission keeps the channel with this
        // stream and counts as outstanding (no recycling, no staging moved, no RunIfIdle).
        ++channel->submitters;
        ++outstanding_;
        recent = CountRecentLocked(channel, MayCopyAhead(*op));
        break;
      }
    }
    HF_RETURN_IF_ERROR(
        Status::FromGpu(NoThrow([&] { return gpu_.StreamGetDevice(stream, &device); })));
    // Without mutex_ and before anything is queued on the stream: asking may load code onto the
    // device, which blocks while any of its streams waits. A stream of this device waiting on the
    // library implies an earlier submission for the device, which asked already.
    (void)NoThrow([&] {
      DeviceCaps(device);
      // Only for a read that may be copied ahead: a program of small reads or writes has no use
      // for the choice, nor for the budget's memory the measurement leases.
      if (MayCopyAhead(*op)) ChooseAheadWay(device);
      return hipSuccess;
    });
    device_known = true;
  }
  // Submissions to one stream queue their stream operations one at a time, in the order they
  // take submit_mu: the order of their sequence numbers. The executor's mutex is not held
  // meanwhile: a runtime call may wait for the stream (a full queue), and the stream for the
  // poller, which takes that mutex.
  MutexLock order(channel->submit_mu);
  try {
    return SubmitOrdered(channel, stream, std::move(op), recent);
  } catch (...) {
    // Only SubmitOrdered's allocations throw, and they come before it takes a sequence number
    // or queues anything on the stream: the submission is refused whole.
    const Status status = CurrentExceptionStatus("stream-ordered submission");
    MutexLock lock(mutex_);
    --channel->submitters;
    if (--outstanding_ == 0) idle_.NotifyAll();
    return status;
  }
}

void AsyncExecutor::EndSubmissionLocked(Channel* channel, bool refused) {
  --channel->submitters;
  if (!refused) return;
  --channel->last_seq;
  if (--outstanding_ == 0) idle_.NotifyAll();
}

AsyncExecutor::RecentStreams AsyncExecutor::CountRecentLocked(Channel* channel,
                                                              bool may_copy_ahead) {
  if (++window_submissions_ > kQuietWindow) {
    last_window_streams_ = window_streams_;
    last_ahead_window_streams_ = ahead_window_streams_;
    window_streams_ = 0;
    ahead_window_streams_ = 0;
    window_submissions_ = 1;
    ++window_;
  }
  if (channel->window != window_) {
    channel->window = window_;
    ++window_streams_;
  }
  if (may_copy_ahead && channel->ahead_window != window_) {
    channel->ahead_window = window_;
    ++ahead_window_streams_;
  }
  RecentStreams recent;
  recent.all = std::max(window_streams_, last_window_streams_);
  recent.ahead = std::max(ahead_window_streams_, last_ahead_window_streams_);
  return recent;
}

bool AsyncExecutor::MayCopyAhead(const AsyncOp& op) {
  return op.work != nullptr && op.submitted.size >= kAheadMinBytes && op.work->Staged() &&
         !op.work->Write();
}

Status AsyncExecutor::SubmitOrdered(Channel* channel, runtime::Stream stream,
                                    std::unique_ptr<AsyncOp> op, RecentStreams recent) {
  // Few submitters on few streams: an idle stream's operation runs at once first
  // (kQuietSubmissions).
  const unsigned few = quiet_submissions_.load(std::memory_order_relaxed);
  const bool quiet = submitting_.load(std::memory_order_relaxed) <= few && recent.all <= few;
  if (Status status; !quiet && ReadCachedAtSubmission(channel, stream, op, &status)) return status;
  if (RunsAtOnce(channel, stream, *op)) return RunAtOnce(channel, std::move(op));
  if (Status status; quiet && ReadCachedAtSubmission(channel, stream, op, &status)) return status;
  if (Status status; CopyAtSubmission(channel, stream, op, &status)) return status;
  // A read of several small chunks that would come mostly from the disk, or a write of several
  // large chunks: large chunks whatever its size (DiskBound). Asked before mutex_: it looks up
  // residency.
  const bool disk_bound = DiskBound(*op);
  // Where its parameters may still change, a resident read's bytes copied ahead into device
  // memory by its stream (DMA), which the worker's tables copy on from (PlanAhead).
  Ahead ahead;
  if (!disk_bound) (void)PlanAhead(channel, *op, &ahead, recent.ahead);
  bool staged = false;
  bool large = false;  // a large block reserved (ReserveLargeLocked)
  uint32_t seq = 0;
  uint32_t first_token = 0;
  size_t chunks = 0;
  std::unique_ptr<Ready> ready;
  Staged* staged_op = nullptr;  // the poller's once it is queued; SubmitStaged's until then
  // Where each stream's host functions run on a thread of its own (the CPU runtime), an operation
  // that is not staged runs in one: the stream thread does its I/O when it gets there, with no
  // poller or worker between (docs/async.md, "Host functions on the CPU runtime").
  const bool fns_per_stream = gpu_.HostFunctionsRunPerStream();
  {
    MutexLock lock(mutex_);
    // A channel without staging gets it here; pinning releases the lock meanwhile. An operation
    // of many chunks reserves a large block where it can, and then needs no small one.
    staged = CanStage(*channel, *op) && TablesLocked(channel);
    // Parts are whole chunks: a part that is not whole large chunks takes small ones.
    large = staged && ahead.part_bytes % engine::kStreamLargeChunkBytes == 0 &&
            ReserveLargeLocked(op->submitted.size, disk_bound);
    if (staged && !large) staged = StagingLocked(channel);
    // Everything the submission needs is allocated here, before a sequence number is taken:
    // once a stream operation is queued, nothing may fail for want of memory.
    std::unique_ptr<Staged> chain;
    try {
      if (!staged && (channel->host_fn || fns_per_stream)) {
        ready = std::make_unique<Ready>();
      } else {
        if (staged) chain = std::make_unique<Staged>();
        channel->queued.emplace_back();  // filled in below; last: nothing throws after it
        MarkBusyLocked(channel);         // room reserved at construction: does not throw
      }
    } catch (...) {
      if (large) --large_reserved_;  // the block is free again
      throw;
    }
    seq = ++channel->last_seq;
    if (ready == nullptr) channel->queued.back().seq = seq;
    if (staged) {
      // The operation is the poller's before its first stream operation is queued: once the
      // stream waits for `ready`, only a worker can let it on, and this thread may meanwhile
      // wait in the runtime for the stream to drain (another thread freeing memory, on CUDA).
      // The whole chain's tokens are taken now (submit_mu held): operations submitted to one
      // stream from several threads keep their order.
      first_token = channel->last_token + 1;
      const size_t chunk_bytes = large ? engine::kStreamLargeChunkBytes : engine::kStreamChunkBytes;
      chunks = engine::StagedChunks::ChunksFor(op->submitted.size, chunk_bytes);
      chain->seq = seq;
      chain->large = large;
      chain->data.chunk_bytes = chunk_bytes;
      chain->data.run_bytes = ahead.part_bytes;  // a multiple of the chunk size
      ++staged_in_flight_;
      if (large) {
        ++large_in_flight_;
        ++large_ops_;
      }
      chain->data.first_token = first_token;
      chain->chunks = chunks;
      chain->op = std::move(op);
      chain->ahead = std::move(ahead);
      staged_op = chain.get();
      channel->last_token += static_cast<uint32_t>(chain->chunks);
      Channel::Pending& pending = channel->queued.back();
      pending.staged = std::move(chain);
      pending.filled = true;
      ++queued_;
    }
  }
  if (staged) {
    wake_poller_.NotifyOne();
    return SubmitStaged(channel, stream, staged_op, seq, first_token, chunks);
  }

  // Read now: once the stream has the operation, it may run and be gone before this call ends.
  const bool write = op->work->Write();
  if (ready != nullptr) {
    *ready = Ready{this, channel, seq, op.get(), fns_per_stream};
    const hipError_t err = NoThrow(
        [&] { return gpu_.LaunchHostFunc(stream, &AsyncExecutor::HostFnTrampoline, ready.get()); });
    MutexLock lock(mutex_);
    if (err != hipSuccess) {
      EndSubmissionLocked(channel, true);
      return Status::Gpu(err);
    }
    (void)ready.release();  // the host function's call owns both now, and completes the op
    (void)op.release();
    EndSubmissionLocked(channel, false);
    CountWay(write, AsyncWay::kHostFunc);
    return Status::Ok();
  }

  const hipError_t reached =
      NoThrow([&] { return gpu_.StreamWriteValue32(stream, &channel->words[kReached], seq); });
  if (reached != hipSuccess) {
    MutexLock lock(mutex_);
    channel->queued.pop_back();  // the entry made above: submit_mu keeps it the last
    EndSubmissionLocked(channel, true);
    return Status::Gpu(reached);
  }
  const hipError_t wait =
      NoThrow([&] { return gpu_.StreamWaitValue32(stream, &channel->words[kDone], seq); });
  {
    MutexLock lock(mutex_);
    // Once `reached` is on the stream the sequence number is spent: if the wait could not be
    // enqueued, the operation is abandoned and the poller only completes the handshake.
    Channel::Pending& pending = channel->queued.back();
    if (wait == hipSuccess) pending.op = std::move(op);
    pending.filled = true;
    ++queued_;
    EndSubmissionLocked(channel, false);
  }
  if (wait == hipSuccess) CountWay(write, AsyncWay::kWorker);
  wake_poller_.NotifyOne();
  return Status::FromGpu(wait);
}

void AsyncExecutor::HostFnTrampoline(void* arg) {
  std::unique_ptr<Ready> ready(static_cast<Ready*>(arg));
  Mutex done_mutex;
  CondVar done_cv;
  bool done = false;  // guarded by done_mutex
  AsyncExecutor* self = ready->self;
  Channel* channel = ready->channel;
  const uint32_t seq = ready->seq;
  AsyncOp* op = ready->op;
  // The stream has reached the operation: the host function runs.
  if (op->stamps != nullptr) op->stamps->t[AsyncStamps::kReached] = StampNow();
  if (ready->here) {
    self->Complete(channel, seq, std::unique_ptr<AsyncOp>(op));
    return;
  }
  // Run here when the task cannot be queued: the stream waits in this call until it completes.
  self->workers_->PostOrRun([&, self, channel, seq, op] {
    self->Complete(channel, seq, std::unique_ptr<AsyncOp>(op));
    MutexLock lock(done_mutex);
    done = true;
    done_cv.NotifyOne();
  });
  MutexLock lock(done_mutex);
  while (!done) done_cv.Wait(done_mutex);
}

void AsyncExecutor::Complete(Channel* channel, uint32_t seq, std::unique_ptr<AsyncOp> op) {
  std::shared_ptr<AsyncStamps> stamps = op ? op->stamps : nullptr;
  if (stamps != nullptr) stamps->t[AsyncStamps::kStarted] = StampNow();
  if (op) *op->bytes_p = RunBoundNoThrow(*op);
  if (stamps != nullptr) stamps->t[AsyncStamps::kIoDone] = StampNow();
  AdvanceWord(&channel->words[kDone], seq);
  // Run made its copies: nothing is copied after the release.
  if (stamps != nullptr) StampRelease(channel, stamps, 0, false);
  reap_->Reap(std::move(op));
  MutexLock lock(mutex_);
  if (--outstanding_ == 0) idle_.NotifyAll();
}

void AsyncExecutor::MarkBusyLocked(Channel* channel) {
  if (channel->busy) return;
  channel->busy = true;
  busy_.push_back(channel);
}

size_t AsyncExecutor::ChannelsRecycled() {
  MutexLock lock(mutex_);
  return recycled_;
}

size_t AsyncExecutor::Outstanding() {
  MutexLock lock(mutex_);
  return outstanding_;
}

void AsyncExecutor::WaitIdle() {
  MutexLock lock(mutex_);
  while (outstanding_ != 0) idle_.Wait(mutex_);
}

bool AsyncExecutor::RunIfIdle(const std::function<void()>& fn) {
  MutexLock lock(mutex_);  // Submit takes it too
  if (outstanding_ != 0) return false;
  fn();
  return true;
}

void AsyncExecutor::PollLoop(platform::Sys& sys) {
  // Back-off while operations wait for their streams: yield for the first rounds (latency of a
  // few microseconds), then sleep 20 us (tens of microseconds), then 200 us once nothing has
  // happened for about 100 ms. With nothing queued the poller sleeps on a condition variable.
  // The sleeps are Sys::Nap's, with 1 us of timer slack: under the default 50 us a "20 us" sleep
  // took about 70, and a stream-ordered operation waits for two of them (its stream reaching it,
  // then its copy).
  unsigned idle_rounds = 0;
  MutexLock lock(mutex_);
  for (;;) {
    if (queued_ == 0 && waiting_ == 0 && starved_.empty() && copy_watch_.empty() &&
        from_windows_pending_ == 0) {
      if (stopping_) return;
      while (!stopping_ && queued_ == 0 && waiting_ == 0 && starved_.empty() &&
             copy_watch_.empty() && from_windows_pending_ == 0) {
        wake_poller_.Wait(mutex_);
      }
      idle_rounds = 0;
      continue;
    }
    bool progressed = false;
    // A task the pool cannot queue (no memory) runs here, with mutex_ released; the channel walk
    // then starts again, since the channels may have changed meanwhile.
    bool ran_here = false;
    auto hand_over = [&](const auto& task) REQUIRES(mutex_) {
      if (workers_->TryPost(task)) return;
      {
        MutexUnlock unlocked(mutex_);
        task();
      }
      ran_here = true;
    };
    // Operations waiting for a staging block get the blocks handed back, in the order their
    // streams reached them.
    const auto start = [&](Channel* channel)
                           REQUIRES(mutex_) { hand_over([this, channel] { Step(channel); }); };
    if (!starved_.empty() && FeedStarvedLocked(start)) progressed = true;
    // Timing: released operations whose stream's last copy is now made.
    for (size_t i = 0; i < copy_watch_.size();) {
      CopyWatch& watch = copy_watch_[i];
      if (!Reached(LoadWord(watch.copied), watch.last)) {
        ++i;
        continue;
      }
      watch.stamps->t[AsyncStamps::kCopied] = StampNow();
      stage_stats_->Finish(watch.stamps);
      copy_watch_[i] = std::move(copy_watch_.back());
      copy_watch_.pop_back();
      progressed = true;
    }
    // Only the channels with something queued or waiting: with thousands of streams, walking
    // every channel each round took most of the poller's time.
    for (size_t i = 0; i < busy_.size() && !ran_here; ++i) {
      Channel* channel = busy_[i];
      // A staged operation moves on once its stream has copied what it waits for, or once its
      // submission failed part-way, so that the copy it waits for will never come.
      if (channel->waiting && (Reached(LoadWord(&channel->words[kCopied]), channel->trigger) ||
                               channel->active->Limits().error != hipSuccess)) {
        channel->waiting = false;
        --waiting_;
        progressed = true;
        hand_over([this, channel] { Step(channel); });
        if (ran_here) break;
      }
      if (!channel->from_windows.empty()) {
        const size_t before = from_windows_pending_;
        ReleaseFromWindowsLocked(channel);
        if (from_windows_pending_ != before) progressed = true;
      }
      if (channel->queued.empty()) continue;
      const uint32_t reached = LoadWord(&channel->words[kReached]);
      while (!ran_here && !channel->queued.empty() && channel->queued.front().filled &&
             Reached(reached, channel->queued.front().seq)) {
        Channel::Pending pending = std::move(channel->queued.front());
        channel->queued.pop_front();
        --queued_;
        progressed = true;
        const uint32_t seq = pending.seq;
        AsyncOp* const reached_op =
            pending.staged != nullptr ? pending.staged->op.get() : pending.op.get();
        if (reached_op != nullptr && reached_op->stamps != nullptr) {
          reached_op->stamps->t[AsyncStamps::kReached] = StampNow();
        }
        if (pending.staged != nullptr) {
          // The stream passed the previous operation's whole chain: none is active.
          channel->active = std::move(pending.staged);
          BindLocked(*channel->active);
          // It starts with the block reserved for it, or one no reserved operation counts on,
          // or queues behind those waiting for one.
          engine::StreamStagingBlock block;
          bool leased = false;
          if (channel->active->large) {
            --large_reserved_;
            // large_free_.size() > large_reserved_ before: one of them is this operation's.
            if (!large_free_.empty()) {
              block = large_free_.back();
              large_free_.pop_back();
              leased = true;
            }
          } else if (channel->active->reserved) {
            --reserved_;
            // free_blocks_.size() > reserved_ before: one of them is this operation's.
            if (!free_blocks_.empty()) {
              block = free_blocks_.back();
              free_blocks_.pop_back();
              leased = true;
            }
          } else if (starved_.empty()) {
            leased = TakeUnreservedLocked(&block);
          }
          if (leased) {
            channel->active->block = block;
            hand_over([this, channel] { Step(channel); });
          } else {
            starved_.push_back(channel);  // reserved at construction: one entry per channel
            ++staging_waits_;
            CountEvent(AsyncEvent::kStagingWait);
          }
        } else {
          AsyncOp* op = pending.op.release();
          hand_over(
              [this, channel, seq, op] { Complete(channel, seq, std::unique_ptr<AsyncOp>(op)); });
        }
      }
    }
    if (ran_here) continue;
    // Channels with nothing queued or waiting leave the list until they have again.
    busy_.erase(std::remove_if(busy_.begin(), busy_.end(),
                               [](Channel* channel) {
                                 if (!channel->queued.empty() || channel->waiting ||
                                     !channel->from_windows.empty()) {
                                   return false;
                                 }
                                 channel->busy = false;
                                 return true;
                               }),
                busy_.end());
    idle_rounds = progressed ? 0 : idle_rounds + 1;
    // A staged operation waiting for its stream's copy is near: its copy takes microseconds to
    // a millisecond, and the worker that moves it on waits for this loop.
    // So is a block that an operation waiting for one gets once its stream's last copy is made.
    if (waiting_ > 0 || !starved_.empty() || !copy_watch_.empty())
      idle_rounds = std::min(idle_rounds, 4999u);
    MutexUnlock unlocked(mutex_);
    if (idle_rounds < 64) {
      sched_yield();
    } else if (idle_rounds < 5000) {
      sys.Nap(std::chrono::microseconds(20));
    } else {
      sys.Nap(std::chrono::microseconds(200));
    }
  }
}

}  // namespace hipfile::core
