// SPDX-License-Identifier: MIT
// AsyncExecutor: operations whose work is decided at submission rather than when their stream
// gets there (docs/async.md, "Small reads at submission", "Operations on an idle stream" and
// "Reads copied from windows at submission"): small reads with fixed parameters whose bytes are
// cached take them then and queue one copy; small ones on an idle stream run at once on the
// submitting thread; reads whose parameters are known and whose bytes are all in pinned
// page-cache windows get their copies queued on the stream there and then.
#include <errno.h>
#include <hipfile.h>

#include <algorithm>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "core/async/async_channel.h"
#include "core/async/async_executor.h"
#include "util/align.h"
#include "util/errors.h"
#include "util/log.h"

namespace hipfile::core {

using namespace async_detail;  // NOLINT(google-build-using-namespace): this file's own words

namespace {

void StampAllAt(AsyncStamps* stamps, uint64_t now) {
  for (const auto point : {AsyncStamps::kReached, AsyncStamps::kStarted, AsyncStamps::kIoDone,
                           AsyncStamps::kReleased, AsyncStamps::kCopied}) {
    stamps->t[point] = now;
  }
}

}  // namespace

bool AsyncExecutor::StreamIdle(Channel* channel, runtime::Stream stream) {
  // The null stream's work waits for every blocking stream's: no cheap way to know it is idle.
  if (stream == nullptr) return false;
  {
    MutexLock lock(mutex_);
    // Every operation submitted to the stream before released it (its file I/O is done), and
    // none is still being queued (submit_mu, held here, orders them).
    if (!channel->queued.empty() || channel->active != nullptr ||
        LoadWord(&channel->words[kDone]) != channel->last_seq) {
      return false;
    }
  }
  // Nothing left to run on the stream: it would reach the operation at once. A stream whose work
  // waits for the legacy default stream's needs that one idle too, and that one is the current
  // device's: only asked on the stream's own device.
  if (channel->follows_legacy < 0) {
    unsigned flags = 0;
    channel->follows_legacy =
        NoThrow([&] { return gpu_.StreamGetFlags(stream, &flags); }) == hipSuccess &&
                (flags & hipStreamNonBlocking) != 0
            ? 0
            : 1;
  }
  if (NoThrow([&] { return gpu_.StreamQuery(stream); }) != hipSuccess) return false;
  if (channel->follows_legacy == 0) return true;
  int current = -1;
  return NoThrow([&] { return gpu_.GetDevice(&current); }) == hipSuccess &&
         current == channel->device &&
         NoThrow([&] { return gpu_.StreamQuery(nullptr); }) == hipSuccess;
}

bool AsyncExecutor::RunsAtOnce(Channel* channel, runtime::Stream stream, const AsyncOp& op) {
  const size_t limit = run_idle_bytes_.load(std::memory_order_relaxed);
  if (limit == 0 || op.submitted.size > limit) return false;
  return StreamIdle(channel, stream);
}

Status AsyncExecutor::RunAtOnce(Channel* channel, std::unique_ptr<AsyncOp> op) {
  // The stream is idle (RunsAtOnce): reaching the operation now is what it would do, so the
  // parameters are bound now and the bytes move on this thread, as hipFileRead / hipFileWrite
  // move them. Nothing is queued on the stream, whose later work finds the bytes in place.
  *op->bytes_p = RunBoundNoThrow(*op);
  EndedAtSubmission(channel, std::move(op), AsyncWay::kRunAtOnce, &AsyncExecutor::ran_at_once_);
  return Status::Ok();
}

void AsyncExecutor::EndedAtSubmission(Channel* channel, std::unique_ptr<AsyncOp> op, AsyncWay way,
                                      size_t AsyncExecutor::*count) {
  CountWay(op->work->Write(), way);
  const std::shared_ptr<AsyncStamps> stamps = op->stamps;
  op.reset();  // the work's references (file, buffer) are let go on this thread
  if (stamps != nullptr) {
    StampAllAt(stamps.get(), StampNow());
    stage_stats_->Finish(stamps);
  }
  MutexLock lock(mutex_);
  if (count != nullptr) ++(this->*count);
  EndUnnumberedLocked(channel);
}

void AsyncExecutor::EndUnnumberedLocked(Channel* channel) {
  --channel->submitters;
  if (--outstanding_ == 0) idle_.NotifyAll();
}

namespace {

// The submitting thread's ordinary memory for reads at submission: grown as needed, kept for the
// thread's life (at most the small-read limit, 64 KiB by default). Null when it cannot grow.
char* ThreadReadBuffer(size_t bytes) {
  thread_local std::unique_ptr<char[]> buffer;
  thread_local size_t size = 0;
  if (size < bytes) {
    buffer.reset(new (std::nothrow) char[bytes]);
    size = buffer != nullptr ? bytes : 0;
  }
  return buffer.get();
}

}  // namespace

void AsyncExecutor::ReclaimCached(Channel* channel) {
  const uint32_t passed = LoadWord(&channel->words[kMark]);
  while (!channel->cached_marked.empty() && Reached(passed, channel->cached_marked.front().mark)) {
    channel->cached_marked_bytes -= channel->cached_marked.front().bytes;
    channel->cached_marked.pop_front();
  }
}

void AsyncExecutor::MarkCached(Channel* channel, runtime::Stream stream) {
  const uint32_t mark = channel->last_mark + 1;
  try {
    channel->cached_marked.push_back(Channel::CachedMark{mark, channel->cached_unmarked});
  } catch (...) {
    channel->cached_broken = true;  // no memory to remember it: the bytes never count off
    return;
  }
  if (NoThrow([&] { return gpu_.StreamWriteValue32(stream, &channel->words[kMark], mark); }) !=
      hipSuccess) {
    channel->cached_marked.pop_back();
    channel->cached_broken = true;
    HF_LOG_LIMITED(kWarn,
                   "stream-ordered I/O: a stream refused a mark after reads taken at submission; "
                   "its later reads go the stream's way");
    return;
  }
  channel->last_mark = mark;
  channel->cached_marked_bytes += channel->cached_unmarked;
  channel->cached_unmarked = 0;
}

AsyncExecutor::Planned AsyncExecutor::PlanAtSubmission(Channel* channel,
                                                       std::unique_ptr<AsyncOp>& op,
                                                       StagedPlan* plan, Status* status) {
  // The copies are queued from this thread: only with the stream's device current (the runtime
  // takes a copy on another device's stream as an error, where the stream's way is fine).
  if (!OnStreamDevice(*channel)) return Planned::kNotNow;
  AsyncWork& work = *op->work;
  AsyncParams params;
  if (BindParams(*op, &params) != 0) return Planned::kNotNow;  // refused when the stream gets there
  Result<StagedPlan> planned = Status::Op(hipFileInternalError);
  try {
    planned = work.Begin(params);
  } catch (...) {
    work.Unbegin();
    return Planned::kNotNow;
  }
  if (!planned.ok()) {
    // Refused with the parameters the stream would bind (and recorded so): the operation ends
    // here, as one run at once.
    *op->bytes_p = work.Finish(planned.status());
    EndedAtSubmission(channel, std::move(op), AsyncWay::kCopiedAtSubmission, nullptr);
    *status = Status::Ok();
    return Planned::kEnded;
  }
  if (planned->size != params.size || planned->size == 0) {
    work.Unbegin();  // end of file, nothing to read: the stream's way, as before
    return Planned::kNotNow;
  }
  *plan = *planned;
  return Planned::kPlanned;
}

bool AsyncExecutor::ReadCachedAtSubmission(Channel* channel, runtime::Stream stream,
                                           std::unique_ptr<AsyncOp>& op, Status* status) {
  AsyncWork& work = *op->work;
  const size_t limit = std::min(run_idle_bytes_.load(std::memory_order_relaxed), kCachedMaxBytes);
  if (!read_at_submission_.load(std::memory_order_relaxed) || limit == 0 ||
      op->submitted.size > limit || op->submitted.size == 0 || !work.Staged() || work.Write() ||
      (op->fixed_flags & kAllFixed) != kAllFixed || channel->host_fn || channel->cached_broken) {
    return false;
  }
  // Within the stream's budget of bytes taken and not seen passed: past it the runtime may wait
  // for the stream, which may wait for something the caller does after this call.
  ReclaimCached(channel);
  if (channel->cached_marked_bytes + channel->cached_unmarked + op->submitted.size >
      kCachedBudget) {
    if (channel->cached_unmarked > 0) MarkCached(channel, stream);
    return false;
  }
  StagedPlan plan;
  const Planned planned = PlanAtSubmission(channel, op, &plan, status);
  if (planned != Planned::kPlanned) return planned == Planned::kEnded;
  char* bytes = ThreadReadBuffer(plan.size);
  Result<size_t> got = Status::Errno(EAGAIN);
  if (bytes != nullptr) {
    try {
      got = work.ReadCached(bytes, plan.size, plan.file_offset);
    } catch (...) {
      got = Status::Errno(ENOMEM);
    }
  }
  // All of it now, or none this way: bytes not cached, end of file, a write in flight, an error
  // (which the other ways meet again and report).
  if (!got.ok() || *got != plan.size) {
    work.Unbegin();
    return false;
  }
  // The stream copies them in its order: after its earlier work, before its later. The runtime
  // takes the bytes before it returns (an ordinary source), so the buffer is free at once.
  const hipError_t error = NoThrow([&] {
    return gpu_.MemcpyAsync(plan.device, bytes, plan.size, hipMemcpyHostToDevice, stream);
  });
  if (error != hipSuccess) {
    // Nothing is on the stream: the submission is refused whole.
    work.Unbegin();
    MutexLock lock(mutex_);
    EndUnnumberedLocked(channel);
    *status = Status::Gpu(error);
    return true;
  }
  channel->cached_unmarked += plan.size;
  if (channel->cached_unmarked >= kCachedMarkEvery) MarkCached(channel, stream);
  *op->bytes_p = work.Finish(plan.size);
  EndedAtSubmission(channel, std::move(op), AsyncWay::kReadAtSubmission,
                    &AsyncExecutor::cached_at_submission_);
  *status = Status::Ok();
  return true;
}

size_t AsyncExecutor::CachedAtSubmission() {
  MutexLock lock(mutex_);
  return cached_at_submission_;
}

size_t AsyncExecutor::RunMirrors() { return run_mirrors_.load(std::memory_order_relaxed); }

size_t AsyncExecutor::RanAtOnce() {
  MutexLock lock(mutex_);
  return ran_at_once_;
}

namespace {

// The pieces of the file's bytes [offset, offset + size) that pinned page-cache windows hold, in
// order, each with its lease: true when they cover every byte, false (and whatever was found
// appended) where a byte is not in one, or there was no memory for the lists.
bool WindowPieces(AsyncWork& work, off_t offset, size_t size, std::vector<WindowCopy>* pieces,
                  std::vector<std::shared_ptr<const void>>* leases) {
  try {
    size_t done = 0;
    while (done < size) {
      engine::ResidentPiece piece = work.Resident(offset + static_cast<off_t>(done), size - done);
      if (piece.src == nullptr || piece.bytes == 0) return false;
      pieces->push_back(WindowCopy{done, piece.src, piece.bytes});
      leases->push_back(std::move(piece.lease));
      done += piece.bytes;
    }
    return true;
  } catch (...) {
    return false;  // no memory for the lists: the stream's way
  }
}

// Cuts `copies` (pieces of a read, in order) where a part of `part` bytes ends, so that none
// crosses into the next part; false where there was no memory for the list (left as it was).
bool SplitAtParts(size_t part, std::vector<WindowCopy>* copies) {
  try {
    std::vector<WindowCopy> cut;
    cut.reserve(copies->size() + 1);
    for (const WindowCopy& c : *copies) {
      size_t done = 0;
      while (done < c.bytes) {
        const size_t at = c.at + done;
        const size_t n = std::min(c.bytes - done, part - at % part);
        cut.push_back(WindowCopy{at, static_cast<const char*>(c.src) + done, n});
        done += n;
      }
    }
    *copies = std::move(cut);
    return true;
  } catch (...) {
    return false;  // the read goes without a copy ahead
  }
}

}  // namespace

bool AsyncExecutor::OnStreamDevice(const Channel& channel) {
  int current = -1;
  return NoThrow([&] { return gpu_.GetDevice(&current); }) == hipSuccess &&
         current == channel.device;
}

bool AsyncExecutor::CopyAtSubmission(Channel* channel, runtime::Stream stream,
                                     std::unique_ptr<AsyncOp>& op, Status* status) {
  AsyncWork& work = *op->work;
  if (!copy_at_submission_.load(std::memory_order_relaxed) || !work.Staged() || work.Write() ||
      channel->host_fn) {
    return false;
  }
  {
    MutexLock lock(mutex_);
    if (channel->staged_broken) return false;
  }
  // The parameters are known now where the stream fixed them at registration, or where the
  // stream would reach the operation at once.
  if ((op->fixed_flags & kAllFixed) != kAllFixed && !StreamIdle(channel, stream)) return false;
  StagedPlan plan;
  const Planned planned = PlanAtSubmission(channel, op, &plan, status);
  if (planned != Planned::kPlanned) return planned == Planned::kEnded;
  // Every byte from a pinned window, or none this way.
  std::vector<WindowCopy> copies;
  std::vector<std::shared_ptr<const void>> leases;
  if (!WindowPieces(work, plan.file_offset, plan.size, &copies, &leases)) {
    work.Unbegin();
    return false;
  }
  // The sequence number the stream writes to `done` once its copies are made; the windows stay
  // leased until then (the poller lets them go). The entry is made first: nothing may fail for
  // want of memory once a copy is queued.
  // Held by address: entries of other reads (DeferLeases) may be added behind it meanwhile, and
  // nothing lets it go before it is filled (a deque's push_back keeps references valid).
  uint32_t seq = 0;
  Channel::FromWindows* mine = nullptr;
  {
    MutexLock lock(mutex_);
    try {
      channel->from_windows.push_back(Channel::FromWindows{kDone, 0, {}, /*filled=*/false});
    } catch (...) {
      work.Unbegin();
      return false;
    }
    mine = &channel->from_windows.back();
    seq = ++channel->last_seq;
    mine->until = seq;
  }
  hipError_t error = hipSuccess;
  size_t queued = 0;
  for (const WindowCopy& c : copies) {
    error = NoThrow([&] {
      return gpu_.MemcpyAsync(static_cast<char*>(plan.device) + c.at, c.src, c.bytes,
                              hipMemcpyHostToDevice, stream);
    });
    if (error != hipSuccess) break;
    ++queued;
  }
  if (error == hipSuccess) {
    error = NoThrow([&] { return gpu_.StreamWriteValue32(stream, &channel->words[kDone], seq); });
  }
  const std::shared_ptr<AsyncStamps> stamps = op->stamps;
  if (error == hipSuccess) *op->bytes_p = work.Finish(plan.size);
  MutexLock lock(mutex_);
  if (error != hipSuccess && queued == 0) {
    // Nothing is on the stream: the submission is refused whole (the operation goes with it).
    channel->EraseFromWindows(mine);  // its copies will not say when they are done
    EndSubmissionLocked(channel, true);
    *status = Status::Gpu(error);
    return true;
  }
  if (error != hipSuccess) {
    // Copies are queued that nothing will say are done: their windows stay leased until the
    // executor goes, and the channel takes no more staged operations (its `done` word will not
    // reach this one's number). The caller gets the error; *bytes_p stays 0.
    HF_LOG(kError,
           "stream-ordered I/O: queueing a read's copies from page-cache windows failed (%s); "
           "its windows stay pinned until the driver closes",
           GpuErrorName(error));
    channel->EraseFromWindows(mine);  // its copies will not say when they are done
    channel->staged_broken = true;
    StrandLeasesLocked(&leases);
    EndSubmissionLocked(channel, false);
    if (--outstanding_ == 0) idle_.NotifyAll();
    *status = Status::Gpu(error);
    return true;
  }
  mine->leases = std::move(leases);
  mine->filled = true;
  ++from_windows_pending_;
  ++copied_at_submission_;
  CountWay(false, AsyncWay::kCopiedAtSubmission);  // reads only
  MarkBusyLocked(channel);
  EndSubmissionLocked(channel, false);
  if (stamps != nullptr) StampAllAt(stamps.get(), StampNow());
  wake_poller_.NotifyOne();
  // The operation itself is done with: its work let go of the file and buffer in Finish.
  if (stamps != nullptr) stage_stats_->Finish(stamps);
  *status = Status::Ok();
  return true;
}

bool AsyncExecutor::PlanAhead(Channel* channel, AsyncOp& op, Ahead* ahead, unsigned streams) {
  AsyncWork& work = *op.work;
  // Without a budget the windows are still looked at where the copy runs want to know whether
  // they hold every byte (Ahead::in_windows).
  const bool budget = scratch_.Budget() > 0;
  const bool look = budget || copy_runs_.load(std::memory_order_relaxed) == AsyncCopyRuns::kWindows;
  if (!look || !MayCopyAhead(op) || channel->host_fn || !channel->copy_tables) {
    return false;
  }
  {
    MutexLock lock(mutex_);
    if (channel->staged_broken) return false;
  }
  // The copies are queued from this thread, into memory of the stream's device.
  if (!OnStreamDevice(*channel)) return false;
  // The values seen at submission: the stream binds its own when it gets there.
  Result<StagedPlan> planned = Status::Op(hipFileInternalError);
  try {
    planned = work.Look(op.submitted);
  } catch (...) {
    work.Unbegin();
    return false;
  }
  if (!planned.ok() || planned->size == 0) {
    work.Unbegin();
    return false;
  }
  const off_t first = planned->file_offset;
  const size_t bytes = planned->size;
  const auto skip = static_cast<size_t>(first & 4095);  // the file offset's place in its page
  // Every byte from a pinned window, or none copied ahead.
  if (!budget) {
    // Nothing to copy ahead: a look at the windows that counts no read of them (the worker's
    // will), so that a read once does not pin them sooner than a synchronous one would.
    bool all = false;
    try {
      all = work.AllPinned();
    } catch (...) {
      all = false;  // out of memory looking: a launch per token
    }
    work.Unbegin();
    ahead->in_windows = all;
    return false;
  }
  const bool whole = WindowPieces(work, first, bytes, &ahead->copies, &ahead->windows);
  work.Unbegin();
  if (!whole) {
    *ahead = Ahead();
    CountEvent(AsyncEvent::kAheadNotPinned);
    return false;
  }
  // On the stream, the copies into the region come only after the reads before it on the stream
  // copied out of it: the stream's last region serves while a read holds it and it is large
  // enough. On a companion they may come sooner (that is what it is for): a region of the read's
  // own.
  bool companion = ahead_stream_.load(std::memory_order_relaxed) && CompanionFor(channel);
  // The stream's region where it holds `want` bytes, or a new one (kept as the stream's);
  // `shared` false: a new one, the read's own.
  const auto region_of = [&](size_t want, bool shared) {
    std::shared_ptr<void> got;
    if (shared) {
      got = channel->ahead_region.lock();
      if (got != nullptr && channel->ahead_region_bytes < want) got = nullptr;
    }
    if (got == nullptr) {
      size_t region_bytes = 0;
      got = scratch_.Lease(channel->device, want, &region_bytes);
      if (got != nullptr && shared) {
        channel->ahead_region = got;
        channel->ahead_region_bytes = region_bytes;
      }
    }
    return got;
  };
  // Each stream that submitted lately a read that may be copied ahead gets a share of the budget
  // (streams of small reads or writes only take none): a read larger than it goes in parts that
  // fit it (where parts are on), so that every busy stream's reads are copied ahead rather than
  // the first streams' whole and none of the others' (16 streams of 16 MiB reads want twice
  // hipFile's default budget).
  size_t part = ahead_part_bytes_.load(std::memory_order_relaxed);
  // Where the device's copy kernel reads host memory about as fast as DMA (measured), the
  // windows' way, as with parts off: a read that would have gone in parts is asked for whole,
  // and without room for it goes from the windows (counted: ahead_windows_chosen).
  const bool windows_chosen = part > 0 && choose_ahead_way_.load(std::memory_order_relaxed) &&
                              AheadWayOf(channel->device) == AheadWay::kWindows;
  const uint64_t share = scratch_.Budget() / std::max(streams, 1u);
  bool over_share = false;
  if (part > 0 && skip + bytes > share) {
    const auto fits =
        static_cast<size_t>(AlignDown(share > skip ? share - skip : 0, kAheadPartUnit));
    const size_t capped = std::min(part, std::max(fits, kAheadPartUnit));
    if (bytes > capped) {
      part = capped;
      over_share = true;
    }
  }
  const bool would_part = over_share;
  if (windows_chosen) over_share = false;
  std::shared_ptr<void> region = over_share ? nullptr : region_of(skip + bytes, !companion);
  if (windows_chosen) {
    if (would_part || (region == nullptr && bytes > part)) {
      CountEvent(AsyncEvent::kAheadWindowsChosen);
    }
    part = 0;
  }
  // No room for the whole read (or more than its share): copied ahead in parts, one region's
  // worth at a time, where set. On a companion, into two slots of a part taken in turn (the
  // companion copies part p + 1 while the stream copies part p on), in the stream's region: the
  // companion copies only once the stream has reached the read, so the reads before it have
  // copied out of the region (QueueChain). Where there is no room for two slots, one, the copies
  // on the stream.
  size_t stride = 0;
  if (region == nullptr && part > 0 && bytes > part) {
    if (companion) {
      stride = AlignUp(skip + part, 4096);  // each slot's bytes at the page's place
      region = region_of(stride + skip + part, true);
      if (region == nullptr) stride = 0;
    }
    if (region == nullptr) {
      companion = false;
      region = region_of(skip + part, true);
    }
    if (region != nullptr && !SplitAtParts(part, &ahead->copies)) region = nullptr;
    if (region != nullptr) {
      ahead->part_bytes = part;
      ahead->slot_stride = stride;
    }
  }
  if (region == nullptr) {
    *ahead = Ahead();
    ahead->in_windows = true;
    CountEvent(AsyncEvent::kAheadNoRoom);
    return false;
  }
  ahead->in_windows = true;
  if (companion) {
    ahead->companion = channel->companion;
    ahead->done = channel->companion_done;
    ahead->freed[0] = channel->companion_freed[0];
    ahead->freed[1] = channel->companion_freed[1];
  }
  ahead->at = static_cast<unsigned char*>(region.get()) + skip;
  ahead->region = std::move(region);
  ahead->file_offset = first;
  ahead->bytes = bytes;
  return true;
}

bool AsyncExecutor::CompanionFor(Channel* channel) {
  if (channel->companion != nullptr && channel->companion_device == channel->device) return true;
  DropCompanion(channel);  // of the device of the stream the channel served before, if any
  // The submitting thread's device is the stream's (PlanAhead asked): both are made on it.
  runtime::Stream companion = nullptr;
  runtime::Event events[3] = {nullptr, nullptr, nullptr};  // done, freed[0], freed[1]
  hipError_t e = NoThrow([&] { return gpu_.StreamCreate(&companion, hipStreamNonBlocking); });
  size_t made = 0;
  while (e == hipSuccess && made < 3) {
    e = NoThrow([&] { return gpu_.EventCreate(&events[made], hipEventDisableTiming); });
    if (e == hipSuccess) ++made;
  }
  if (e != hipSuccess && companion != nullptr) {
    for (size_t i = 0; i < made; ++i) (void)NoThrow([&] { return gpu_.EventDestroy(events[i]); });
    (void)NoThrow([&] { return gpu_.StreamDestroy(companion); });
  }
  if (e != hipSuccess) {
    HF_LOG_LIMITED(kWarn,
                   "stream-ordered I/O: no companion stream for copies ahead (%s); they go on the "
                   "read's stream",
                   GpuErrorName(e));
    return false;
  }
  channel->companion = companion;
  channel->companion_done = events[0];
  channel->companion_freed[0] = events[1];
  channel->companion_freed[1] = events[2];
  channel->companion_device = channel->device;
  return true;
}

void AsyncExecutor::DropCompanion(Channel* channel) {
  // Copies still pending on it (a refused read's) finish after these calls return: both runtimes
  // release the stream and the event then.
  for (runtime::Event* event :
       {&channel->companion_done, &channel->companion_freed[0], &channel->companion_freed[1]}) {
    if (*event != nullptr) (void)NoThrow([&] { return gpu_.EventDestroy(*event); });
    *event = nullptr;
  }
  if (channel->companion != nullptr) {
    (void)NoThrow([&] { return gpu_.StreamDestroy(channel->companion); });
  }
  channel->companion = nullptr;
  channel->companion_device = -1;
}

size_t AsyncExecutor::AheadOnCompanion() {
  MutexLock lock(mutex_);
  return ahead_on_companion_;
}

runtime::Stream AsyncExecutor::CompanionOf(runtime::Stream stream) {
  const StreamKey key = KeyOf(stream);
  MutexLock lock(mutex_);
  const auto it = channels_.find(key);
  return it == channels_.end() ? nullptr : it->second->companion;
}

size_t AsyncExecutor::CopiedAhead() {
  MutexLock lock(mutex_);
  return copied_ahead_;
}

size_t AsyncExecutor::UsedAhead() {
  MutexLock lock(mutex_);
  return used_ahead_;
}

uint64_t AsyncExecutor::UsedAheadBytes() {
  MutexLock lock(mutex_);
  return used_ahead_bytes_;
}

size_t AsyncExecutor::AheadInParts() {
  MutexLock lock(mutex_);
  return ahead_in_parts_;
}

size_t AsyncExecutor::CopiedAtSubmission() {
  MutexLock lock(mutex_);
  return copied_at_submission_;
}

void AsyncExecutor::ReleaseFromWindowsLocked(Channel* channel) {
  // Front first. The stream passes the entries' points in its own order, which is not always the
  // list's (a read copied at submission is entered then, before a staged read ahead of it on the
  // stream has finished and entered its windows), but the front's point is reached no earlier
  // than any before it on the stream: `done` reaching a later read's number, or `copied` a later
  // token, means the stream passed the earlier ones. So none waits for ever. An entry not yet
  // filled (its submission is still queueing its copies) holds up those behind it.
  while (!channel->from_windows.empty() && channel->from_windows.front().filled &&
         Reached(LoadWord(&channel->words[channel->from_windows.front().word]),
                 channel->from_windows.front().until)) {
    // (No memory for the move: the leases go with the entry, here.)
    std::unique_ptr<std::vector<std::shared_ptr<const void>>> gone(
        new (std::nothrow) std::vector<std::shared_ptr<const void>>(
            std::move(channel->from_windows.front().leases)));
    channel->from_windows.pop_front();
    --from_windows_pending_;
    reap_->Reap(std::move(gone));
    if (--outstanding_ == 0) idle_.NotifyAll();
  }
}

}  // namespace hipfile::core
