// SPDX-License-Identifier: MIT
// The data side of stream-ordered staged I/O (docs/async.md): a stream's pinned staging block and
// the steps a worker takes on it, one chunk at a time. The executor (core/async) decides when a
// step may run - the stream has copied out of the slot, or into it - and this file moves the
// bytes: between the file and the slot through a ChunkMover (the engine's transfer to pinned
// memory), and into the copy table the stream's kernel reads when it gets there; a read's resident
// bytes are copied by the stream straight from pinned page-cache windows where a WindowFinder
// has them (engine/stream_windows.h). Nothing here makes a GPU call or takes a lock, so a step
// never waits for a stream.
//
// Pinned staging is one budget (SplitStagingBudget): the limit hipFileDriverSetMaxPinnedMemSize /
// PropertiesMaxDevicePinnedMemSizeKB sets is split between the transfers' buffers (StagingPool,
// sync and batch) and these blocks, one per stream carrying staged operations.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/stream_windows.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::engine {

// Bytes one slot of a block holds: a staged operation moves in chunks of this size.
inline constexpr size_t kStreamChunkBytes = size_t{2} << 20;
// The slots of a large block: operations of many chunks move in chunks of this size where they
// get one (core/async/async_executor.h), the size of the synchronous path's chunks. On the H200
// a cold read or a write at the disk's rate needs them (docs/async.md, "At the disk's rate").
inline constexpr size_t kStreamLargeChunkBytes = size_t{8} << 20;

// Staging for one staged operation at a time: one pinned block holding slot 0 and slot 1; token t
// uses slot t % 2. Blocks are the executor's pool, leased to an operation when its stream reaches
// it and back once the stream has copied out of them (core/async/async_executor.h). Pinned
// portable and mapped, so the copy kernel can read them.
class StreamStagingBlock {
 public:
  // A block of kStreamChunkBytes slots (a large one holds two of kStreamLargeChunkBytes).
  static constexpr size_t kBytes = 2 * kStreamChunkBytes;

  StreamStagingBlock() = default;
  explicit StreamStagingBlock(void* block, size_t slot_bytes = kStreamChunkBytes)
      : block_(static_cast<unsigned char*>(block)), slot_bytes_(slot_bytes) {}
  // A new block of two slots of `slot_bytes`; the runtime's error when it cannot be pinned. On
  // CUDA pinning returns while streams wait (bench/results/h200-2026-11-30-pins), but it waits
  // while another thread frees memory: call it without locks a stream's progress needs.
  static Result<StreamStagingBlock> Pin(runtime::GpuRuntime& gpu,
                                        size_t slot_bytes = kStreamChunkBytes);
  // Frees it. On CUDA this waits for every stream: only where no staged operation is in flight.
  void Free(runtime::GpuRuntime& gpu);

  void* get() const { return block_; }
  explicit operator bool() const { return block_ != nullptr; }
  size_t slot_bytes() const { return slot_bytes_; }
  bool large() const { return slot_bytes_ > kStreamChunkBytes; }
  unsigned char* Slot(uint32_t token) const { return block_ + (token % 2) * slot_bytes_; }

 private:
  unsigned char* block_ = nullptr;
  size_t slot_bytes_ = kStreamChunkBytes;
};

// A stream's two copy tables: token t's copy reads table t % 2 when the stream runs it. A stream's
// chain names its tables when it is queued, so they belong to the stream's channel for the
// channel's life (the slots they point into are leased per operation). Pinned portable and
// mapped, apart from any block: 2 x sizeof(runtime::CopyTable) per channel.
class StreamCopyTables {
 public:
  static constexpr size_t kBytes = 2 * sizeof(runtime::CopyTable);

  StreamCopyTables() = default;
  explicit StreamCopyTables(void* tables) : tables_(static_cast<runtime::CopyTable*>(tables)) {}
  // New tables that copy nothing; the runtime's error when they cannot be pinned (as
  // StreamStagingBlock::Pin).
  static Result<StreamCopyTables> Pin(runtime::GpuRuntime& gpu);
  void Free(runtime::GpuRuntime& gpu);

  explicit operator bool() const { return tables_ != nullptr; }
  runtime::CopyTable* Table(uint32_t token) const { return tables_ + token % 2; }
  // Both tables copy nothing (for a stream that gets past them without a worker filling them).
  void Clear() const;

 private:
  runtime::CopyTable* tables_ = nullptr;
};

// Moves `bytes` between pinned `staging` and the file at `offset` (a read fills the staging, a
// write empties it): the bytes that moved (short at end of file or when an error stopped them),
// or the error when none did. Makes no GPU call.
using ChunkMover = std::function<Result<size_t>(void* staging, size_t bytes, off_t offset)>;

// A read's piece at file `offset`, at most `max` bytes from a pinned page-cache window
// (StreamWindows::At): where the stream may copy it from without staging. Makes no GPU call.
using WindowFinder = std::function<ResidentPiece(off_t offset, size_t max)>;

// One staged operation's chunks: what has moved, what the stream may copy, what stopped it.
// Chunk k is token first_token + k. Used by one worker at a time.
//
// A write's chunk k is bytes [k, k + 1) x chunk_bytes of the operation. A read's chunk k
// starts where chunk k - 1 stopped and reaches at least (k + 1) x chunk_bytes (or the end),
// so the chunks fixed at submission always suffice; where its bytes come from pinned page-cache
// windows (WindowFinder) a chunk may reach much further, and the chunks after the operation's
// last byte copy nothing (docs/async.md, "Staged reads of resident data").
struct StagedChunks {
  uint32_t first_token = 0;
  size_t chunk_bytes = kStreamChunkBytes;  // the slots of its block
  void* device = nullptr;  // the operation's device memory (its buffer offset applied)
  size_t size = 0;         // bytes it moves at most
  off_t file_offset = 0;
  size_t moved = 0;               // bytes read from or written to the file
  Status error;                   // what stopped the transfer, if anything did
  bool stopped = false;           // no more bytes move: error, end of file, or nothing left
  size_t released = 0;            // chunks whose table the stream may copy
  size_t written = 0;             // writes: chunks written to the file
  size_t slot_bytes[2] = {0, 0};  // writes: bytes the slot's released chunk holds
  // Reads: bytes given to chunks so far (the next chunk starts there); of them, bytes the stream
  // copies from windows.
  size_t assigned = 0;
  size_t from_windows = 0;
  // Reads: the windows the stream copies from, held until it has (copied >= leased_until).
  std::vector<std::shared_ptr<const void>> leases;
  uint32_t leased_until = 0;
  // Reads copied ahead in parts (core/async: AsyncExecutor::SetAheadPartBytes): the chunks come in
  // runs of run_bytes (a multiple of chunk_bytes), each copied by one launch from what its stream
  // copied ahead for that run; a chunk copies nothing once the chunks before it reached its
  // share, so that the run's first chunk may take the whole run. 0: the operation is one run.
  size_t run_bytes = 0;

  // The chunks `bytes` make (a staged operation moves at least one byte:
  // AsyncExecutor::CanStage).
  static size_t ChunksFor(size_t bytes, size_t chunk_bytes = kStreamChunkBytes) {
    return (bytes + chunk_bytes - 1) / chunk_bytes;
  }
  uint32_t Token(size_t k) const { return first_token + static_cast<uint32_t>(k); }
  // Where chunk k's share of the fixed layout ends: the chunks before it and it reach this far.
  size_t Floor(size_t k) const { return std::min(size, (k + 1) * chunk_bytes); }
  // Where the run chunk k is in ends (run_bytes), the operation's end where it is one run.
  size_t RunEnd(size_t k) const;
  // Chunk k's share of the transfer: none once it stopped.
  size_t ChunkBytes(size_t k) const;

  // A read's chunk k: its bytes from pinned windows where `windows` (may be empty) has them and
  // the copy would not be slower than from the slot (the copy kernel moves words only between
  // 16-byte aligned addresses), the rest read from the file into its slot; writes the table that
  // copies them, and stores ready = its token (release) so the stream copies it. Past a failed or
  // short read, and past the operation's last byte, the table copies nothing; in runs
  // (run_bytes), so does a chunk whose share the chunks before it took. The table says whether it
  // ends its run's copies (CopyTable::last). The stream must be done with the table and the slot
  // (copied >= token - 2) unless Quiet(tables, k).
  void FillForRead(const StreamStagingBlock& block, const StreamCopyTables& tables, uint32_t* ready,
                   size_t k, const ChunkMover& move, const WindowFinder& windows = nullptr);
  // A read's chunk k copies nothing (past the operation's end or its failure; in runs, its share
  // taken already), and the stream's launch for its token would copy nothing from its table as
  // it is (CopyTable::token): it may be released at once, with the table untouched, however far
  // behind the stream is.
  bool Quiet(const StreamCopyTables& tables, size_t k) const;
  // A read holds windows the stream may still copy from, until `copied` reaches leased_until.
  bool Leased() const { return !leases.empty(); }
  // A write's chunk k: writes the table that copies it from the device into its slot, and
  // stores ready = its token.
  void ReleaseForWrite(const StreamStagingBlock& block, const StreamCopyTables& tables,
                       uint32_t* ready, size_t k);
  // A write's next chunk once the stream has copied it into its slot: writes the slot to the
  // file and counts it written.
  void WriteOut(const StreamStagingBlock& block, const ChunkMover& move);
  // What the operation moved, or the error that stopped it when nothing did.
  Result<size_t> Outcome() const;
  // Reads: room in `leases` for one more, so that taking a window cannot fail once it is found
  // (false: out of memory, the piece is staged).
  bool RoomForALease();
};

// The pinned staging limit, split. Transfers (sync and batch) get two buffers per I/O thread
// that works on one request, but at most half the limit and at least one buffer; streams
// carrying staged operations get the rest, in StreamStagingBlocks (the channels' copy tables are
// outside it, as their words are). The limit is first
// capped at a quarter of physical memory (when known): pinned pages cannot be reclaimed.
struct StagingBudget {
  uint64_t limit = 0;           // what was asked, capped
  uint64_t transfer_bytes = 0;  // a multiple of chunk_bytes
  size_t stream_blocks = 0;
};
StagingBudget SplitStagingBudget(uint64_t limit, uint64_t physical_memory, size_t chunk_bytes,
                                 size_t io_threads);

}  // namespace hipfile::engine
