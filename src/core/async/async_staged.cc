// SPDX-License-Identifier: MIT
// AsyncExecutor: staged operations, whose GPU copies run on their own stream (async_executor.h).
#include <hipfile.h>

#include <algorithm>
#include <utility>

#include "core/async/async_channel.h"
#include "core/async/async_executor.h"
#include "util/errors.h"
#include "util/exception_status.h"
#include "util/log.h"

namespace hipfile::core {

using namespace async_detail;  // NOLINT(google-build-using-namespace): this file's own words

bool AsyncExecutor::CanStage(const Channel& channel, const AsyncOp& op) {
  // Nothing to copy for an empty operation: the plain way is as good.
  return op.work->Staged() && op.submitted.size > 0 && !channel.host_fn && channel.copy_tables &&
         !channel.staged_broken;
}

bool AsyncExecutor::TablesLocked(Channel* channel) {
  // Pinned with mutex_ released: on CUDA, pinning waits while another thread frees memory, and
  // that waits for every stream - some of which wait for the poller, which needs mutex_.
  // (Pinning itself returns while streams wait: bench/results/h200-2026-11-30-pins.) Freeing
  // would wait for the streams, so tables and blocks stay with the executor for its life. The
  // channel keeps what the caller saw meanwhile: it has a submitter (submit_mu held), so it is
  // neither recycled nor idle.
  if (!channel->tables) {
    Result<engine::StreamCopyTables> tables = Status::Gpu(hipErrorOutOfMemory);
    {
      MutexUnlock unlocked(mutex_);
      tables = CatchToStatus("pinning a stream's copy tables",
                             [&] { return engine::StreamCopyTables::Pin(gpu_); });
    }
    if (!tables.ok()) {
      const Status why = tables.status();
      WarnNoStagingLocked("pinning a stream's copy tables failed",
                          why.kind() == Status::Kind::kGpu ? static_cast<hipError_t>(why.code())
                                                           : hipErrorOutOfMemory);
      return false;
    }
    channel->tables = *tables;
  }
  return true;
}

bool AsyncExecutor::StagingLocked(Channel* channel) {
  if (!TablesLocked(channel)) return false;
  // Blocks for the pool while it has fewer than the staged operations in flight need - this one
  // counted (it joins staged_in_flight_ once queued), those pinning theirs, the blocks still
  // draining - and one to spare, and is under its limit: this operation may not get those
  // blocks, but below the limit the pool has one for each operation in flight and one that no
  // reservation may take, so each submission finds one to reserve (SubmitStaged). Past the
  // limit, operations queue for the blocks there are. Until 2026-12-05 one block was pinned per
  // submission, which left the pool a block short for as long as operations stayed in flight:
  // every chain of a busy stream went alone (AsyncStagedTest.AStreamKeptBusyReservesFromItsFirst
  // Submission).
  for (;;) {
    ReapDrainedLocked();
    const size_t small_in_flight = staged_in_flight_ - large_in_flight_;
    const size_t small_draining = draining_.size() - large_draining_;
    const size_t needed = small_in_flight + 1 + pinning_ + small_draining + kSpareBlocks;
    if (needed <= staged_channels_ || staged_channels_ >= SmallBlockLimitLocked()) {
      if (staged_channels_ > 0) return true;
      WarnNoStagingLocked("the pinned staging limit leaves streams no block", hipSuccess);
      return false;
    }
    ++staged_channels_;  // reserved while it is pinned
    ++pinning_;
    Result<engine::StreamStagingBlock> block = Status::Gpu(hipErrorOutOfMemory);
    {
      MutexUnlock unlocked(mutex_);
      block = CatchToStatus("pinning a stream's staging",
                            [&] { return engine::StreamStagingBlock::Pin(gpu_); });
    }
    --pinning_;
    if (!block.ok()) {
      --staged_channels_;
      const Status why = block.status();
      // Operations queue for the blocks there are; with none at all they take the `run` way.
      if (staged_channels_ > 0) return true;
      WarnNoStagingLocked("pinning its staging failed", why.kind() == Status::Kind::kGpu
                                                            ? static_cast<hipError_t>(why.code())
                                                            : hipErrorOutOfMemory);
      return false;
    }
    try {
      // Room for every block in either list, so that handing one back never allocates.
      free_blocks_.reserve(staged_channels_);
      draining_.reserve(staged_channels_ + large_blocks_);
      free_blocks_.push_back(*block);
    } catch (...) {
      --staged_channels_;
      {
        MutexUnlock unlocked(mutex_);
        block->Free(gpu_);  // no operation has seen it: freeing waits for streams, not for it
      }
      return staged_channels_ > 0;
    }
  }
}

size_t AsyncExecutor::SmallBlockLimitLocked() const {
  const size_t limit = max_staged_channels_.load(std::memory_order_relaxed);
  const size_t large = large_blocks_ * kLargeBlockUnits;
  return limit > large ? limit - large : 0;
}

bool AsyncExecutor::DiskBound(AsyncOp& op) {
  const size_t from = large_from_.load(std::memory_order_relaxed);
  const size_t size = op.submitted.size;
  if (from == 0 || size >= from || size <= 2 * engine::kStreamChunkBytes || !op.work->Staged()) {
    return false;  // no large chunks, large anyway, too small to gain, not staged
  }
  // A write waits for the disk: in the synchronous path's chunks where it has two or more, so
  // that the stream's copy of one overlaps the write of the other (one chunk would not).
  if (op.work->Write()) return size > engine::kStreamLargeChunkBytes;
  try {
    return op.work->DiskBytes(op.submitted) > size / 2;
  } catch (...) {
    return false;  // out of memory looking: the small chunks
  }
}

bool AsyncExecutor::ReserveLargeLocked(size_t bytes, bool disk_bound) {
  // Operations of more than two small chunks (smaller ones gain nothing from larger chunks), and
  // of at least the setting's size or bound by the disk: a large block pinned while I/O runs
  // costs every stream's copies, which an operation waiting for the disk does not feel
  // (docs/async.md, "Large staging blocks").
  const size_t from = large_from_.load(std::memory_order_relaxed);
  if (from == 0 || bytes <= 2 * engine::kStreamChunkBytes || (bytes < from && !disk_bound)) {
    return false;
  }
  if (large_free_.size() <= large_reserved_) ReapDrainedLocked();
  if (large_free_.size() > large_reserved_) {
    ++large_reserved_;
    return true;
  }
  // A new one: at most half the pool's limit, and only where the small blocks leave room.
  const size_t limit = max_staged_channels_.load(std::memory_order_relaxed);
  const size_t after = (large_blocks_ + 1) * kLargeBlockUnits;
  if (after > limit / 2 || staged_channels_ + after > limit) return false;
  ++large_blocks_;  // counted while it is pinned
  Result<engine::StreamStagingBlock> block = Status::Gpu(hipErrorOutOfMemory);
  {
    // As StagingLocked: pinning waits while another thread frees memory.
    MutexUnlock unlocked(mutex_);
    block = CatchToStatus("pinning a large staging block", [&] {
      return engine::StreamStagingBlock::Pin(gpu_, engine::kStreamLargeChunkBytes);
    });
  }
  if (!block.ok()) {
    --large_blocks_;  // the operation takes the small blocks
    return false;
  }
  try {
    // Room for every block in either list, so that handing one back never allocates.
    large_free_.reserve(large_blocks_);
    draining_.reserve(staged_channels_ + large_blocks_);
    large_free_.push_back(*block);
  } catch (...) {
    --large_blocks_;
    MutexUnlock unlocked(mutex_);
    block->Free(gpu_);  // no operation has seen it: freeing waits for streams, not for this one
    return false;
  }
  ++large_reserved_;
  return true;
}

void AsyncExecutor::ReapDrainedLocked() {
  for (size_t i = 0; i < draining_.size();) {
    if (!Reached(LoadWord(draining_[i].copied), draining_[i].last)) {
      ++i;
      continue;
    }
    // Room made when it was pinned: no throw.
    if (draining_[i].block.large()) {
      large_free_.push_back(draining_[i].block);
      --large_draining_;
    } else {
      free_blocks_.push_back(draining_[i].block);
    }
    draining_[i] = draining_.back();
    draining_.pop_back();
  }
}

bool AsyncExecutor::TakeUnreservedLocked(engine::StreamStagingBlock* block) {
  if (free_blocks_.size() <= reserved_) ReapDrainedLocked();
  if (free_blocks_.size() <= reserved_) return false;
  *block = free_blocks_.back();
  free_blocks_.pop_back();
  return true;
}

bool AsyncExecutor::FeedStarvedLocked(const std::function<void(Channel*)>& start) {
  bool fed = false;
  engine::StreamStagingBlock block;
  while (!starved_.empty() && TakeUnreservedLocked(&block)) {
    Channel* channel = starved_.front();
    starved_.erase(starved_.begin());
    channel->active->block = block;
    fed = true;
    start(channel);
  }
  return fed;
}

void AsyncExecutor::ReleaseBlockLocked(Channel* channel, engine::StreamStagingBlock block,
                                       uint32_t last) {
  if (!block) return;
  // Room was made when it was pinned (StagingLocked, ReserveLargeLocked): this does not throw.
  draining_.push_back(Draining{block, &channel->words[kCopied], last});
  if (block.large()) ++large_draining_;
}

void AsyncExecutor::WarnNoStagingLocked(const char* why_not, hipError_t error) {
  if (warned_staging_) return;
  warned_staging_ = true;
  HF_LOG(kWarn,
         "stream-ordered I/O: %s (%s); operations on device memory take the engine's streams, "
         "which can deadlock with many streams (docs/async.md)",
         why_not, error != hipSuccess ? GpuErrorName(error) : "limit reached");
}

Status AsyncExecutor::SubmitStaged(Channel* channel, runtime::Stream stream, Staged* chain,
                                   uint32_t seq, uint32_t first, size_t chunks) {
  // Reserved a block, or queued alone (header). The choice is made with chain_mu_ held shared:
  // one queued alone then takes it exclusively only once every chain reserved before its choice
  // is on its stream whole, and none is reserved from its choice until it finishes.
  // A large block was reserved already (SubmitOrdered): queued side by side, whatever else is in
  // flight (header comment).
  const bool large = chain->large;  // nothing is on the stream: the poller has not taken it
  const bool write = chain->op->work->Write();
  ssize_t* const bytes_p = chain->op->bytes_p;  // the caller's, valid until this call returns
  // Copied ahead in parts: the windows the parts' copies read, and the region they go to, stay
  // the channel's until the stream has written `copied` after the last part's copies (an entry
  // made now: nothing may fail for want of memory once a copy is queued).
  std::vector<std::shared_ptr<const void>> part_leases;
  void* parts_entry = nullptr;
  if (chain->ahead.part_bytes > 0 && !PartsEntry(channel, chain, &part_leases, &parts_entry)) {
    // No memory for it: the read goes without a copy ahead, as one run.
    chain->ahead = Ahead{};
    chain->ahead.in_windows = true;
    chain->data.run_bytes = 0;
  }
  // One launch for all its tokens (CopyTableRunAsync): a read copied ahead, one whose bytes were
  // all in pinned windows at submission, or any read (HIPFILE_ASYNC_COPY_RUNS).
  const AsyncCopyRuns runs = copy_runs_.load(std::memory_order_relaxed);
  const bool ahead = !chain->ahead.copies.empty();
  const bool run =
      !write && (runs == AsyncCopyRuns::kReads ||
                 (runs == AsyncCopyRuns::kWindows && (ahead || chain->ahead.in_windows)) ||
                 (runs == AsyncCopyRuns::kAhead && ahead));
  // Its first table read from device memory (made here once per channel and device: nothing of
  // the chain is on the stream yet, and no lock is held that the streams' progress needs).
  runtime::CopyTable* const mirror =
      run && run_table_on_device_.load(std::memory_order_relaxed) ? MirrorFor(channel) : nullptr;
  // In parts, the parts' copies are queued after `write reached`, by when the chain is the
  // poller's: its worker may finish it, and the reaper destroy it, before the last part's copies
  // are queued. So what queueing them reads is this call's own (the copies are read by the
  // submission only; moving them allocates nothing, and copying the rest neither: the windows
  // went to the entry, so both lists are empty when copied).
  Ahead parts;
  if (parts_entry != nullptr) {
    std::vector<WindowCopy> copies = std::move(chain->ahead.copies);
    parts = chain->ahead;
    parts.copies = std::move(copies);
    parts.region.reset();  // leased by the entry, not by this call
  }
  const Ahead& queue_ahead = parts_entry != nullptr ? parts : chain->ahead;
  const size_t part_tokens = parts.part_bytes / chain->data.chunk_bytes;
  bool reserved = false;
  chain_mu_.LockShared();
  if (!large) {
    MutexLock lock(mutex_);
    if (exclusive_in_flight_ == 0) {
      if (free_blocks_.size() <= reserved_) ReapDrainedLocked();
      // Never the pool's last block that no reservation counts on (kSpareBlocks): a stream the
      // program holds back keeps its reservation, and an operation queued alone must find a
      // block that comes back without the program.
      const size_t pinned = staged_channels_ - pinning_;
      reserved = free_blocks_.size() > reserved_ && reserved_ + kSpareBlocks < pinned;
    }
    if (reserved) {
      ++reserved_;
    } else {
      ++exclusive_in_flight_;
      ++exclusive_chains_;
    }
    chain->reserved = reserved;
  }
  Queued queued;
  // (chain->ahead is read before `write reached` only: the poller takes the chain after it.)
  const bool on_companion = chain->ahead.companion != nullptr;
  if (reserved || large) {
    queued = QueueChain(channel, stream, seq, first, chunks, queue_ahead, run, mirror, part_tokens);
    chain_mu_.UnlockShared();
  } else {
    chain_mu_.UnlockShared();
    chain_mu_.Lock();
    queued = QueueChain(channel, stream, seq, first, chunks, queue_ahead, run, mirror, part_tokens);
    chain_mu_.Unlock();
  }
  const hipError_t e = queued.error;
  if (parts_entry != nullptr) {
    MutexLock lock(mutex_);
    EndPartsEntryLocked(channel, parts_entry, queued, &part_leases);
  }
  if (!queued.reached) {
    Channel::Pending refused;
    {
      // Nothing is on the stream, so the poller has not taken the entry: the stream never
      // reached it.
      MutexLock lock(mutex_);
      refused = std::move(channel->queued.back());
      channel->queued.pop_back();
      if (queued.ahead > 0) StrandAheadLocked(refused.staged->ahead);
      --queued_;
      channel->last_token = first - 1;
      --staged_in_flight_;
      if (large) {
        --large_reserved_;
        --large_in_flight_;
      } else if (reserved) {
        --reserved_;
      } else {
        --exclusive_in_flight_;
      }
      EndSubmissionLocked(channel, true);
    }
    if (reserved) wake_poller_.NotifyOne();  // its block may go to an operation waiting for one
    return Status::Gpu(e);                   // the operation is destroyed here, without mutex_
  }
  const size_t waits = queued.waits;
  const size_t copies = queued.copies;
  const uint32_t written = queued.written;
  {
    MutexLock lock(mutex_);
    if (e != hipSuccess) {
      // Part of the chain is on the stream. The operation fails: its worker moves no more bytes,
      // lets the stream through what it has with nothing to copy, and no longer touches the
      // caller's variables (this call returns the error). The channel takes no more staged
      // operations: its tokens no longer line up.
      channel->staged_broken = true;
      channel->last_token = written;
      StrandPastLastTokenLocked(channel);
      // The operation is still queued or active (its stream has no `wait done` to let it finish
      // ahead of this), or finished already and gone.
      Staged* s = channel->active != nullptr && channel->active->seq == seq ? channel->active.get()
                                                                            : nullptr;
      for (auto it = channel->queued.rbegin(); s == nullptr && it != channel->queued.rend(); ++it) {
        if (it->seq == seq && it->staged != nullptr) s = it->staged.get();
      }
      if (s != nullptr) {
        s->waits_queued.store(waits, std::memory_order_relaxed);
        s->copies_queued.store(copies, std::memory_order_relaxed);
        s->queue_error.store(e, std::memory_order_release);
      } else {
        // Finished before this step failed (its bytes fitted what was queued, so nothing waited
        // for the rest), and its worker set *bytes_p under mutex_, seeing no error yet: this call
        // returns the error, so the caller's variable is what a refused submission leaves, 0.
        *bytes_p = 0;
      }
      HF_LOG(kError, "stream-ordered I/O: queueing a staged operation failed (%s); it is dropped",
             GpuErrorName(e));
    } else {
      const bool copied_ahead = queued.ahead > 0 || queued.parts > 0;
      CountStagedLocked(write, large, !reserved && !large, copied_ahead,
                        copied_ahead && on_companion, queued.one_launch);
      if (queued.parts > 0) {
        ++ahead_in_parts_;
        CountEvent(AsyncEvent::kAheadInParts);
      }
    }
    EndSubmissionLocked(channel, false);
  }
  wake_poller_.NotifyOne();
  return Status::FromGpu(e);
}

bool AsyncExecutor::PartsEntry(Channel* channel, Staged* chain,
                               std::vector<std::shared_ptr<const void>>* leases, void** entry) {
  try {
    leases->reserve(chain->ahead.windows.size() + 1);
    for (auto& window : chain->ahead.windows) leases->push_back(std::move(window));
    leases->push_back(chain->ahead.region);
  } catch (...) {
    return false;
  }
  chain->ahead.windows.clear();  // the worker finds none to let go at `reached`
  MutexLock lock(mutex_);
  try {
    channel->from_windows.push_back(Channel::FromWindows{kCopied, 0, {}, /*filled=*/false});
  } catch (...) {
    return false;
  }
  // Held by address: a deque's push_back keeps references valid, and nothing but
  // EndPartsEntryLocked lets it go before it is filled.
  *entry = &channel->from_windows.back();
  return true;
}

void AsyncExecutor::EndPartsEntryLocked(Channel* channel, void* entry, const Queued& queued,
                                        std::vector<std::shared_ptr<const void>>* leases) {
  // Made by PartsEntry, let go only here or by the poller once filled.
  auto* mine = static_cast<Channel::FromWindows*>(entry);
  if (queued.part_unseen) {
    // Copies are on the stream that no `write copied` follows: nothing says when they are done.
    // As a refused read's copies ahead: the region is never leased again, the windows stay
    // leased until the executor goes (the channel takes no more staged operations).
    HF_LOG(kError,
           "stream-ordered I/O: queueing a read copied ahead in parts failed (%s); its windows "
           "stay pinned until the driver closes",
           GpuErrorName(queued.error));
    Ahead stranded;
    stranded.region = std::const_pointer_cast<void>(leases->back());
    leases->pop_back();
    stranded.windows = std::move(*leases);
    StrandAheadLocked(stranded);
  }
  if (queued.parts == 0 || queued.part_unseen) {
    // Nothing to wait for (what the leases hold goes when this call's caller returns), or kept.
    channel->EraseFromWindows(mine);
    return;
  }
  // The last part's copies precede the last `write copied` on the stream.
  mine->until = queued.written;
  mine->leases = std::move(*leases);
  mine->filled = true;
  ++from_windows_pending_;
  ++outstanding_;  // until the poller lets them go
  MarkBusyLocked(channel);
  wake_poller_.NotifyOne();
}

AsyncExecutor::Queued AsyncExecutor::QueueChain(Channel* channel, runtime::Stream stream,
                                                uint32_t seq, uint32_t first, size_t chunks,
                                                const Ahead& ahead, bool run,
                                                runtime::CopyTable* mirror, size_t part_tokens) {
  Queued q;
  q.written = first - 1;
  // Where `ahead` is the chain's (not in parts) it may be gone once `write reached` is queued:
  // the poller may take the chain, finish it and let the reaper destroy it.
  const size_t per = ahead.part_bytes > 0 ? part_tokens : 0;
  // Copies ahead first: once the stream has written `reached` it is past them, and the worker
  // (which starts then) may copy on from them or let their windows go. On a companion, the
  // stream waits for the event it records after them.
  const runtime::Stream copies_on = ahead.companion != nullptr ? ahead.companion : stream;
  // (In parts, each part's copies come later: below.)
  const size_t before_reached = ahead.part_bytes > 0 ? 0 : ahead.copies.size();
  for (size_t i = 0; i < before_reached; ++i) {
    const WindowCopy& copy = ahead.copies[i];
    q.error = NoThrow([&] {
      return gpu_.MemcpyAsync(ahead.at + copy.at, copy.src, copy.bytes, hipMemcpyHostToDevice,
                              copies_on);
    });
    if (q.error != hipSuccess) return q;
    ++q.ahead;
  }
  if (ahead.companion != nullptr && q.ahead > 0) {
    q.error = NoThrow([&] { return gpu_.EventRecord(ahead.done, ahead.companion); });
    if (q.error != hipSuccess) return q;
    q.error = NoThrow([&] { return gpu_.StreamWaitEvent(stream, ahead.done, 0); });
    if (q.error != hipSuccess) return q;
  }
  q.error =
      NoThrow([&] { return gpu_.StreamWriteValue32(stream, &channel->words[kReached], seq); });
  if (q.error != hipSuccess) return q;
  q.reached = true;
  // In parts: a part's copies into the region come after the launches that copied the part
  // before out of it, and before the wait for the part's first token (whose table copies on from
  // the region). (`per` was read before `write reached`: past it, `ahead` is read only in parts,
  // where it is the submission's own.) On a companion, into two slots taken in turn: the
  // companion copies part p once the stream has passed `write reached` (parts 0 and 1: the reads
  // before this one are done with the region) or the launch that copied part p - 2 out of the
  // slot (`freed`), and records `done`, which the stream waits for before the part's tokens.
  const bool two_slots = per > 0 && ahead.companion != nullptr && ahead.slot_stride > 0;
  const runtime::Stream parts_on = two_slots ? ahead.companion : stream;
  // After the launch that copied the part ending at chunk k out of its slot.
  const auto end_part = [&](size_t k) {
    if (!two_slots || !((k + 1) % per == 0 || k + 1 == chunks)) return hipSuccess;
    return NoThrow([&] { return gpu_.EventRecord(ahead.freed[(k / per) % 2], stream); });
  };
  for (size_t k = 0; k < chunks; ++k) {
    const uint32_t token = first + static_cast<uint32_t>(k);
    const bool part_starts = per > 0 && k % per == 0;
    if (part_starts) {
      const size_t p = k / per;
      const size_t from = p * ahead.part_bytes;
      if (two_slots) {
        q.error = NoThrow([&] {
          if (p >= 2) return gpu_.StreamWaitEvent(parts_on, ahead.freed[p % 2], 0);
          if (p == 1) return hipSuccess;  // behind part 0's wait
          const hipError_t recorded = gpu_.EventRecord(ahead.done, stream);
          return recorded != hipSuccess ? recorded : gpu_.StreamWaitEvent(parts_on, ahead.done, 0);
        });
        if (q.error != hipSuccess) return q;
      }
      for (const WindowCopy& copy : ahead.copies) {
        if (copy.at < from || copy.at - from >= ahead.part_bytes) continue;
        q.error = NoThrow([&] {
          return gpu_.MemcpyAsync(ahead.PartAt(p) + (copy.at - from), copy.src, copy.bytes,
                                  hipMemcpyHostToDevice, parts_on);
        });
        if (q.error != hipSuccess) return q;
        q.part_unseen = true;
      }
      if (two_slots) {
        q.error = NoThrow([&] {
          const hipError_t recorded = gpu_.EventRecord(ahead.done, parts_on);
          return recorded != hipSuccess ? recorded : gpu_.StreamWaitEvent(stream, ahead.done, 0);
        });
        if (q.error != hipSuccess) return q;
      }
      ++q.parts;
    }
    q.error =
        NoThrow([&] { return gpu_.StreamWaitValue32(stream, &channel->words[kReady], token); });
    if (q.error != hipSuccess) return q;
    q.waits = k + 1;
    if (run && (k == 0 || part_starts)) {
      // One launch for all its tokens (a read copied ahead, by default), which copies the first
      // table with the whole grid where the read's copies end there (the read copied on from
      // device memory, as it nearly always is) - where each token's launch cost its stream
      // ~100 us, copying nothing (bench/results/h100-2026-12-05-b) - and otherwise takes the
      // tokens one by one (GpuRuntime::CopyTableRunAsync). Per token where the runtime cannot.
      // In parts, a launch a part.
      const size_t end = per > 0 ? std::min(chunks, k + per) : chunks;
      const uint32_t last = first + static_cast<uint32_t>(end) - 1;
      q.error = NoThrow([&] {
        return gpu_.CopyTableRunAsync(channel->tables.Table(0), token, last,
                                      &channel->words[kReady], &channel->words[kCopied], mirror,
                                      stream);
      });
      if (q.error == hipSuccess) {
        q.one_launch = true;
        q.waits = end;  // the launch waits for the others itself
        q.error = NoThrow(
            [&] { return gpu_.StreamWriteValue32(stream, &channel->words[kCopied], last); });
        if (q.error != hipSuccess) return q;
        q.copies = end;
        q.written = last;
        q.part_unseen = false;
        k = end - 1;
        q.error = end_part(k);
        if (q.error != hipSuccess) return q;
        continue;
      }
      if (q.error != hipErrorNotSupported) return q;
    }
    q.error =
        NoThrow([&] { return gpu_.CopyTableAsync(channel->tables.Table(token), token, stream); });
    if (q.error != hipSuccess) return q;
    q.error =
        NoThrow([&] { return gpu_.StreamWriteValue32(stream, &channel->words[kCopied], token); });
    if (q.error != hipSuccess) return q;
    q.copies = k + 1;
    q.written = token;
    q.part_unseen = false;
    q.error = end_part(k);
    if (q.error != hipSuccess) return q;
  }
  q.error = NoThrow([&] { return gpu_.StreamWaitValue32(stream, &channel->words[kDone], seq); });
  return q;
}

void AsyncExecutor::StrandAheadLocked(Ahead& ahead) {
  // Copies ahead on the stream that no `reached` follows: nothing says when they are done. Their
  // region must never take another read's copies (a late copy would land in that read's bytes):
  // retired, which allocates nothing. Their windows stay leased until the executor goes.
  scratch_.Retire(ahead.region);
  ahead.region.reset();
  StrandLeasesLocked(&ahead.windows);
}

void AsyncExecutor::StrandLeasesLocked(std::vector<std::shared_ptr<const void>>* leases) {
  try {
    stranded_leases_.reserve(stranded_leases_.size() + leases->size());
  } catch (...) {
    // No memory to keep them: a window let go may be unpinned while a copy from it is pending,
    // and unpinning waits for the stream's copies on CUDA (a driver call had just failed, often
    // for want of memory too).
    HF_LOG(kError,
           "stream-ordered I/O: no memory to keep a failed read's page-cache windows leased; "
           "unpinning them may wait for the stream");
    leases->clear();
    return;
  }
  for (auto& lease : *leases) stranded_leases_.push_back(std::move(lease));
  leases->clear();
}

void AsyncExecutor::StrandPastLastTokenLocked(Channel* channel) {
  for (Channel::FromWindows& entry : channel->from_windows) {
    if (entry.word != kCopied || !entry.filled || Reached(channel->last_token, entry.until)) {
      continue;
    }
    HF_LOG(kError,
           "stream-ordered I/O: a failed read's copies from page-cache windows may still be on "
           "the stream; its windows stay pinned until the driver closes");
    StrandLeasesLocked(&entry.leases);
    entry.until = channel->last_token;
  }
}

void AsyncExecutor::BindLocked(Staged& s) {
  if (s.Limits().error != hipSuccess) return;
  s.refused = BindParams(*s.op, &s.params);
  s.bound = true;
}

void AsyncExecutor::Step(Channel* channel) {
  Staged& s = *channel->active;
  AsyncWork& io = *s.op->work;
  engine::StagedChunks& data = s.data;
  // What of the chain is on the stream, as the submission last said (Staged::Limits).
  const ChainLimits limits = s.Limits();
  if (!s.started) {
    s.started = true;
    // The stream wrote `reached` after its copies ahead: their windows may go.
    s.ahead.windows.clear();
    if (s.op->stamps != nullptr) s.op->stamps->t[AsyncStamps::kStarted] = StampNow();
    if (!s.bound) {
      data.stopped = true;  // failed before it began: nothing moves
    } else if (s.refused != 0) {
      data.error = Status::Op(static_cast<hipFileOpError_t>(-s.refused));
      data.stopped = true;
    } else {
      Result<StagedPlan> plan =
          CatchToStatus("stream-ordered operation", [&] { return io.Begin(s.params); });
      if (plan.ok()) {
        data.device = plan->device;
        data.size = plan->size;
        data.file_offset = plan->file_offset;
      } else {
        data.error = plan.status();
        data.stopped = true;
      }
    }
  }
  if (limits.error != hipSuccess) {  // no more bytes move, and the operation fails
    data.stopped = true;
    if (data.error.ok()) data.error = Status::Gpu(limits.error);
  }
  // The engine moves the bytes through the work's Move; what it throws ends the chunk.
  const engine::ChunkMover move = [&io](void* staging, size_t bytes, off_t at) {
    return CatchToStatus("stream-ordered transfer", [&] { return io.Move(staging, bytes, at); });
  };
  uint32_t* const ready = &channel->words[kReady];
  if (!io.Write()) {
    // Resident bytes the stream copies from pinned page-cache windows; nothing (and no staging)
    // is held up by what this throws.
    // Bytes the stream copied ahead come from there (device memory: the fastest copy).
    // In parts, the region holds the part of the chunk being filled when the stream copies it.
    const engine::WindowFinder windows = [&io, &s](off_t at, size_t max) {
      const size_t part =
          s.ahead.part_bytes > 0 ? s.data.released * s.data.chunk_bytes / s.ahead.part_bytes : 0;
      engine::ResidentPiece ahead = s.ahead.At(at, max, part);
      if (ahead.src != nullptr) {
        s.used_ahead = true;
        s.ahead_bytes += ahead.bytes;
        io.CopiedAhead(ahead.bytes);
        return ahead;
      }
      // A window's piece stops where the copy ahead starts, so that the copy serves from there.
      const off_t start = s.ahead.PartStart(part);
      if (s.ahead.region != nullptr && at < start) {
        max = std::min(max, static_cast<size_t>(start - at));
      }
      try {
        return io.Resident(at, max);
      } catch (...) {
        return engine::ResidentPiece{};
      }
    };
    // Fill each slot once the stream has copied out of it, and let the stream copy it; a chunk
    // that copies nothing, from a table that says so already, goes at once.
    for (; data.released < limits.waits; ++data.released) {
      const uint32_t free_at = data.Token(data.released) - 2;  // the token that used the slot last
      if (!data.Quiet(channel->tables, data.released) &&
          !Reached(LoadWord(&channel->words[kCopied]), free_at)) {
        WaitForCopied(channel, free_at);
        return;
      }
      data.FillForRead(s.block, channel->tables, ready, data.released, move, windows);
    }
    // The windows stay leased until the stream has copied from them, counted as outstanding, so
    // nothing unpins them (RunIfIdle); the channel holds them from here (DeferLeases), and the
    // operation releases its stream at once: its copies are ahead of its `wait done` there.
    // Copies that were never queued (the chain failed part-way) read nothing.
    if (data.Leased() && limits.copies > 0) {
      const size_t last = std::min<size_t>(data.leased_until - data.first_token, limits.copies - 1);
      const uint32_t token = data.Token(last);
      if (!Reached(LoadWord(&channel->words[kCopied]), token) && !DeferLeases(channel, token)) {
        WaitForCopied(channel, token);
        return;
      }
    }
    FinishStaged(channel);
    return;
  }
  // Writes: keep the stream two chunks ahead; write each slot out once the stream filled it.
  for (;;) {
    // Chunk k + 2 reuses chunk k's slot, which was written out already.
    for (; data.released < limits.waits && data.released < data.written + 2; ++data.released) {
      data.ReleaseForWrite(s.block, channel->tables, ready, data.released);
    }
    if (data.written >= limits.copies) break;
    const uint32_t token = data.Token(data.written);
    if (!Reached(LoadWord(&channel->words[kCopied]), token)) {
      WaitForCopied(channel, token);
      return;
    }
    data.WriteOut(s.block, move);
  }
  FinishStaged(channel);
}

runtime::CopyTable* AsyncExecutor::MirrorFor(Channel* channel) {
  for (const Channel::Mirror& m : channel->mirrors) {
    if (m.device == channel->device) return m.tables;
  }
  // Made on the submitting thread's device, which must be the stream's.
  if (!OnStreamDevice(*channel)) return nullptr;
  try {
    channel->mirrors.reserve(channel->mirrors.size() + 1);  // so that keeping it cannot throw
  } catch (...) {
    return nullptr;
  }
  void* memory = nullptr;
  const hipError_t e =
      NoThrow([&] { return gpu_.Malloc(&memory, 2 * sizeof(runtime::CopyTable)); });
  if (e != hipSuccess) {
    memory = nullptr;
    HF_LOG_LIMITED(kWarn,
                   "stream-ordered I/O: no device memory for a stream's run tables (%s); its "
                   "launches read their first table from host memory",
                   GpuErrorName(e));
  } else {
    run_mirrors_.fetch_add(1, std::memory_order_relaxed);
  }
  channel->mirrors.push_back(
      Channel::Mirror{channel->device, static_cast<runtime::CopyTable*>(memory)});
  return static_cast<runtime::CopyTable*>(memory);
}

void AsyncExecutor::WaitForCopied(Channel* channel, uint32_t token) {
  {
    MutexLock lock(mutex_);
    channel->trigger = token;
    channel->waiting = true;
    MarkBusyLocked(channel);
    ++waiting_;
  }
  wake_poller_.NotifyOne();
}

bool AsyncExecutor::DeferLeases(Channel* channel, uint32_t until) {
  std::vector<std::shared_ptr<const void>>& leases = channel->active->data.leases;
  {
    MutexLock lock(mutex_);
    try {
      channel->from_windows.push_back(Channel::FromWindows{kCopied, until, {}});
    } catch (...) {
      return false;
    }
    channel->from_windows.back().leases = std::move(leases);
    ++from_windows_pending_;
    ++deferred_leases_;
    ++outstanding_;  // until the poller lets them go
    MarkBusyLocked(channel);
    // The chain failed after this worker read its limits: `copied` may never reach `until`.
    if (channel->active->queue_error.load(std::memory_order_relaxed) != hipSuccess) {
      StrandPastLastTokenLocked(channel);
    }
  }
  leases.clear();  // moved from: empty, in a state the standard leaves open
  wake_poller_.NotifyOne();
  return true;
}

void AsyncExecutor::FinishStaged(Channel* channel) {
  Staged& s = *channel->active;
  std::shared_ptr<AsyncStamps> stamps = s.op->stamps;
  if (stamps != nullptr) stamps->t[AsyncStamps::kIoDone] = StampNow();
  const Result<size_t> outcome = s.data.Outcome();
  // Windows left here the stream has copied from (Step waited for it; where it did not, the
  // channel holds them: DeferLeases): let them go before the operation stops counting as in
  // flight, so that nothing counts them held after that.
  s.data.leases.clear();
  s.ahead.region.reset();  // where a table copies from it, data.leases held it until then
  ssize_t result = 0;
  try {
    result = s.op->work->Finish(outcome);
  } catch (...) {
    result = CaughtResult();
  }
  std::unique_ptr<Staged> finished;
  bool feed = false;
  bool whole = false;  // the chain is on the stream: its last copy comes
  uint32_t last_copy = 0;
  {
    MutexLock lock(mutex_);
    // A submission that failed part-way returned its error: the caller's variable is left alone.
    if (s.Limits().error == hipSuccess) *s.op->bytes_p = result;
    // The block is free once the stream has made the last copy queued for it: at once for a
    // write (each chunk was written out after its copy), after the last chunk's copy for a read.
    const size_t copies = s.Limits().copies;
    whole = s.Limits().error == hipSuccess;
    last_copy = s.data.first_token + static_cast<uint32_t>(copies) - 1;
    ReleaseBlockLocked(channel, std::exchange(s.block, engine::StreamStagingBlock()),
                       s.data.first_token + static_cast<uint32_t>(copies) - 1);
    used_ahead_bytes_ += s.ahead_bytes;
    if (s.used_ahead) {
      ++used_ahead_;
      CountEvent(AsyncEvent::kUsedAhead);
    }
    finished = std::move(channel->active);
    --staged_in_flight_;
    if (s.large) {
      --large_in_flight_;
    } else if (!s.reserved) {
      --exclusive_in_flight_;  // operations may be reserved blocks again
    }
    feed = !starved_.empty();
  }
  if (feed) wake_poller_.NotifyOne();
  // Released after the last ready: the stream runs the copies first, then passes the wait.
  AdvanceWord(&channel->words[kDone], finished->seq);
  if (stamps != nullptr) StampRelease(channel, stamps, last_copy, whole);
  reap_->Reap(std::move(finished));
  MutexLock lock(mutex_);
  if (--outstanding_ == 0) idle_.NotifyAll();
}

void AsyncExecutor::SetStagingBlocks(size_t blocks) {
  max_staged_channels_.store(blocks, std::memory_order_relaxed);
}

size_t AsyncExecutor::StagingBlocks() {
  MutexLock lock(mutex_);
  return staged_channels_ + large_blocks_ * kLargeBlockUnits;
}

size_t AsyncExecutor::LargeChunkOperations() {
  MutexLock lock(mutex_);
  return large_ops_;
}

size_t AsyncExecutor::StagingWaits() {
  MutexLock lock(mutex_);
  return staging_waits_;
}

size_t AsyncExecutor::ExclusiveChains() {
  MutexLock lock(mutex_);
  return exclusive_chains_;
}

size_t AsyncExecutor::DeferredLeases() {
  MutexLock lock(mutex_);
  return deferred_leases_;
}

size_t AsyncExecutor::StagedOperations() {
  MutexLock lock(mutex_);
  return staged_ops_;
}

void AsyncExecutor::CountStagedLocked(bool write, bool large, bool alone, bool ahead,
                                      bool on_companion, bool one_launch) {
  ++staged_ops_;
  if (ahead) ++copied_ahead_;
  if (on_companion) ++ahead_on_companion_;
  CountWay(write, AsyncWay::kStaged);
  if (large) CountEvent(AsyncEvent::kLargeChunks);
  if (alone) CountEvent(AsyncEvent::kChainAlone);
  if (ahead) CountEvent(AsyncEvent::kCopiedAhead);
  if (on_companion) CountEvent(AsyncEvent::kAheadOnCompanion);
  if (one_launch) CountEvent(AsyncEvent::kOneLaunch);
}

}  // namespace hipfile::core
