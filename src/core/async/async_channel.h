// SPDX-License-Identifier: MIT
// AsyncExecutor's internals shared by its two files (async_executor.cc, async_staged.cc): the
// channel words, a channel, and a staged operation in progress. Not part of any interface.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <vector>

#include "core/async/async_executor.h"
#include "core/async/async_op.h"
#include "core/async/no_throw.h"
#include "core/async/stream_key.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {
namespace async_detail {

// kMark: the last mark the stream passed of reads taken at submission (Channel::cached_marked).
enum Word { kReached = 0, kDone = 1, kReady = 2, kCopied = 3, kMark = 4 };
inline constexpr size_t kWordsPerChannel = 16;  // one 64-byte cache line per channel

inline uint32_t LoadWord(const uint32_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
inline void StoreWord(uint32_t* word, uint32_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}
// Sequence numbers wrap; a stream has at most a few billion operations outstanding.
inline bool Reached(uint32_t reached, uint32_t seq) {
  return static_cast<int32_t>(reached - seq) >= 0;
}
// Stores `value` unless the word is already at or past it (cyclically): `done` only advances.
// Operations release their streams in order, except one whose stream never waits for its
// release (a submission that failed part-way): a later operation of the stream may then be
// released first, and a late store of the earlier number would hold the stream back.
inline void AdvanceWord(uint32_t* word, uint32_t value) {
  uint32_t now = __atomic_load_n(word, __ATOMIC_RELAXED);
  while (!Reached(now, value)) {
    if (__atomic_compare_exchange_n(word, &now, value, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
      return;
    }
  }
}

// A copy from a pinned page-cache window: `bytes` at `src` to the read's byte `at` (reads copied
// at submission and copied ahead).
struct WindowCopy {
  size_t at;
  const void* src;
  size_t bytes;
};

}  // namespace async_detail

// How much of a staged operation's chain is on its stream: chunks whose `wait ready`, and whose
// `write copied`, were queued; `error` is why the rest was not (hipSuccess: all of it).
struct AsyncExecutor::ChainLimits {
  size_t waits = 0;
  size_t copies = 0;
  hipError_t error = hipSuccess;
};

// A read copied ahead (AsyncExecutor::PlanAhead): before its stream reaches it, the stream copies
// the file's bytes [file_offset, file_offset + bytes), as seen at submission, from pinned
// page-cache windows into device memory of the library's own (`region`), where file_offset is at
// `at` (the same offset within a page, so the copy kernel's alignment is the window's).
struct AsyncExecutor::Ahead {
  // Queued before `write reached`, each to `at` + its place; read by the submission only. In
  // parts (part_bytes), none crosses a part's end, and part p's go to `at` + their place less p x
  // part_bytes, before the stream's wait for the part's first token.
  std::vector<async_detail::WindowCopy> copies;
  // The windows the copies read: the stream is past them once it wrote `reached` (in parts, once
  // it wrote `copied` after the last part: the submission's entry holds them until then).
  std::vector<std::shared_ptr<const void>> windows;
  std::shared_ptr<void> region;  // null: nothing copied ahead
  // Where the copies go (AsyncExecutor::SetAheadStream): the channel's companion, which records
  // `done` after them for the stream to wait for; null: on the stream itself. In parts on the
  // companion, the stream records `freed[p % 2]` after the launch that copies part p out of its
  // slot, which the companion waits for before it copies part p + 2 into the slot.
  runtime::Stream companion = nullptr;
  runtime::Event done = nullptr;
  runtime::Event freed[2] = {nullptr, nullptr};
  unsigned char* at = nullptr;
  off_t file_offset = 0;
  size_t bytes = 0;
  // Every byte, at the values seen at submission, was in a pinned window, copied ahead or not
  // (no budget left, or none): the worker's first table then nearly always ends the read's
  // copies, so its chain takes one launch for all its tokens (AsyncCopyRuns::kWindows).
  bool in_windows = false;
  // Copied ahead in parts of this many bytes (AsyncExecutor::SetAheadPartBytes: the budget had no
  // room for the whole read), each into the region in turn; 0: the whole read, before `reached`.
  size_t part_bytes = 0;
  // In parts on a companion: the region holds two slots of a part, `slot_stride` bytes apart,
  // part p going to slot p % 2, so that the companion copies the next part while the stream
  // copies this one on; 0: one slot, the parts' copies on the stream.
  size_t slot_stride = 0;

  // Where part `part`'s bytes go in the region: its slot's, at the same place in a page.
  unsigned char* PartAt(size_t part) const { return at + (part % 2) * slot_stride; }
  // Where part `part` starts in the file, and its bytes (the whole read where not in parts).
  off_t PartStart(size_t part) const { return file_offset + static_cast<off_t>(part * part_bytes); }
  size_t PartBytes(size_t part) const {
    if (part_bytes == 0) return part == 0 ? bytes : 0;
    const size_t from = part * part_bytes;
    return from < bytes ? std::min(part_bytes, bytes - from) : 0;
  }
  // The piece at file `offset` (at most `max` bytes) that the stream copied ahead, leased with the
  // region; none where the copy does not have it. In parts, of part `part` only: what the region
  // holds while the stream runs that part's tokens.
  engine::ResidentPiece At(off_t offset, size_t max, size_t part = 0) const {
    const off_t start = PartStart(part);
    const size_t held = PartBytes(part);
    if (region == nullptr || offset < start || offset >= start + static_cast<off_t>(held)) {
      return {};
    }
    const auto skip = static_cast<size_t>(offset - start);
    return engine::ResidentPiece{PartAt(part) + skip, std::min(max, held - skip), region};
  }
};

// A staged operation, handed to the poller by its submission (async_executor.h).
struct AsyncExecutor::Staged {
  uint32_t seq = 0;
  std::unique_ptr<AsyncOp> op;
  size_t chunks = 0;
  // How much of the chain is on the stream: all of it (chunks) unless the submission failed
  // part-way, which lowers waits and copies and then sets error (release), under mutex_ and
  // while the operation is queued or active. Workers read them without the lock (Limits); one
  // that read them before the change and waits for a copy that never comes is moved on by the
  // poller.
  std::atomic<size_t> waits_queued{0};
  std::atomic<size_t> copies_queued{0};
  std::atomic<int> queue_error{hipSuccess};
  ChainLimits Limits() const {
    const auto why = static_cast<hipError_t>(queue_error.load(std::memory_order_acquire));
    if (why == hipSuccess) return {chunks, chunks, hipSuccess};
    return {waits_queued.load(std::memory_order_relaxed),
            copies_queued.load(std::memory_order_relaxed), why};
  }
  // A block was reserved for it at submission (its chain queued with other reserved chains): the
  // poller leases it one when its stream reaches it, without waiting. False: its chain was queued
  // alone, and it waits for a block no reserved operation counts on. Set under mutex_ before its
  // first stream operation is queued.
  bool reserved = false;
  // A large block (engine::kStreamLargeChunkBytes slots) was reserved for it at submission, and
  // its chunks are counted in that size: the poller leases it that block when its stream reaches
  // it, without waiting. Its chain is queued with the reserved ones (`reserved` stays false: it
  // counts on no block of the pool of small ones). Set under mutex_ before its first stream
  // operation is queued.
  bool large = false;
  // Bound by the poller under mutex_ when it hands the operation out, while the submission has
  // not failed: the caller may let its variables go once the call has returned its error.
  bool bound = false;
  AsyncParams params;
  ssize_t refused = 0;   // BindParams' refusal, 0 when none
  bool started = false;  // plan made (or the error set)
  // The bytes' side, moved on by the engine (engine/stream_staging.h): chunk k is token
  // data.first_token + k, slot (of `block`) and table (of the channel) (data.first_token + k) % 2.
  engine::StagedChunks data;
  // Its slots, leased from the executor's pool by the poller (under mutex_) once the stream has
  // reached it, and handed back when it finishes (AsyncExecutor::ReleaseBlockLocked).
  engine::StreamStagingBlock block;
  // Copied ahead by its stream, if at all (set before it is handed to the poller; the worker lets
  // the windows go once it starts, and copies on from the region where the bound values allow).
  Ahead ahead;
  bool used_ahead = false;  // a table copies from ahead.region (the worker's)
  size_t ahead_bytes = 0;   // bytes the tables copy from it (the worker's)
};

// A channel's fields are guarded by the executor's mutex_ unless they say otherwise. They carry
// no GUARDED_BY, since the analysis cannot name another object's mutex: the executor's functions
// that use them under the lock are REQUIRES(mutex_) instead, and those that need the channel's
// submit_mu REQUIRES(SubmitMu(channel)) too.
struct AsyncExecutor::Channel {
  struct Pending {
    uint32_t seq;
    std::unique_ptr<AsyncOp> op;  // null: enqueued on the stream but abandoned; just release it
    std::unique_ptr<Staged> staged = nullptr;  // a staged operation (op is null then)
    // False while its submission is still queueing stream operations: the entry is made before
    // them, so that nothing a submission allocates can fail once the stream may wait for it,
    // and the poller stops at it until it is filled in. A staged operation's entry is filled
    // before its first stream operation (AsyncExecutor::SubmitOrdered says why).
    bool filled = false;
  };
  StreamKey stream;  // the stream using it now (a key: runtime calls take the caller's handle)
  uint32_t* words = nullptr;  // pinned host memory, async_detail::Word; fixed for its life
  bool host_fn = false;       // the device has no stream memory operations
  int device = -1;            // the stream's device, as asked at its first submission
  // Whether work queued on the stream waits for the legacy default stream's: -1 not asked yet,
  // 0 no (a non-blocking stream), 1 yes or unknown. Asked with submit_mu held, reset with it.
  int follows_legacy = -1;
  // The last submission window (AsyncExecutor::CountRecentLocked) the stream was counted in, and
  // the last it was counted in among the streams submitting reads that may be copied ahead.
  uint64_t window = 0;
  uint64_t ahead_window = 0;
  bool copy_tables = false;    // the device runs copy tables (GpuRuntime::SupportsCopyTable)
  uint32_t last_seq = 0;       // the slot's, continued across the streams that use it
  std::deque<Pending> queued;  // by seq; the stream has not reached them yet
  // Submissions in progress (mutex_): while any is, the channel stays with its stream and keeps
  // its staging. submit_mu orders them: one at a time queues its stream operations, without
  // mutex_ (AsyncExecutor::Submit). last_seq, last_token and staged_broken change only with
  // both held.
  unsigned submitters = 0;
  Mutex submit_mu;
  std::list<Channel*>::iterator lru;

  // Staged operations (async_staged.cc): the channel's pinned copy tables, made at its first
  // staged submission and kept for the channel's life (a stream's chain names them when it is
  // queued). The slots they point into are a block leased to the active operation
  // (Staged::block). Set under mutex_ with submit_mu held; read without mutex_ by the submission
  // and the workers of the channel's operations.
  engine::StreamCopyTables tables;
  // Each device's two tables in device memory into which a run copies its first table
  // (AsyncExecutor::MirrorFor; null tables: refused there), kept for the executor's life
  // (freeing waits for the streams). submit_mu.
  struct Mirror {
    int device = -1;
    runtime::CopyTable* tables = nullptr;
  };
  std::vector<Mirror> mirrors;
  uint32_t last_token = 0;  // the last token a chain on the stream copies for
  // The region the stream's last read copied ahead used (submit_mu): the next read of the stream
  // may copy into it as long as any read holds it, since the stream copies into it only after
  // the earlier reads' copies out of it.
  std::weak_ptr<void> ahead_region;
  size_t ahead_region_bytes = 0;
  // The stream of the library's own that copies ahead for this one (AsyncExecutor::CompanionFor),
  // of `companion_device`, and the event it records after each read's copies; made at the first
  // read copied ahead so, kept for the channel's life (submit_mu), destroyed with the executor.
  runtime::Stream companion = nullptr;
  runtime::Event companion_done = nullptr;
  // Recorded by the stream after the launch that copied a part out of slot 0 or 1 of its region,
  // for the companion to wait for before it copies into that slot again (Ahead::freed).
  runtime::Event companion_freed[2] = {nullptr, nullptr};
  int companion_device = -1;
  bool staged_broken = false;  // a chain could not be enqueued: no more staged operations
  // The staged operation the stream has reached, if any: set and cleared under mutex_, used
  // without it by the worker moving it on. It starts moving once it holds a block; until then
  // the channel is in the executor's starved_ queue.
  std::unique_ptr<Staged> active;
  // Windows of reads the stream may still copy from, in stream order, each let go by the poller
  // once the word `word` reaches `until`: reads copied at submission
  // (AsyncExecutor::CopyAtSubmission) wait for `done` = their seq, which the stream writes after
  // their copies; staged reads that released their stream before its copies ran
  // (AsyncExecutor::DeferLeases) wait for `copied` = their last window's token. Each counts as
  // outstanding. mutex_.
  struct FromWindows {
    async_detail::Word word;
    uint32_t until;
    std::vector<std::shared_ptr<const void>> leases;
    // False while a read copied at submission is still queueing its copies: the entry is made
    // first, but its leases arrive after the stream may already have passed `until`; the poller
    // stops at it until then.
    bool filled = true;
  };
  std::deque<FromWindows> from_windows;
  // Takes out the entry a submission made and holds by address (a deque's push_back keeps
  // references valid): a read that will not say when its copies are done, or one with nothing
  // left to wait for. mutex_.
  void EraseFromWindows(const FromWindows* entry) {
    for (auto it = from_windows.begin(); it != from_windows.end(); ++it) {
      if (&*it == entry) {
        from_windows.erase(it);
        return;
      }
    }
  }
  // Reads at submission (AsyncExecutor::ReadCachedAtSubmission) queue copies from ordinary
  // memory, which the runtime takes into pinned memory of its own; CUDA's holds about 4 MiB of it
  // and waits for the stream when it runs out. So each stream has a budget of such bytes not
  // yet seen passed: every kCachedMarkEvery bytes the stream writes the next mark to kMark, and
  // bytes count until their mark is seen. submit_mu guards these (reset, with no submission in
  // progress, when the channel moves to another stream).
  struct CachedMark {
    uint32_t mark;
    size_t bytes;
  };
  std::deque<CachedMark> cached_marked;  // marks written, oldest first
  size_t cached_marked_bytes = 0;        // their bytes
  size_t cached_unmarked = 0;            // bytes copied since the last mark
  uint32_t last_mark = 0;
  bool cached_broken = false;  // a mark could not be queued: no more reads at submission
  bool waiting = false;        // active waits for copied >= trigger; mutex_ guards both
  bool busy = false;           // in the executor's busy_ list (mutex_)
  uint32_t trigger = 0;

  // Every operation submitted released its stream, and every staged copy is done: no worker
  // and no copy touches the channel. The executor's mutex_ held.
  bool Idle() const {
    using async_detail::LoadWord;
    return submitters == 0 && active == nullptr && from_windows.empty() &&
           LoadWord(&words[async_detail::kDone]) == last_seq &&
           LoadWord(&words[async_detail::kCopied]) == last_token;
  }
};

inline Mutex& AsyncExecutor::SubmitMu(Channel* channel) RETURN_CAPABILITY(channel->submit_mu) {
  return channel->submit_mu;
}

}  // namespace hipfile::core
