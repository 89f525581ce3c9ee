// SPDX-License-Identifier: MIT
// AsyncExecutor: runs stream-ordered operations without host callbacks.
//
// Each stream that carries operations gets a channel: two 32-bit words in pinned host memory,
// `reached` and `done`. Submitting operation n on a stream enqueues, on that stream,
//   write reached = n;  wait until done >= n
// (GpuRuntime stream memory operations), and queues the operation on the channel. A poller
// thread watches the `reached` words; when a stream gets to operation n, the poller hands it to a
// worker, which binds the parameters, moves the bytes, publishes *bytes_p and then stores
// done = n, releasing the stream. So an operation starts after all earlier work on its stream,
// later work waits for it, and nothing is serialized across streams: every stream has its own
// words, and any number of operations from different streams run on the workers at once.
//
// Where the device cannot do stream memory operations, a host function stands in for the wait
// (it hands the operation to a worker and blocks until it is done); the driver may run such
// functions on one thread, so that fallback serializes streams and is logged once.
//
// No call that CUDA treats as an implicit synchronization (freeing or unpinning memory) is made
// while operations may be in flight: such a call waits for streams that are waiting for the
// executor. So the channel words come from one slab pinned at construction (max_channels
// channels, kMaxChannels by default), and stream memory operation support is probed for every
// device then. And no runtime call at all is made with mutex_ held, nor on the way from a stream
// reaching an operation to its release (the poller, and the workers' staged steps): on CUDA,
// while any thread of the process frees memory, every other runtime call waits for the streams
// to drain (runtime/cpu/driver_lock.h), so a call there would wait for its own stream. Only the
// `run` way (below) makes GPU calls on a worker.
//
// Channels are recycled, lazily: a stream that needs a channel when the slab is used up takes
// the least recently used idle one, preferring a channel whose stream is not registered. A
// channel is idle when done == the last sequence number submitted on it: every operation on it
// has released its stream, and the poller has nothing queued on it. The channel moves to the
// new stream with its words as they are (done == last_seq, and so is reached after stream memory
// operations; reached is stored again, because a host-function stream never writes it), and the
// new stream continues the slot's sequence: its first operation is last_seq + 1. That is safe
// with no synchronization:
//  - the old stream may not yet have executed its last `wait done >= last_seq`; done only grows
//    from there, so the wait still passes (waits compare cyclically: see below);
//  - every `write reached` the old stream enqueued has executed (the poller saw each value
//    before handing out its operation), so no late write of the old stream lands on the slot;
//  - a worker touches a channel only until it stores done, and an operation still queued or
//    running keeps done below last_seq, so a channel with work in flight is never taken;
//  - the old stream, used again later (or a new stream that got its handle), is unknown to the
//    executor and gets a channel like any other stream.
// Sequence numbers wrap: `reached` and the waits compare cyclically ((int32_t)(a - b) >= 0, as
// CUDA's GEQ wait), which is exact while a slot's old waiter is less than 2^31 operations
// behind. Lazy, not on deregistration: most streams are never registered, and a deregistered
// stream may still have operations in flight. Up to max_channels streams nothing changes: each
// keeps its channel for the executor's life. A new stream is still refused (hipFileInternalError,
// logged) while every channel has operations in flight.
//
// Staged operations (AsyncOp::staged: device memory on a GPU) keep every GPU copy on their own
// stream. A channel that carries one gets two copy tables (engine::StreamCopyTables) and two more
// words, `ready` and `copied`. An operation of K chunks is given tokens t..t+K-1 of the channel
// and enqueues
//   write reached = n;  K x { wait until ready >= t+k;  copy table (t+k) % 2;  write copied = t+k }
//   wait until done >= n
// When the stream reaches it, the poller leases it a staging block (engine::StreamStagingBlock:
// two slots of engine::kStreamChunkBytes) from a pool, and workers move it on one chunk at a
// time: a read fills slot (t+k) % 2 from the file once the stream has copied out of it
// (copied >= t+k-2), writes the table and stores ready = t+k - its resident bytes copied from
// pinned page-cache windows instead, which it holds, and counts as in flight, until the stream
// has copied from them (docs/async.md, "Staged reads of resident data"); a write releases chunks
// into the slots, and once copied >= t+k writes slot (t+k) % 2 to the file. A worker never waits
// for the GPU: when the stream has not got there, it hands the trigger to the poller and returns.
//
// Blocks are pinned by submissions (never by the poller or a worker), up to SetStagingBlocks, and a
// block is free again once its stream has made its last copy out of (or into) it. A submission
// *reserves* a block when one of the free blocks is counted on by no other reserved operation, no
// operation queued alone (below) is in flight, and the pool keeps a block no reservation counts on
// (kSpareBlocks); below the limit the pool grows so that there is one. A reserved operation is
// leased its block when its stream reaches it, without waiting: it needs only the workers, which
// never wait for the GPU, and its own copies, each ahead, on its stream, of the `wait ready` whose
// release waits for it. So the chains of reserved operations are queued side by side (chain_mu_
// shared) and may interleave in a hardware queue: the head of a queue is then always passed (a
// copy, a write, or a wait for a worker that waits only for copies ahead of it). Only free blocks
// are reserved: one still draining may have its last copy behind a reserved operation's `wait
// ready` (its owner may finish before its own chain is all queued). Every other operation's chain
// is queued alone (chain_mu_ exclusive), and, reached, waits in a queue (starved_, first come first
// served) for a free block no reserved operation counts on. That wait never deadlocks. A block held
// by another operation (leased, or draining) comes back without the waiting one: the holder's chain
// was queued wholly before or wholly after it (it was queued alone), and in a hardware queue they
// share the holder either comes first (its copies run) or cannot have been reached before the
// waiting stream's chain was passed; so no holder's copy is ever behind a waiting operation's `wait
// ready`. And a block reserved for an operation its stream has not reached is used and comes back
// too: it was reserved before the waiting operation chose to be queued alone (none is reserved
// while one queued alone is in flight), with chain_mu_ shared, so its chain was on its stream whole
// before the waiting one's, behind nothing queued alone that is still in flight - once its stream
// gets there, which the program may hold back (a host function that blocks, a wait for an event
// recorded later) for as long as it likes, or until the waiting operation is done. So reservations
// never take the pool's last block that none counts on (kSpareBlocks): at least one block is always
// leased, draining or free and unreserved, and comes back without the program. (Until 2026-12-04
// they could take every block: with the limit at one block, a stream held back with a read reserved
// kept every other stream's reads waiting for it;
// AsyncStagedTest.AStreamHeldBackWithABlockReservedHoldsUpNoOtherStream.) Until 2026-12-02 every
// chain was queued alone: on the H200, 16 threads submitting 4 KiB reads spent 400 us per
// submission, most of it waiting for the others' chains (5 driver calls each), and reached 38.8k
// IOPS. Before that, blocks belonged to streams, and a stream that found all of them busy took the
// `run` way: on the H200 `hipfile-bench -x 5 -w 256 -Q 1` hung there (workers waiting for engine
// copies queued behind streams that waited for the workers). Streams without stream memory
// operations or copy tables, a channel where a chain could not be enqueued, and a program whose
// limit leaves streams no block take the `run` way.
//
// Large blocks. An operation of more than two chunks, and of at least SetLargeChunksFrom's
// bytes, whose submission finds a large block free and counted on by no other operation (or pins
// one, under a cap of half the pool's limit, and only while the small blocks leave room for it)
// reserves it and counts its chunks in engine::kStreamLargeChunkBytes, the synchronous path's
// chunk size: a quarter as many chunks, each one launch of the copy kernel where the stream
// copies (docs/async.md, "Large staging blocks"). Large blocks are only ever
// reserved: nothing waits for one (an operation that gets none takes the small blocks' ways
// above), so the argument above holds without them; a large-reserved chain is queued with
// chain_mu_ shared, even while a chain queued alone is in flight, since it holds no small block
// and its stream needs only its own copies and the workers. The small blocks' limit is the
// pool's less what large blocks hold.
//
// A finished operation is destroyed only after its stream was released, and on a reaper thread:
// what it holds may free memory, which waits for every stream, this one included. (The Driver
// keeps the last reference to its engines, freed at a last close: core/driver.h.) Finished
// operations wait for the reaper in a ReapQueue, which wakes it once for a burst of them.
//
// Lifetime: the executor lives until process exit. Deregistering a stream forgets its flags but
// keeps its channel serving operations already submitted, so deregistering with work in flight
// neither blocks nor loses the work.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "core/async/async_op.h"
#include "core/async/async_stage_stats.h"
#include "core/async/copy_runs.h"
#include "core/async/host_read_probe.h"
#include "core/async/reap_queue.h"
#include "core/async/stream_key.h"
#include "core/stats.h"
#include "engine/device_scratch.h"
#include "engine/stream_staging.h"
#include "engine/worker_pool.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {

class AsyncExecutor {
 public:
  // Channels in the slab by default: streams that can have operations in flight at once.
  static constexpr size_t kMaxChannels = 4096;

  // Operations run on `workers` (the Driver's I/O threads, as hf-async-N), which must outlive the
  // executor and is started here; its own threads (the reaper, the poller) start through sys.
  // When the system refuses one, those started are joined and the refusal returned (errno EAGAIN
  // or ENOMEM), and a later Create can try again.
  static Result<std::unique_ptr<AsyncExecutor>> Create(platform::Sys& sys, runtime::GpuRuntime& gpu,
                                                       engine::WorkerPool& workers,
                                                       size_t max_channels = kMaxChannels,
                                                       AsyncStageStats* stage_stats = nullptr,
                                                       Stats* stats = nullptr);
  ~AsyncExecutor();  // waits for submitted operations, then stops its threads
  AsyncExecutor(const AsyncExecutor&) = delete;
  AsyncExecutor& operator=(const AsyncExecutor&) = delete;

  // Streams are named as the calling thread names them (StreamKey): the null stream and
  // hipStreamPerThread are the default streams of its current device, the second its own.
  // hipFileInvalidValue when the stream is already registered.
  Status RegisterStream(runtime::Stream stream, unsigned flags);
  // hipFileInvalidValue when the stream is not registered.
  Status DeregisterStream(runtime::Stream stream);
  // Forgets every registration (driver close). Operations in flight still complete.
  void ForgetRegistrations();
  // The HIPFILE_STREAM_* flags of a registered stream; 0 for any other stream.
  unsigned StreamFlags(runtime::Stream stream);

  // Enqueues `op` on `stream`, with the stream's registered HIPFILE_STREAM_FIXED_* flags added to
  // op->fixed_flags. On error nothing was enqueued that will run it; accepted, it is counted once
  // by the way it went in `stats` (Create; hipFileExtGetAsyncWayStats). Where `stage_stats`
  // (Create) is enabled, the operation's round trip is stamped and recorded there.
  Status Submit(runtime::Stream stream, std::unique_ptr<AsyncOp> op);

  // Operations submitted and not yet completed. An operation counts as completed a moment after
  // its stream was released, so a stream synchronized may still show here briefly.
  size_t Outstanding();
  // Blocks until Outstanding() is 0.
  void WaitIdle();
  // Runs `fn` with no operation outstanding and none submitted until it returns; false, without
  // running it, while operations are outstanding. For calls that wait for every stream
  // (unpinning memory): no stream can then be waiting for this executor.
  bool RunIfIdle(const std::function<void()>& fn);
  // Channels moved from one stream to another so far.
  size_t ChannelsRecycled();

  // Operations of at most `bytes` (0: none, the default) submitted to a stream with nothing left
  // to run run at once on the submitting thread (docs/async.md, "Operations on an idle stream";
  // HIPFILE_ASYNC_RUN_IDLE_KB, set by the Driver at each open).
  void SetRunIdleBytes(size_t bytes) { run_idle_bytes_.store(bytes, std::memory_order_relaxed); }
  // Operations run at once so far.
  size_t RanAtOnce();
  // Whether reads whose parameters are known at submission (the stream's HIPFILE_STREAM_FIXED_*
  // flags, or an idle stream) and whose bytes are all in pinned page-cache windows get their
  // copies queued on the stream at submission (docs/async.md, "Reads copied from windows at
  // submission"); off by default, set by the Driver (HIPFILE_ASYNC_COPY_AT_SUBMISSION).
  void SetCopyAtSubmission(bool on) { copy_at_submission_.store(on, std::memory_order_relaxed); }
  // Operations of at least `bytes` (and more than two chunks) may take large blocks (header
  // comment); 0, the default, never. Set by the Driver (HIPFILE_ASYNC_LARGE_CHUNKS_MB).
  void SetLargeChunksFrom(size_t bytes) { large_from_.store(bytes, std::memory_order_relaxed); }
  // Reads copied so far.
  size_t CopiedAtSubmission();
  // Whether small reads (at most SetRunIdleBytes) on a stream registered with every
  // HIPFILE_STREAM_FIXED_* flag take their bytes from the page cache at submission and queue one
  // copy of them on the stream (docs/async.md, "Small reads at submission"); off by default,
  // set by the Driver (HIPFILE_ASYNC_READ_AT_SUBMISSION).
  void SetReadAtSubmission(bool on) { read_at_submission_.store(on, std::memory_order_relaxed); }
  // Reads that took their bytes at submission so far.
  size_t CachedAtSubmission();
  // Reads at submission: the largest read taken so (larger ones copy more bytes on the CPU than
  // the driver calls they save), the bytes a stream may have taken not yet seen passed (at most
  // kCachedBudget), and how often a mark is written (async_channel.h, Channel::cached_marked).
  static constexpr size_t kCachedMaxBytes = size_t{16} << 10;
  static constexpr size_t kCachedBudget = size_t{256} << 10;
  static constexpr size_t kCachedMarkEvery = size_t{64} << 10;
  // While at most this many submissions are in progress in the process (this one included), to
  // at most this many streams among the last kQuietWindow submissions (this one's included), a
  // small operation on an idle stream runs at once before a read is taken at submission: alone,
  // the idle check costs little and the caller's wait then finds the read done; with many
  // submitters, or many streams each submitting now and then, the check and the copy's polls
  // cost more cores than the read taken at submission (docs/async.md, "Small reads at
  // submission"). Default kQuietSubmissions; the Driver sets HIPFILE_ASYNC_QUIET_STREAMS.
  static constexpr unsigned kQuietSubmissions = 4;
  static constexpr unsigned kQuietWindow = 256;
  void SetQuietSubmissions(unsigned n) { quiet_submissions_.store(n, std::memory_order_relaxed); }
  // Staged reads that released their stream before its copies from their windows were made (the
  // channel held the windows until then) so far.
  size_t DeferredLeases();

  // Reads copied ahead (docs/async.md, "Reads copied ahead into device memory"): a staged read of
  // at least kAheadMinBytes on a stream whose parameters are not fixed, whose bytes at the values
  // seen at submission are all in pinned page-cache windows, gets those bytes copied by its
  // stream, before it reaches the read, into device memory of the library's own (DMA, where the
  // copy kernel reading host memory is slower); the worker copies on from there when the values
  // bound are the same bytes. `bytes` is each device's budget for that memory (hipFile's "max
  // device cache size", set by the Driver at each open); 0, the default, copies none ahead.
  void SetDeviceScratchBytes(uint64_t bytes) { scratch_.SetBudget(bytes); }
  static constexpr size_t kAheadMinBytes = size_t{1} << 20;
  // Reads copied ahead so far, and of them those whose stream copied on from the copy, and the
  // bytes copied on so.
  size_t CopiedAhead();
  size_t UsedAhead();
  uint64_t UsedAheadBytes();
  // A read the budget has no room for whole is copied ahead in parts of `bytes` (rounded up to a
  // multiple of kAheadPartUnit) into a region of that size, where there is room for one: each
  // part's copies are queued on the stream after the launch that copied the part before out of
  // the region, and before the wait for the part's first token; one launch a part (docs/async.md,
  // "Reads copied ahead in parts"). With a companion (SetAheadStream), into two slots of a part
  // where there is room for both, the companion copying the next part while the stream copies
  // this one on. A part is whole chunks: one that is not a multiple of the large chunks
  // (engine::kStreamLargeChunkBytes) has its read take small ones. Where each part's copy runs by
  // DMA, the copy kernel reading host memory for the whole read is slower, or as fast. 0 (an
  // executor's own default) is off; the Driver sets HIPFILE_ASYNC_AHEAD_PART_MB's, 8 MiB unless
  // set.
  static constexpr size_t kAheadPartUnit = engine::kStreamChunkBytes;
  void SetAheadPartBytes(size_t bytes) {
    const size_t parts = (bytes + kAheadPartUnit - 1) / kAheadPartUnit;
    ahead_part_bytes_.store(parts * kAheadPartUnit, std::memory_order_relaxed);
  }
  // Reads copied ahead in parts so far (of CopiedAhead).
  size_t AheadInParts();
  // Whether each device's reads past their share go in parts or the windows' way by what a
  // measurement finds (docs/async.md, "Parts or the windows' way, by measurement"): at a new
  // stream's first submission for a device of a read that may be copied ahead (MayCopyAhead),
  // while the executor has nothing in flight, the submitting thread times DMA and the copy
  // kernel reading 16 MiB of pinned host memory (core/async/host_read_probe.h; a once-pinned
  // buffer of the executor's, and a region of the device budget) where the runtime's device
  // reads host memory over a link; where the kernel reads at kWindowsFromKernelShare of DMA or
  // more, that device's reads take the windows' way, as with parts off. A failed measurement
  // leaves parts; no room for the region leaves it undecided. Off by default; the Driver sets
  // it where HIPFILE_ASYNC_AHEAD_PART_MB is not set.
  void SetChooseAheadWay(bool on) { choose_ahead_way_.store(on, std::memory_order_relaxed); }
  enum class AheadWay { kUndecided, kParts, kWindows };
  // The way chosen for `device`'s reads past their share, and the rates measured (zero where
  // none was).
  AheadWay AheadWayOf(int device);
  HostReadRates HostReadRatesOf(int device);
  // Whether a read's copies ahead go on a companion stream of its stream's (one per channel, the
  // library's), which its stream waits for by an event before `write reached`, into a region of
  // its own: the copy then runs while the stream is still busy with the reads before it, where on
  // the stream itself it starts only once they are done. In parts, into two slots of the
  // stream's region, each part's copies once the stream has reached the read and copied out of
  // the slot two parts back. Off by default; set by the Driver (HIPFILE_ASYNC_AHEAD_STREAM).
  // Where a companion cannot be made, the copies go on the stream.
  void SetAheadStream(bool on) { ahead_stream_.store(on, std::memory_order_relaxed); }
  // Which staged chains take one launch of the copy kernel for all their tokens
  // (HIPFILE_ASYNC_COPY_RUNS; by default reads copied ahead and reads served whole from pinned
  // windows: Ahead::in_windows).
  void SetCopyRuns(AsyncCopyRuns runs) { copy_runs_.store(runs, std::memory_order_relaxed); }
  // Whether that launch reads its first table from device memory the stream copies it into
  // first (a channel's mirror, made at its first run on a device), where a read of it from host
  // memory over a link busy with copies costs the stream (bench/results/h200-2026-12-05-b). Off
  // by default until measured in the library on a GPU; set by the Driver
  // (HIPFILE_ASYNC_RUN_TABLE).
  void SetRunTableOnDevice(bool on) { run_table_on_device_.store(on, std::memory_order_relaxed); }
  // Channels' mirrors made so far (tests).
  size_t RunMirrors();
  // Reads copied ahead on a companion so far (of CopiedAhead), and the companion of `stream`'s
  // channel (null: none made), asked with no submission to it in progress (tests).
  size_t AheadOnCompanion();
  runtime::Stream CompanionOf(runtime::Stream stream);
  // Device memory allocated for reads copied ahead on `device` so far, and of it leased now.
  uint64_t DeviceScratchBytes(int device) { return scratch_.Allocated(device); }
  uint64_t DeviceScratchLeased(int device) { return scratch_.Leased(device); }

  // Staged operations: the most staging blocks (engine::StreamStagingBlock, pinned by
  // submissions as needed) in the pool: the streams' share of the pinned staging limit
  // (engine::SplitStagingBudget), set by the Driver at each open. Blocks pinned already are kept
  // when it is lowered (freeing would wait for the streams); new ones wait until the count is
  // under it. Default: none until set.
  void SetStagingBlocks(size_t blocks);
  // Operations run staged so far.
  size_t StagedOperations();
  // Staged operations that, reached by their stream, waited for a block so far.
  size_t StagingWaits();
  // Staged operations whose chain was queued alone (no block reserved: header comment) so far.
  size_t ExclusiveChains();
  // Staging blocks pinned so far, and the most there may be (SetStagingBlocks), in small blocks'
  // bytes (a large block counts as kLargeBlockUnits); staged operations that moved in large
  // chunks so far.
  size_t StagingBlocks();
  size_t LargeChunkOperations();
  static constexpr size_t kLargeBlockUnits =
      engine::kStreamLargeChunkBytes / engine::kStreamChunkBytes;
  size_t StagingBlockLimit() const { return max_staged_channels_.load(std::memory_order_relaxed); }
  // Small blocks of the pool that no reservation may take (header comment): one, so that an
  // operation queued alone always waits for a block that comes back without the program.
  static constexpr size_t kSpareBlocks = 1;

 private:
  struct Channel;
  struct Ready;
  struct Staged;
  struct ChainLimits;
  struct Ahead;

  AsyncExecutor(runtime::GpuRuntime& gpu, size_t max_channels, AsyncStageStats* stage_stats,
                Stats* stats);
  // An accepted operation's way, and a staged operation's events, in the process's statistics
  // (Create's `stats`; none without).
  void CountWay(bool write, AsyncWay way) {
    if (stats_ != nullptr)
      stats_->RecordAsyncWay(write ? IoDirection::kWrite : IoDirection::kRead, way);
  }
  void CountEvent(AsyncEvent event) {
    if (stats_ != nullptr) stats_->RecordAsyncEvent(event);
  }
  // A staged operation accepted: counted by the executor (StagedOperations, CopiedAhead,
  // AheadOnCompanion) and in the statistics (CountWay, CountEvent): its direction, and whether it
  // took a large block, was queued alone, was copied ahead, on a companion.
  void CountStagedLocked(bool write, bool large, bool alone, bool ahead, bool on_companion,
                         bool one_launch) REQUIRES(mutex_);
  Status SubmitUntimed(runtime::Stream stream, std::unique_ptr<AsyncOp> op);
  // Whether `op` may run at once (SetRunIdleBytes): small enough, nothing of the executor's left
  // on the channel, and the stream idle. submit_mu held.
  bool RunsAtOnce(Channel* channel, runtime::Stream stream, const AsyncOp& op)
      REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // Runs it on this thread and ends its submission. submit_mu held.
  Status RunAtOnce(Channel* channel, std::unique_ptr<AsyncOp> op) REQUIRES(SubmitMu(channel))
      EXCLUDES(mutex_);
  // Ends a submission whose operation finished on this thread (*bytes_p set): counts it as `way`
  // (CountWay), destroys `op`, records its stamps (all of it `submit`), and adds one to the
  // counter `count` names, if any (ran_at_once_, cached_at_submission_; under mutex_).
  void EndedAtSubmission(Channel* channel, std::unique_ptr<AsyncOp> op, AsyncWay way,
                         size_t AsyncExecutor::*count) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // Nothing of the executor's is left on the channel and the stream is idle (for a stream that
  // waits for the legacy default stream, that one too); never the null stream. submit_mu held.
  bool StreamIdle(Channel* channel, runtime::Stream stream) REQUIRES(SubmitMu(channel))
      EXCLUDES(mutex_);
  // Queues `op`'s copies from pinned windows on the stream (SetCopyAtSubmission) and ends its
  // submission, *status its result: true. False, with nothing done that the stream's way does
  // not do again, where it cannot. submit_mu held.
  bool CopyAtSubmission(Channel* channel, runtime::Stream stream, std::unique_ptr<AsyncOp>& op,
                        Status* status) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // What both reads decided at submission begin with: the stream's device current (their copies
  // are queued from this thread), the parameters bound and the read planned with them
  // (AsyncWork::Begin), all of its size. kNotNow: nothing done that another way does not do
  // again. kEnded: refused with the parameters the stream would bind (and recorded so); the
  // operation ended here, its submission succeeded (*status Ok). kPlanned: *plan holds it
  // (AsyncWork::Unbegin undoes it). submit_mu held.
  enum class Planned { kNotNow, kEnded, kPlanned };
  // The calling thread's current device is the channel's stream's: copies to its stream may be
  // queued from here.
  bool OnStreamDevice(const Channel& channel);
  Planned PlanAtSubmission(Channel* channel, std::unique_ptr<AsyncOp>& op, StagedPlan* plan,
                           Status* status) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // A staged read whose bytes, at the values seen at submission, are all in pinned windows, with
  // device memory for them within the budget (SetDeviceScratchBytes): fills *ahead with the
  // copies its stream makes before it reaches the read, and the windows and memory they use.
  // False, with nothing done, where it cannot; ahead->in_windows then says whether the windows
  // held every byte all the same (no budget, or none left). `streams`: how many streams submitted
  // lately a read that may be copied ahead (CountRecentLocked); a read larger than its stream's
  // share of the budget goes in parts that fit the share. submit_mu held.
  bool PlanAhead(Channel* channel, AsyncOp& op, Ahead* ahead, unsigned streams)
      REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // The channel's companion stream and its event (SetAheadStream), made on the submitting
  // thread's device (the stream's) if it has none, or one of another device (a channel moved to
  // another stream): false where the runtime refuses them. submit_mu held.
  bool CompanionFor(Channel* channel) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // Destroys the channel's companion and its event, if any (CompanionFor, and the executor's
  // destructor); no runtime call waits for the copies still on it.
  void DropCompanion(Channel* channel);
  // A small read on a stream with fixed parameters (SetReadAtSubmission): its bytes read from the
  // page cache now into this thread's ordinary memory, and one copy of them queued on the stream,
  // which the runtime takes before it returns; the submission ends here, *status its result:
  // true. False, with nothing done that another way does not do again, where it cannot (bytes
  // not cached, a stream-ordered write in flight, another device current...). submit_mu held.
  bool ReadCachedAtSubmission(Channel* channel, runtime::Stream stream,
                              std::unique_ptr<AsyncOp>& op, Status* status)
      REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // Forgets the marks the stream has passed. submit_mu held.
  void ReclaimCached(Channel* channel) REQUIRES(SubmitMu(channel));
  // Queues the next mark after the unmarked bytes; a failure stops reads at submission on the
  // channel. submit_mu held.
  void MarkCached(Channel* channel, runtime::Stream stream) REQUIRES(SubmitMu(channel))
      EXCLUDES(mutex_);
  // Ends a submission that took no sequence number and queued nothing: refused, or done with
  // by a way that needs nothing more of the executor.
  void EndUnnumberedLocked(Channel* channel) REQUIRES(mutex_);
  // Lets go of the windows of the channel's reads whose copies from them are made
  // (Channel::from_windows).
  void ReleaseFromWindowsLocked(Channel* channel) REQUIRES(mutex_);
  // A staged read done but for its stream's copies from its windows, the last at token `until`:
  // hands its leases to the channel's from_windows, counted as outstanding, so that it releases
  // its stream now rather than after a round trip through the poller. False (no memory): it
  // waits for the copy instead.
  bool DeferLeases(Channel* channel, uint32_t until) EXCLUDES(mutex_);
  // A chain that failed part-way wrote `copied` up to channel->last_token and no further: windows
  // held for a later token (a worker that read the chain's limits before the failure deferred
  // them, DeferLeases) would wait for ever, and the executor never be idle. Their copies may be
  // on the stream with nothing to say when they are done, so their leases are kept until the
  // executor goes (stranded_leases_), and the entry waits for last_token instead - changed in
  // place, since submissions hold other entries by address. Also called for the leases a worker
  // defers after the failure.
  void StrandPastLastTokenLocked(Channel* channel) REQUIRES(mutex_);
  // Keeps `leases` until the executor goes (copies from their windows may be on a stream with
  // nothing to say when they are done) and leaves it empty.
  void StrandLeasesLocked(std::vector<std::shared_ptr<const void>>* leases) REQUIRES(mutex_);
  // Timing (stage_stats_ enabled): a staged operation released before the poller saw its
  // stream's last copy waits here for it (the poller stamps kCopied).
  struct CopyWatch {
    const uint32_t* copied;
    uint32_t last;
    std::shared_ptr<AsyncStamps> stamps;
  };
  // Stamps kReleased, and kCopied once the stream's `copied` reached `last` (now, or by the
  // poller); no copy to wait for when `watch` is false.
  void StampRelease(Channel* channel, const std::shared_ptr<AsyncStamps>& stamps, uint32_t last,
                    bool watch) EXCLUDES(mutex_);
  // Create's second half: the threads.
  Status Start(platform::Sys& sys, engine::WorkerPool& workers);
  // `stream` as the calling thread names it (StreamKey); asks the runtime for the current device
  // where the handle is a default stream's. Never with mutex_ held.
  StreamKey KeyOf(runtime::Stream stream) EXCLUDES(mutex_);
  // The stream's channel; a stream without one gets one for `device`.
  Result<Channel*> ChannelFor(const StreamKey& stream, int device) REQUIRES(mutex_);
  // Asks the runtime, once per device, whether its streams take memory operations and copy
  // tables (caps_). Makes runtime calls: never with mutex_ held.
  void DeviceCaps(int device) EXCLUDES(mutex_);
  // SetChooseAheadWay's measurement for `device`, where it is due (DeviceCaps asked first).
  void ChooseAheadWay(int device) EXCLUDES(mutex_, probe_mu_);
  Channel* IdleChannel() REQUIRES(mutex_);                 // null when none is idle
  void MarkBusyLocked(Channel* channel) REQUIRES(mutex_);  // puts it in busy_
  void PollLoop(platform::Sys& sys) EXCLUDES(mutex_);
  void Complete(Channel* channel, uint32_t seq, std::unique_ptr<AsyncOp> op) EXCLUDES(mutex_);
  static void HostFnTrampoline(void* arg);

  // The channel's submit_mu, for the annotations below: Channel is incomplete here
  // (async_channel.h), so they cannot name channel->submit_mu itself.
  static Mutex& SubmitMu(Channel* channel);

  // Staged operations (async_staged.cc).
  bool CanStage(const Channel& channel, const AsyncOp& op) REQUIRES(mutex_);
  // Makes what a staged submission needs (with mutex_ released meanwhile): the channel's tables,
  // and a block in the pool when none is free and the pool is under its limit. False when the
  // operation cannot run staged (no tables, or the pool has no block and can get none). The
  // caller counts as the channel's submitter.
  bool StagingLocked(Channel* channel) REQUIRES(mutex_, SubmitMu(channel));
  // The channel's copy tables (StagingLocked's first part): false when they cannot be pinned.
  bool TablesLocked(Channel* channel) REQUIRES(mutex_, SubmitMu(channel));
  // Whether `op` is a staged operation of more than two small chunks, below the large chunks'
  // size (SetLargeChunksFrom, not 0), that waits for the disk: a read of which more than half
  // would come from the disk (AsyncWork::DiskBytes), or a write of more than one large chunk.
  // Such an operation takes large chunks too. Looks up residency: never with mutex_ held.
  bool DiskBound(AsyncOp& op) EXCLUDES(mutex_);
  // For a staged operation of `bytes` (the channel has its tables), at least the large chunks'
  // size or `disk_bound`: reserves a free large block no other operation counts on, or pins one
  // (mutex_ released meanwhile) where the cap and the small blocks leave room. False: the
  // operation takes the small blocks.
  bool ReserveLargeLocked(size_t bytes, bool disk_bound) REQUIRES(mutex_);
  // The small blocks' limit: the pool's, less the large blocks' share of it.
  size_t SmallBlockLimitLocked() const REQUIRES(mutex_);
  // Moves the blocks whose last copy their stream has made from draining_ to free_blocks_ (or
  // large_free_).
  void ReapDrainedLocked() REQUIRES(mutex_);
  // A free block no reserved operation counts on, for an operation queued alone; false if none.
  bool TakeUnreservedLocked(engine::StreamStagingBlock* block) REQUIRES(mutex_);
  // The poller: leases blocks to starved channels, first come first served; true when one moved.
  bool FeedStarvedLocked(const std::function<void(Channel*)>& start) REQUIRES(mutex_);
  // A refused chain's copies ahead were queued without `write reached` after them: their region
  // is never leased again (DeviceScratch::Retire, which cannot fail) and their windows are kept
  // until the executor goes (stranded_leases_).
  void StrandAheadLocked(Ahead& ahead) REQUIRES(mutex_);
  // A finished operation's block goes back to the pool, free once `copied` reaches `last`.
  void ReleaseBlockLocked(Channel* channel, engine::StreamStagingBlock block, uint32_t last)
      REQUIRES(mutex_);
  void WarnNoStagingLocked(const char* why_not, hipError_t error) REQUIRES(mutex_);  // once
  // Streams submitted to among the last kQuietWindow to kQuietWindow x 2 submissions, this one
  // included (`all`), and of them those that submitted a read that may be copied ahead
  // (`ahead`, MayCopyAhead): the streams that share the device budget (PlanAhead).
  struct RecentStreams {
    unsigned all = 0;
    unsigned ahead = 0;
  };
  // The part of Submit that queues stream operations; `recent` from CountRecentLocked.
  Status SubmitOrdered(Channel* channel, runtime::Stream stream, std::unique_ptr<AsyncOp> op,
                       RecentStreams recent) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // Counts a submission to `channel`'s stream, `may_copy_ahead` where it is a read that may be
  // copied ahead (MayCopyAhead).
  RecentStreams CountRecentLocked(Channel* channel, bool may_copy_ahead) REQUIRES(mutex_);
  // A staged read of at least kAheadMinBytes as submitted: what PlanAhead may copy ahead, its
  // stream's other conditions permitting.
  static bool MayCopyAhead(const AsyncOp& op);
  // Queues the stream operations of the staged operation `chain` SubmitOrdered handed the poller
  // (sequence number seq, tokens first..first+chunks-1): reserved a block, with other reserved
  // chains, or else alone (chain_mu_, header comment); records how much is on the stream when a
  // call fails. `chain` is touched only before its first stream operation is queued.
  Status SubmitStaged(Channel* channel, runtime::Stream stream, Staged* chain, uint32_t seq,
                      uint32_t first, size_t chunks) REQUIRES(SubmitMu(channel))
      EXCLUDES(mutex_, chain_mu_);
  // What of a chain QueueChain put on the stream.
  struct Queued {
    hipError_t error = hipSuccess;  // the first call that failed; hipSuccess: all of it
    size_t ahead = 0;               // copies ahead (before `write reached`) on the stream
    size_t parts = 0;               // in parts: the parts whose copies are on the stream
    bool part_unseen = false;       // in parts: copies on the stream that no `write copied` follows
    bool reached = false;           // `write reached` is on the stream
    size_t waits = 0;               // chunks whose `wait ready` is on the stream
    size_t copies = 0;              // chunks whose `write copied` is on the stream
    uint32_t written = 0;           // the last token the stream stores in `copied`
    bool one_launch = false;        // its tokens are one launch (CopyTableRunAsync)
  };
  // `run`: one launch for all the chain's tokens (CopyTableRunAsync) where the runtime can, its
  // first table copied into `mirror` (MirrorFor) where not null. Copied ahead in parts
  // (ahead.part_bytes), `part_tokens` chunks a part: each part's copies before its first token's
  // wait, and one launch a part where `run`.
  Queued QueueChain(Channel* channel, runtime::Stream stream, uint32_t seq, uint32_t first,
                    size_t chunks, const Ahead& ahead, bool run, runtime::CopyTable* mirror,
                    size_t part_tokens) REQUIRES_SHARED(chain_mu_) EXCLUDES(mutex_);
  // Copied ahead in parts (Ahead::part_bytes): moves the windows the parts' copies read, and
  // their region, into `leases`, and makes the channel's entry that will hold them (*entry, not
  // yet filled; *entry its address in the channel's list) - false where there was no memory,
  // nothing made. EndPartsEntryLocked, once the chain is queued: the entry holds them until the
  // stream writes `copied` after the last part's copies; where nothing says when those are done,
  // they are stranded as a refused read's copies ahead.
  bool PartsEntry(Channel* channel, Staged* chain, std::vector<std::shared_ptr<const void>>* leases,
                  void** entry) EXCLUDES(mutex_);
  void EndPartsEntryLocked(Channel* channel, void* entry, const Queued& queued,
                           std::vector<std::shared_ptr<const void>>* leases) REQUIRES(mutex_);
  // The channel's mirror on its stream's device (two tables of device memory, SetRunTableOnDevice):
  // made at the channel's first run there and kept for the executor's life; null where the
  // submitting thread's device is not the stream's or the memory was refused (once per device:
  // logged, not asked again).
  runtime::CopyTable* MirrorFor(Channel* channel) REQUIRES(SubmitMu(channel)) EXCLUDES(mutex_);
  // A submission ends: queued (its operation now counts as queued and outstanding) or refused
  // (the sequence number it took is given back, and it no longer counts as outstanding).
  void EndSubmissionLocked(Channel* channel, bool refused) REQUIRES(mutex_, SubmitMu(channel));
  // Worker: moves the channel's active operation on until it waits for the stream or ends.
  void Step(Channel* channel) EXCLUDES(mutex_);
  void WaitForCopied(Channel* channel, uint32_t token) EXCLUDES(mutex_);
  void FinishStaged(Channel* channel) EXCLUDES(mutex_);
  // The poller, handing a staged operation out: its parameters bound now, where its submission
  // has not failed (SubmitStaged records a failure under mutex_).
  void BindLocked(Staged& s) REQUIRES(mutex_);

  runtime::GpuRuntime& gpu_;
  AsyncStageStats* const stage_stats_;  // null: no timing
  Stats* const stats_;                  // null: ways not counted
  // Device memory of reads copied ahead; its regions are freed after everything below is gone.
  engine::DeviceScratch scratch_;
  std::unique_ptr<engine::TaskGroup> workers_;  // drained before the members its tasks use
  // One thread of its own, outside the I/O budget: destroying an operation may free memory, which
  // waits for every stream, and the I/O threads must go on moving those streams meanwhile.
  std::unique_ptr<engine::WorkerPool> reap_pool_;
  std::unique_ptr<engine::TaskGroup> reaper_;  // destroys finished operations
  std::unique_ptr<ReapQueue> reap_;            // what reaper_ destroys, batched

  // Guards the members marked so and the channels' state (Channel, in async_channel.h, says
  // which: the analysis cannot name another object's mutex, so its fields carry no GUARDED_BY).
  Mutex mutex_;
  CondVar wake_poller_;
  CondVar idle_;
  // By the stream using it.
  std::map<StreamKey, std::unique_ptr<Channel>> channels_ GUARDED_BY(mutex_);
  std::list<Channel*> lru_ GUARDED_BY(mutex_);  // every channel, least recently submitted to first
  std::map<StreamKey, unsigned> registered_ GUARDED_BY(mutex_);
  const size_t max_channels_;
  uint32_t* slab_ = nullptr;  // max_channels_ channels of kWordsPerChannel words, pinned
  // ChooseAheadWay's: one measurement at a time, the submissions due to measure waiting for it
  // (copies of theirs would share the link with the probe's); its pinned tables and data, made
  // at the first measurement and freed with the executor (freeing waits for every stream).
  static constexpr size_t kProbeBytes = size_t{16} << 20;
  std::atomic<bool> choose_ahead_way_{false};
  Mutex probe_mu_ ACQUIRED_BEFORE(mutex_);
  void* probe_host_ GUARDED_BY(probe_mu_) = nullptr;
  size_t slab_used_ GUARDED_BY(mutex_) = 0;  // channels handed out
  size_t recycled_ GUARDED_BY(mutex_) = 0;   // channels moved to another stream
  // Per device, asked the first time a stream of it gets a channel (DeviceCaps), not at
  // construction: asking may load code onto the device (blocking while any of its streams waits)
  // and make its context, which a device the program never uses must not get. Sized once.
  struct DeviceCapsState {
    std::atomic<int> known{0};  // 0: not asked yet; 1: the two below hold the answers
    std::atomic<bool> mem_ops{false};
    std::atomic<bool> tables{false};
    std::atomic<AheadWay> ahead_way{AheadWay::kUndecided};  // ChooseAheadWay
    std::atomic<double> dma_gib_s{0};                       // what it measured
    std::atomic<double> kernel_gib_s{0};
  };
  std::unique_ptr<DeviceCapsState[]> caps_;
  int devices_ = 0;
  // The staging pool: blocks pinned (or being pinned), free ones, and ones handed back whose
  // stream may still be copying out of them (free once its `copied` word reaches `last`).
  struct Draining {
    engine::StreamStagingBlock block;
    const uint32_t* copied;
    uint32_t last;
  };
  size_t staged_channels_ GUARDED_BY(mutex_) = 0;   // blocks pinned or being pinned
  size_t staged_in_flight_ GUARDED_BY(mutex_) = 0;  // staged operations submitted, not finished
  std::atomic<size_t> max_staged_channels_{0};      // SetStagingBlocks; read under mutex_
  std::vector<engine::StreamStagingBlock> free_blocks_ GUARDED_BY(mutex_);
  std::vector<Draining> draining_ GUARDED_BY(mutex_);
  // Channels whose active operation waits for a block, in the order their streams reached them
  // (room for every channel is made at construction).
  std::vector<Channel*> starved_ GUARDED_BY(mutex_);
  // Channels with operations queued or a staged one waiting for `copied`: what the poller walks
  // (room for every channel is made at construction).
  std::vector<Channel*> busy_ GUARDED_BY(mutex_);
  size_t staged_ops_ GUARDED_BY(mutex_) = 0;            // operations submitted staged
  size_t ran_at_once_ GUARDED_BY(mutex_) = 0;           // operations run at submission
  size_t copied_at_submission_ GUARDED_BY(mutex_) = 0;  // reads copied at submission
  size_t deferred_leases_ GUARDED_BY(mutex_) = 0;       // DeferredLeases
  size_t copied_ahead_ GUARDED_BY(mutex_) = 0;          // CopiedAhead
  size_t used_ahead_ GUARDED_BY(mutex_) = 0;            // UsedAhead
  uint64_t used_ahead_bytes_ GUARDED_BY(mutex_) = 0;    // UsedAheadBytes
  size_t ahead_on_companion_ GUARDED_BY(mutex_) = 0;    // AheadOnCompanion
  size_t ahead_in_parts_ GUARDED_BY(mutex_) = 0;        // AheadInParts
  size_t from_windows_pending_ GUARDED_BY(mutex_) = 0;  // entries of the channels' from_windows
  std::atomic<bool> copy_at_submission_{false};         // SetCopyAtSubmission
  std::atomic<size_t> large_from_{0};                   // SetLargeChunksFrom
  std::atomic<bool> read_at_submission_{false};         // SetReadAtSubmission
  std::atomic<bool> ahead_stream_{false};               // SetAheadStream
  std::atomic<size_t> ahead_part_bytes_{0};             // SetAheadPartBytes
  std::atomic<AsyncCopyRuns> copy_runs_{AsyncCopyRuns::kWindows};  // SetCopyRuns
  std::atomic<bool> run_table_on_device_{false};                   // SetRunTableOnDevice
  std::atomic<size_t> run_mirrors_{0};                             // RunMirrors
  std::atomic<unsigned> quiet_submissions_{kQuietSubmissions};     // SetQuietSubmissions
  std::atomic<unsigned> submitting_{0};  // submissions in progress (SubmitUntimed)
  // CountRecentLocked: submissions into the current window, its number (from 1), and the streams
  // submitted to in it and in the one before.
  unsigned window_submissions_ GUARDED_BY(mutex_) = 0;
  uint64_t window_ GUARDED_BY(mutex_) = 1;
  unsigned window_streams_ GUARDED_BY(mutex_) = 0;
  unsigned last_window_streams_ GUARDED_BY(mutex_) = 0;
  // Of those, the streams that submitted a read that may be copied ahead.
  unsigned ahead_window_streams_ GUARDED_BY(mutex_) = 0;
  unsigned last_ahead_window_streams_ GUARDED_BY(mutex_) = 0;
  size_t cached_at_submission_ GUARDED_BY(mutex_) = 0;  // CachedAtSubmission
  // Leases of copies queued that nothing will say are done (CopyAtSubmission failed part-way).
  std::vector<std::shared_ptr<const void>> stranded_leases_ GUARDED_BY(mutex_);
  std::atomic<size_t> run_idle_bytes_{0};           // SetRunIdleBytes
  size_t staging_waits_ GUARDED_BY(mutex_) = 0;     // operations that waited for a block
  size_t exclusive_chains_ GUARDED_BY(mutex_) = 0;  // staged chains queued alone so far
  // Reserved operations (Staged::reserved) that their stream has not reached yet: as many of
  // free_blocks_ are theirs, so free_blocks_.size() >= reserved_ at all times.
  size_t reserved_ GUARDED_BY(mutex_) = 0;
  // Staged operations queued alone, from their submission's choice until they finish: while one
  // is, no operation is reserved a block.
  size_t exclusive_in_flight_ GUARDED_BY(mutex_) = 0;
  size_t pinning_ GUARDED_BY(mutex_) = 0;  // submissions pinning a block (in staged_channels_)
  // Large blocks (header comment): pinned or being pinned, free, and reserved for operations
  // their stream has not reached (large_free_.size() >= large_reserved_ at all times, the pinning
  // ones counted in large_blocks_ only); operations holding one, from submission to finish.
  size_t large_blocks_ GUARDED_BY(mutex_) = 0;
  std::vector<engine::StreamStagingBlock> large_free_ GUARDED_BY(mutex_);
  size_t large_reserved_ GUARDED_BY(mutex_) = 0;
  size_t large_in_flight_ GUARDED_BY(mutex_) = 0;
  size_t large_draining_ GUARDED_BY(mutex_) = 0;  // of draining_
  size_t large_ops_ GUARDED_BY(mutex_) = 0;       // LargeChunkOperations
  // Held while a staged chain is queued on its stream: shared by chains of reserved operations,
  // exclusively by the others (see the header comment). Taken inside submit_mu; mutex_ may be
  // taken inside it, never the other way round.
  SharedMutex chain_mu_;
  size_t waiting_ GUARDED_BY(mutex_) = 0;  // channels whose active operation waits for `copied`
  bool warned_staging_ GUARDED_BY(mutex_) = false;
  size_t queued_ GUARDED_BY(mutex_) = 0;       // submitted, waiting for their stream to reach them
  size_t outstanding_ GUARDED_BY(mutex_) = 0;  // submitted, not completed
  bool stopping_ GUARDED_BY(mutex_) = false;
  std::vector<CopyWatch> copy_watch_ GUARDED_BY(mutex_);
  bool warned_host_fn_fallback_ GUARDED_BY(mutex_) = false;
  std::thread poller_;
};

}  // namespace hipfile::core
