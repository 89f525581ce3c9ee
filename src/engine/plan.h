// SPDX-License-Identifier: MIT
// The transfer planner: a pure function from the numbers of one request to a list of chunks, each
// with the way its bytes move. The engine only executes plans; every policy decision is here.
//
//   kPageCache  resident data: the GPU copies from pinned windows of a read-only file mapping
//   kDirect     cold data: O_DIRECT on the aligned body of the range
//   kBuffered   everything else: pread/pwrite through the page cache
//
// A kBuffered chunk whose bytes land in (leave from) a staging buffer - the request is staged,
// or its memory is a staging buffer of the caller's - is the compatibility path: the CPU copies
// between the page cache and staging (docs/environment.md, HIPFILE_ALLOW_COMPAT_MODE). Into host
// memory the syscall moves the bytes straight into the user's buffer, which is not.
//
// Rules:
// - Residency is trusted only where it was looked up (`residency_known`); unknown data is read
//   buffered, because O_DIRECT on warm data would go to the disk for bytes already in memory.
// - kPageCache covers resident spans of at least `page_cache_min_bytes`, only when allowed.
// - Neighbouring spans of one method are merged before they are cut into chunks.
// - kDirect covers the aligned body of each cold span when allowed: file offset and size
//   aligned to dio_offset_align, and the memory the bytes land in aligned to dio_mem_align
//   (staging buffers are aligned to `staging_align`; user memory is checked at its address).
//   The unaligned head and tail of the span are kBuffered.
// - No chunk is larger than `chunk_bytes` (kDirect, kBuffered: one staging buffer). kPageCache
//   chunks are cut at multiples of `window_bytes` (rounded down to pages) in the file, so each
//   lies in one window of engine/page_cache_pins.h. kDirect pieces stay aligned.
// - Chunks are in file order, cover the request exactly and do not overlap.
// - compat_allowed false and the bytes meet staging (direct-only): unknown residency is planned
//   as cold (O_DIRECT reads cached pages coherently), resident spans take the page cache at any
//   size where allowed and O_DIRECT otherwise, and no direct body is too short. What still needs
//   kBuffered is the compatibility path; CompatPathUse says which bytes and why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/io_path.h"

namespace hipfile::engine {

enum class ChunkMethod : uint8_t { kPageCache, kDirect, kBuffered };

const char* ChunkMethodName(ChunkMethod method);

struct PlannedChunk {
  uint64_t offset = 0;  // file offset
  size_t size = 0;
  size_t memory_offset = 0;  // offset - the request's offset
  ChunkMethod method = ChunkMethod::kBuffered;
  // A kBuffered chunk: why not O_DIRECT or the page cache (statistics; not compared). Where
  // buffered spans of different reasons meet, the merged run has the reason of its longer part.
  Fallback why = Fallback::kNone;

  friend bool operator==(const PlannedChunk& a, const PlannedChunk& b) {
    return a.offset == b.offset && a.size == b.size && a.memory_offset == b.memory_offset &&
           a.method == b.method;
  }
};

// A byte range [begin, end) of the file.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct PlanRequest {
  uint64_t offset = 0;
  size_t size = 0;

  // Memory side. staged: bytes pass through staging buffers aligned to staging_align. Otherwise
  // the file is read into (written from) memory_address itself.
  bool staged = true;
  size_t staging_align = 4096;
  uintptr_t memory_address = 0;

  // The memory is a staging buffer of the caller's (a stream's staging slot), though the request
  // is not staged: its kBuffered chunks are the compatibility path too.
  bool memory_is_staging = false;
  // false (HIPFILE_ALLOW_COMPAT_MODE off): plan direct-only where the bytes meet staging.
  bool compat_allowed = true;

  // O_DIRECT: allowed when the file has a direct descriptor and the engine wants it; when not,
  // why (the reason buffered chunks report).
  bool direct_allowed = false;
  Fallback no_direct = Fallback::kNoDirect;
  // The page-cache path was wanted for this request (its residency is looked up when large
  // enough): a request left unknown is then buffered for being small.
  bool page_cache_wanted = false;
  uint32_t dio_mem_align = 0;
  uint32_t dio_offset_align = 0;

  // Page cache: allowed for staged reads when the engine wants it. resident: sorted, disjoint
  // ranges, meaningful only when residency_known.
  bool page_cache_allowed = false;
  bool residency_known = false;
  std::vector<ByteRange> resident;
  size_t page_cache_min_bytes = 1 << 20;
  size_t page_size = 4096;
  // Cold spans whose aligned body is shorter than this are read buffered: a few small direct
  // reads between warm pages cost more than they save, and would fragment the plan.
  size_t direct_min_bytes = 64 << 10;

  size_t chunk_bytes = 8 << 20;
  size_t window_bytes = 64 << 20;
};

// The head, aligned body and tail of [offset, offset + size) for an alignment `align` (a power
// of two): head + body + tail == size, body a multiple of align starting at an aligned offset,
// head < align, tail < align. A range holding no aligned block is all head.
struct DirectSplit {
  size_t head = 0;
  size_t body = 0;
  size_t tail = 0;
};
DirectSplit SplitForDirect(uint64_t offset, size_t size, uint64_t align);

std::vector<PlannedChunk> PlanTransfer(const PlanRequest& request);

// Why bytes of a plan need the compatibility path: what the planner can see.
enum class CompatReason : uint8_t {
  kNone,             // the plan does not use it
  kNoDirect,         // O_DIRECT is not allowed for the request (the engine knows why)
  kDirectUnusable,   // the file's O_DIRECT alignments cannot be kept (staging, chunk size)
  kUnalignedRange,   // bytes off O_DIRECT's offset alignment and not in the page cache
  kUnalignedMemory,  // the memory the bytes land in is off O_DIRECT's memory alignment
};
const char* CompatReasonText(CompatReason reason);

struct CompatUse {
  CompatReason reason = CompatReason::kNone;
  ByteRange range;  // the first run of chunks on the compatibility path
};
// The plan's use of the compatibility path: its first kBuffered run where the bytes meet
// staging, and why O_DIRECT could not take it. kNone for host memory and for plans without one.
CompatUse CompatPathUse(const PlanRequest& request, const std::vector<PlannedChunk>& plan);

}  // namespace hipfile::engine
