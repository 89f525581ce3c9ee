// SPDX-License-Identifier: MIT
#include "engine/plan.h"

#include <algorithm>

#include "util/align.h"

namespace hipfile::engine {
namespace {

struct Run {
  uint64_t begin;
  uint64_t end;
  ChunkMethod method;
  Fallback why;  // kBuffered runs: why buffered
};

// Runs in file order; a run continuing the previous one with the same method extends it.
class RunList {
 public:
  void Add(uint64_t begin, uint64_t end, ChunkMethod method, Fallback why = Fallback::kNone) {
    if (begin >= end) return;
    if (method != ChunkMethod::kBuffered) why = Fallback::kNone;
    if (!runs_.empty() && runs_.back().end == begin && runs_.back().method == method) {
      // One run, whatever the reasons (as many system calls as before there were reasons): it
      // keeps the reason of the longer part.
      Run& last = runs_.back();
      if (end - begin > last.end - last.begin) last.why = why;
      last.end = end;
      return;
    }
    runs_.push_back(Run{begin, end, method, why});
  }
  const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Run> runs_;
};

// The bytes meet staging and may not take the compatibility path.
bool DirectOnly(const PlanRequest& r) {
  return !r.compat_allowed && (r.staged || r.memory_is_staging);
}

// The alignment a direct piece must keep (offset, size and memory), or 0 when the request
// cannot use O_DIRECT at all.
uint64_t DirectAlign(const PlanRequest& r) {
  if (!r.direct_allowed || !IsPowerOfTwo(r.dio_offset_align) || !IsPowerOfTwo(r.dio_mem_align)) {
    return 0;
  }
  if (r.staged && (!IsPowerOfTwo(r.staging_align) || r.staging_align < r.dio_mem_align)) return 0;
  const uint64_t align = std::max<uint64_t>(r.dio_offset_align, r.dio_mem_align);
  if (r.chunk_bytes < align) return 0;  // a staging buffer could not hold one aligned block
  return align;
}

// Why cold bytes cannot take O_DIRECT at all (DirectAlign is 0).
Fallback NoDirectReason(const PlanRequest& r) {
  return r.direct_allowed ? Fallback::kUnaligned : r.no_direct;
}

// A span of cold data: O_DIRECT for its aligned body where that pays, buffered otherwise.
void AddCold(const PlanRequest& r, uint64_t align, uint64_t begin, uint64_t end, RunList* runs) {
  if (align == 0) {
    runs->Add(begin, end, ChunkMethod::kBuffered, NoDirectReason(r));
    return;
  }
  const DirectSplit split = SplitForDirect(begin, end - begin, r.dio_offset_align);
  const uint64_t body_begin = begin + split.head;
  // User memory must be aligned where the body lands; the body's size and every piece of it
  // are multiples of `align`, so checking its start suffices.
  const bool memory_ok =
      r.staged || IsAligned(r.memory_address + (body_begin - r.offset), r.dio_mem_align);
  // A body cut to a multiple of the memory alignment too (it may exceed the offset alignment).
  const uint64_t body_end_aligned = body_begin + AlignDown(split.body, align);
  const uint64_t min_body = DirectOnly(r) ? 1 : std::max<uint64_t>(r.direct_min_bytes, 1);
  if (!memory_ok || body_end_aligned - body_begin < min_body) {
    const bool small = memory_ok && body_end_aligned > body_begin;
    runs->Add(begin, end, ChunkMethod::kBuffered, small ? Fallback::kSmall : Fallback::kUnaligned);
    return;
  }
  runs->Add(begin, body_begin, ChunkMethod::kBuffered, Fallback::kUnaligned);
  runs->Add(body_begin, body_end_aligned, ChunkMethod::kDirect);
  runs->Add(body_end_aligned, end, ChunkMethod::kBuffered, Fallback::kUnaligned);
}

void Cut(const PlanRequest& r, uint64_t align, const Run& run, std::vector<PlannedChunk>* out) {
  auto emit = [&](uint64_t begin, uint64_t end) {
    PlannedChunk c;
    c.offset = begin;
    c.size = static_cast<size_t>(end - begin);
    c.memory_offset = static_cast<size_t>(begin - r.offset);
    c.method = run.method;
    c.why = run.why;
    out->push_back(c);
  };
  switch (run.method) {
    case ChunkMethod::kBuffered: {
      const uint64_t piece = std::max<size_t>(r.chunk_bytes, 1);
      for (uint64_t b = run.begin; b < run.end; b += piece) emit(b, std::min(run.end, b + piece));
      return;
    }
    case ChunkMethod::kDirect: {
      const uint64_t piece = AlignDown(r.chunk_bytes, align);
      for (uint64_t b = run.begin; b < run.end; b += piece) emit(b, std::min(run.end, b + piece));
      return;
    }
    case ChunkMethod::kPageCache: {
      const uint64_t page = r.page_size;
      const uint64_t window = std::max<uint64_t>(page, AlignDown(r.window_bytes, page));
      uint64_t b = run.begin;
      for (uint64_t cut = run.begin / window * window + window; b < run.end; cut += window) {
        const uint64_t e = std::min(run.end, cut);
        emit(b, e);
        b = e;
      }
      return;
    }
  }
}

}  // namespace

const char* ChunkMethodName(ChunkMethod method) {
  switch (method) {
    case ChunkMethod::kPageCache:
      return "page-cache";
    case ChunkMethod::kDirect:
      return "direct";
    case ChunkMethod::kBuffered:
      return "buffered";
  }
  return "unknown";
}

DirectSplit SplitForDirect(uint64_t offset, size_t size, uint64_t align) {
  DirectSplit s;
  const uint64_t first_aligned = AlignUp(offset, align);
  if (first_aligned - offset >= size) {
    s.head = size;
    return s;
  }
  s.head = static_cast<size_t>(first_aligned - offset);
  const size_t rest = size - s.head;
  s.body = static_cast<size_t>(AlignDown(rest, align));
  if (s.body == 0) {
    s.head = size;
    return s;
  }
  s.tail = rest - s.body;
  return s;
}

std::vector<PlannedChunk> PlanTransfer(const PlanRequest& r) {
  std::vector<PlannedChunk> out;
  if (r.size == 0) return out;
  const uint64_t end = r.offset + r.size;
  RunList runs;
  const bool direct_only = DirectOnly(r);
  if (!r.residency_known && !direct_only) {
    // Not looked up: too small for it, or there was nothing to look it up for.
    runs.Add(r.offset, end, ChunkMethod::kBuffered,
             r.direct_allowed || r.page_cache_wanted ? Fallback::kSmall : r.no_direct);
  } else {
    const uint64_t align = DirectAlign(r);
    const bool page_cache = r.page_cache_allowed && r.staged && IsPowerOfTwo(r.page_size);
    uint64_t cursor = r.offset;
    const std::vector<ByteRange> none;  // unknown residency, direct-only: all of it cold
    for (const ByteRange& range : r.residency_known ? r.resident : none) {
      if (range.end <= cursor) continue;
      if (range.begin >= end) break;
      const uint64_t b = std::max(range.begin, cursor);
      const uint64_t e = std::min(range.end, end);
      AddCold(r, align, cursor, b, &runs);
      const bool big = e - b >= std::max<uint64_t>(r.page_cache_min_bytes, 1);
      if (page_cache && (big || direct_only)) {
        runs.Add(b, e, ChunkMethod::kPageCache);
      } else if (direct_only) {
        AddCold(r, align, b, e, &runs);
      } else {
        runs.Add(b, e, ChunkMethod::kBuffered, page_cache ? Fallback::kSmall : Fallback::kWarm);
      }
      cursor = e;
    }
    AddCold(r, align, cursor, end, &runs);
  }
  for (const Run& run : runs.runs()) Cut(r, DirectAlign(r), run, &out);
  return out;
}

const char* CompatReasonText(CompatReason reason) {
  switch (reason) {
    case CompatReason::kNone:
      return "none";
    case CompatReason::kNoDirect:
      return "O_DIRECT is not available for this transfer";
    case CompatReason::kDirectUnusable:
      return "the file's O_DIRECT alignment cannot be kept by the staging buffers";
    case CompatReason::kUnalignedRange:
      return "offset/size not aligned for O_DIRECT and not in the page cache";
    case CompatReason::kUnalignedMemory:
      return "the memory is not aligned for O_DIRECT";
  }
  return "unknown";
}

CompatUse CompatPathUse(const PlanRequest& r, const std::vector<PlannedChunk>& plan) {
  CompatUse use;
  if (!r.staged && !r.memory_is_staging) return use;
  size_t k = 0;
  while (k < plan.size() && plan[k].method != ChunkMethod::kBuffered) ++k;
  if (k == plan.size()) return use;
  use.range = ByteRange{plan[k].offset, plan[k].offset + plan[k].size};
  for (++k; k < plan.size() && plan[k].method == ChunkMethod::kBuffered &&
            plan[k].offset == use.range.end;
       ++k) {
    use.range.end += plan[k].size;
  }
  if (!r.direct_allowed) {
    use.reason = CompatReason::kNoDirect;
  } else if (DirectAlign(r) == 0) {
    use.reason = CompatReason::kDirectUnusable;
  } else {
    // As AddCold decides: user memory must be aligned where the body would land.
    const uint64_t body_begin = AlignUp(use.range.begin, r.dio_offset_align);
    const bool memory_ok =
        r.staged || IsAligned(r.memory_address + (body_begin - r.offset), r.dio_mem_align);
    use.reason = memory_ok ? CompatReason::kUnalignedRange : CompatReason::kUnalignedMemory;
  }
  return use;
}

}  // namespace hipfile::engine
