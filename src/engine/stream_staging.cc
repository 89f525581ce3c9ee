// SPDX-License-Identifier: MIT
#include "engine/stream_staging.h"

#include <errno.h>

#include <algorithm>

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {
namespace {

// The table holds one copy of `bytes` (none when 0) for `token`.
void SetTable(runtime::CopyTable* table, uint32_t token, const void* dst, const void* src,
              size_t bytes) {
  table->count = 0;
  table->token = token;
  table->last = 0;
  if (bytes == 0) return;
  table->copy[0] = {reinterpret_cast<uintptr_t>(dst), reinterpret_cast<uintptr_t>(src), bytes};
  table->count = 1;
}

void StoreRelease(uint32_t* word, uint32_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

// The copy kernel (runtime/cuda/gather_kernel.cu) moves 16-byte words where both addresses are
// 16-byte aligned, and bytes one at a time otherwise. A slot is aligned; a window's address of a
// file offset is aligned as the offset is (windows start on pages). So where the destination is
// aligned and the offset is not, a copy from a window would crawl where staging does not.
bool SlowerFromAWindow(const void* dst, off_t offset) {
  return (reinterpret_cast<uintptr_t>(dst) & 15) == 0 && (offset & 15) != 0;
}

// Whether `next` copies the bytes that follow `last`'s on both sides, so that one copy may take
// both: a copy moves each byte between the same addresses either way. Not where it would slow
// `next` down: the kernel moves 16-byte words only where a copy starts on them
// (copy_kernel_body.h's CopyPiece), and words stay words through the join, bytes stay bytes.
bool Follows(const runtime::CopyTable::Copy& last, const runtime::CopyTable::Copy& next) {
  const bool joined = last.dst + last.bytes == next.dst && last.src + last.bytes == next.src;
  const bool in_words = ((last.dst | last.src) & 15) == 0;
  return joined && (in_words || ((next.dst | next.src) & 15) != 0);
}

}  // namespace

Result<StreamStagingBlock> StreamStagingBlock::Pin(runtime::GpuRuntime& gpu, size_t slot_bytes) {
  void* block = nullptr;
  const hipError_t e =
      gpu.HostMalloc(&block, 2 * slot_bytes, hipHostMallocPortable | hipHostMallocMapped);
  if (e != hipSuccess) return Status::Gpu(e);
  if (block == nullptr) return Status::Gpu(hipErrorOutOfMemory);
  return StreamStagingBlock(block, slot_bytes);
}

void StreamStagingBlock::Free(runtime::GpuRuntime& gpu) {
  if (block_ == nullptr) return;
  const hipError_t e = gpu.HostFree(block_);
  if (e != hipSuccess) HF_LOG(kWarn, "freeing a stream's staging failed: %s", GpuErrorName(e));
  block_ = nullptr;
}

Result<StreamCopyTables> StreamCopyTables::Pin(runtime::GpuRuntime& gpu) {
  void* tables = nullptr;
  const hipError_t e = gpu.HostMalloc(&tables, kBytes, hipHostMallocPortable | hipHostMallocMapped);
  if (e != hipSuccess) return Status::Gpu(e);
  if (tables == nullptr) return Status::Gpu(hipErrorOutOfMemory);
  StreamCopyTables made(tables);
  made.Clear();
  return made;
}

void StreamCopyTables::Free(runtime::GpuRuntime& gpu) {
  if (tables_ == nullptr) return;
  const hipError_t e = gpu.HostFree(tables_);
  if (e != hipSuccess) HF_LOG(kWarn, "freeing a stream's copy tables failed: %s", GpuErrorName(e));
  tables_ = nullptr;
}

void StreamCopyTables::Clear() const {
  for (uint32_t t = 0; t < 2; ++t) {
    Table(t)->count = 0;
    Table(t)->token = t;
    Table(t)->last = 0;
  }
}

size_t StagedChunks::ChunkBytes(size_t k) const {
  const size_t done = k * chunk_bytes;
  return stopped || size <= done ? 0 : std::min(chunk_bytes, size - done);
}

void StagedChunks::FillForRead(const StreamStagingBlock& block, const StreamCopyTables& tables,
                               uint32_t* ready, size_t k, const ChunkMover& move,
                               const WindowFinder& windows) {
  const uint32_t token = Token(k);
  runtime::CopyTable* table = tables.Table(token);
  if (Quiet(tables, k)) {  // the stream's launch for the token copies nothing already
    StoreRelease(ready, token);
    return;
  }
  unsigned char* staging = block.Slot(token);
  // At least to the end of chunk k's share of the fixed layout, so that the chunks suffice; in
  // runs, no further unless the run's copy ahead serves it (a chunk after it in the run then
  // copies nothing, and the run's one launch ends with this table). A read that is one run
  // (run_bytes 0) goes on past the floor through windows only, as long as they follow one
  // another: a read whose bytes are all in pinned windows is then copied whole by its first
  // table, which the whole grid of its launch copies (CopyTableRunAsync ends the run there),
  // where a table per 64 MiB window had the launch take its tokens with one block (a 256 MiB
  // read: eight such launches at once moved 45 GiB/s on an H100, where DMA moves 50;
  // bench/results/h100-2026-12-07-kern).
  const size_t floor = Floor(k);
  size_t used = 0;  // of the slot
  uint32_t count = 0;
  // A piece that goes on where the table's last copy ends, on both sides, lengthens that copy
  // (Follows): the windows of one file are one mapping, so a read across many of them is one
  // copy, and a table reaches no limit of entries before the read's end (a read of more than
  // 127 windows, 7.9 GiB, went on one block past its first table).
  const auto add = [&](const void* src, size_t bytes) {
    const runtime::CopyTable::Copy piece{
        reinterpret_cast<uintptr_t>(static_cast<char*>(device) + assigned),
        reinterpret_cast<uintptr_t>(src), bytes};
    if (count > 0 && Follows(table->copy[count - 1], piece)) {
      table->copy[count - 1].bytes += bytes;
    } else {
      table->copy[count++] = piece;
    }
    assigned += bytes;
    moved += bytes;
  };
  while (!stopped && assigned < size && count < runtime::CopyTable::kMaxCopies) {
    const bool past_floor = assigned >= floor && !(count == 0 && run_bytes == 0);
    if (past_floor && run_bytes != 0) break;
    const off_t at = file_offset + static_cast<off_t>(assigned);
    // The last entry of the table is always staged, to the floor: the chunks must suffice.
    const bool last_entry = count + 1 == runtime::CopyTable::kMaxCopies;
    ResidentPiece piece;
    if (windows && !last_entry && !SlowerFromAWindow(static_cast<char*>(device) + assigned, at) &&
        RoomForALease()) {
      piece = windows(at, size - assigned);
    }
    if (piece.src != nullptr && piece.bytes > 0) {
      leases.push_back(std::move(piece.lease));
      leased_until = token;
      from_windows += piece.bytes;
      add(piece.src, piece.bytes);
      continue;
    }
    if (past_floor) break;  // past the floor, windows only
    const size_t room = chunk_bytes - used;
    if (room == 0) break;  // the floor is reached: the slot held chunk k's share
    size_t want = std::min(room, size - assigned);
    if (piece.bytes > 0 && !last_entry) want = std::min(want, piece.bytes);  // a window may follow
    const Result<size_t> read = move(staging + used, want, at);
    const size_t got = read.ok() ? *read : 0;
    if (got > 0) add(staging + used, got);
    used += got;
    if (got < want) {  // end of file, or an error: nothing more moves
      stopped = true;
      if (!read.ok()) error = read.status();
    }
  }
  table->count = count;
  table->token = token;
  // Nothing after this in its run copies (CopyTableRunAsync's launch may stop here): the run's
  // bytes are all given to chunks, or the transfer stopped.
  table->last = stopped || assigned >= RunEnd(k) ? 1 : 0;
  StoreRelease(ready, token);  // the table and the staging are written
}

void StagedChunks::ReleaseForWrite(const StreamStagingBlock& block, const StreamCopyTables& tables,
                                   uint32_t* ready, size_t k) {
  const uint32_t token = Token(k);
  const size_t want = ChunkBytes(k);
  slot_bytes[token % 2] = want;
  SetTable(tables.Table(token), token, block.Slot(token),
           static_cast<char*>(device) + k * chunk_bytes, want);
  StoreRelease(ready, token);
}

void StagedChunks::WriteOut(const StreamStagingBlock& block, const ChunkMover& move) {
  const uint32_t token = Token(written);
  const size_t bytes = slot_bytes[token % 2];
  if (bytes > 0 && !stopped) {
    const off_t at = file_offset + static_cast<off_t>(written * chunk_bytes);
    const Result<size_t> wrote = move(block.Slot(token), bytes, at);
    const size_t n = wrote.ok() ? *wrote : 0;
    moved += n;
    if (n < bytes) {
      stopped = true;
      error = wrote.ok() ? Status::Errno(EIO) : wrote.status();
    }
  }
  ++written;
}

size_t StagedChunks::RunEnd(size_t k) const {
  if (run_bytes == 0) return size;
  return std::min(size, (k * chunk_bytes / run_bytes + 1) * run_bytes);
}

bool StagedChunks::Quiet(const StreamCopyTables& tables, size_t k) const {
  // In runs a chunk whose share was taken copies nothing; otherwise it takes at least a piece.
  if (!stopped && assigned < size && (run_bytes == 0 || assigned < Floor(k))) return false;
  // The table was last filled for an earlier token of the stream (its copies are not for this
  // launch), or for this very one 2^32 tokens ago and copies nothing.
  return tables.Table(Token(k))->CopiesNothingFor(Token(k));
}

bool StagedChunks::RoomForALease() {
  try {
    leases.reserve(leases.size() + 1);
    return true;
  } catch (...) {
    return false;  // out of memory: the piece is staged
  }
}

Result<size_t> StagedChunks::Outcome() const {
  if (moved > 0 || error.ok()) return moved;
  return error;
}

StagingBudget SplitStagingBudget(uint64_t limit, uint64_t physical_memory, size_t chunk_bytes,
                                 size_t io_threads) {
  StagingBudget budget;
  budget.limit = limit;
  if (physical_memory > 0) budget.limit = std::min(limit, physical_memory / 4);
  const uint64_t chunk = std::max<uint64_t>(chunk_bytes, 1);
  const uint64_t wanted = 2 * std::max<uint64_t>(io_threads, 1) * chunk;
  const uint64_t half = budget.limit / 2 / chunk * chunk;
  budget.transfer_bytes = std::max(std::min(wanted, half), chunk);
  const uint64_t rest =
      budget.limit > budget.transfer_bytes ? budget.limit - budget.transfer_bytes : 0;
  budget.stream_blocks = static_cast<size_t>(rest / StreamStagingBlock::kBytes);
  return budget;
}

}  // namespace hipfile::engine
