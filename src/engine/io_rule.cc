// SPDX-License-Identifier: MIT
#include "engine/io_rule.h"

#include <algorithm>
#include <vector>

#include "util/align.h"

namespace hipfile::engine {
namespace {

// A user buffer's address for the rule: aligned to anything O_DIRECT asks of memory.
constexpr uintptr_t kAlignedAddress = uintptr_t{1} << 30;

// The way the bytes of `chunk` go.
IoWay WayOfChunk(const PlanRequest& request, const PlannedChunk& chunk) {
  IoWay way;
  const bool host = !request.staged && !request.memory_is_staging;
  way.o_direct = chunk.method == ChunkMethod::kDirect;
  switch (chunk.method) {
    case ChunkMethod::kPageCache:
      way.path = IoPath::kPageCache;
      break;
    case ChunkMethod::kDirect:
      way.path = host ? IoPath::kHost : IoPath::kDirect;
      break;
    case ChunkMethod::kBuffered:
      way.path = host ? IoPath::kHost : IoPath::kBuffered;
      way.why = chunk.why;
      // SyncEngine::RefuseCompat: a direct-only plan with buffered bytes moves nothing.
      way.refused = !request.compat_allowed && !host;
      break;
  }
  return way;
}

IoWay FirstWay(const PlanRequest& request) {
  const std::vector<PlannedChunk> plan = PlanTransfer(request);
  if (plan.empty()) return IoWay{};
  return WayOfChunk(request, plan.front());
}

// A read as SyncEngine::Read plans it, of data that is all resident (`warm`) or all cold.
IoWay ReadWay(const ReadRequestInputs& in, uint64_t offset, size_t size, bool warm) {
  PlanRequest request = MakeReadRequest(in, offset, size);
  const bool direct_only = !in.allow_compat && (in.staged || in.memory_is_staging);
  // Read: no residency lookup for direct-only reads, nor below residency_min_bytes.
  if (!direct_only && (request.page_cache_wanted || request.direct_allowed) &&
      size >= in.options->residency_min_bytes) {
    request.residency_known = true;
    request.page_cache_allowed = request.page_cache_wanted;
    if (warm) request.resident.push_back(ByteRange{offset, offset + size});
  }
  return FirstWay(request);
}

}  // namespace

bool PageCacheEnabled(PageCacheMode mode, bool device_memory_is_host) {
  if (mode == PageCacheMode::kAuto) return !device_memory_is_host;
  return mode == PageCacheMode::kOn;
}

namespace {

// What a read's and a write's requests share: the transfer, the memory, the file's alignment.
PlanRequest CommonRequest(const ReadRequestInputs& in, uint64_t offset, size_t size) {
  PlanRequest request;
  request.offset = offset;
  request.size = size;
  request.staged = in.staged;
  request.memory_is_staging = in.memory_is_staging;
  request.compat_allowed = in.allow_compat;
  request.staging_align = in.page_size;
  request.memory_address = in.memory_address;
  request.dio_mem_align = in.file->dio_mem_align;
  request.page_size = in.page_size;
  request.chunk_bytes = in.options->chunk_bytes;
  return request;
}

}  // namespace

PlanRequest MakeReadRequest(const ReadRequestInputs& in, uint64_t offset, size_t size) {
  const EngineOptions& o = *in.options;
  const IoFile& file = *in.file;
  PlanRequest request = CommonRequest(in, offset, size);
  request.direct_allowed = o.direct_reads && file.direct_fd >= 0;
  request.no_direct = file.direct_fd < 0 ? Fallback::kNoDirect : Fallback::kDirectOff;
  request.dio_offset_align = file.dio_offset_align;
  request.window_bytes = o.page_cache_window_bytes;
  request.page_cache_min_bytes = o.page_cache_min_bytes;
  request.page_cache_wanted = in.staged && in.page_cache;
  return request;
}

PlanRequest MakeWriteRequest(const ReadRequestInputs& in, bool direct, uint64_t offset,
                             size_t size) {
  const EngineOptions& o = *in.options;
  const IoFile& file = *in.file;
  PlanRequest request = CommonRequest(in, offset, size);
  request.direct_allowed = direct;
  request.no_direct = file.direct_fd < 0 ? Fallback::kNoDirect
                      : !o.direct_writes ? Fallback::kDirectOff
                                         : Fallback::kPinnedPages;
  request.residency_known = direct;  // written data is all "cold"
  request.dio_offset_align =
      std::max<uint32_t>(file.dio_offset_align, static_cast<uint32_t>(in.page_size));
  return request;
}

const char* IoCaseName(IoCase c) {
  switch (c) {
    case IoCase::kReadWarm:
      return "read_warm";
    case IoCase::kReadWarmUnpinned:
      return "read_warm_unpinned";
    case IoCase::kReadCold:
      return "read_cold";
    case IoCase::kReadUnaligned:
      return "read_unaligned";
    case IoCase::kReadSmall:
      return "read_small";
    case IoCase::kBatchSmall:
      return "batch_small";
    case IoCase::kWriteAligned:
      return "write_aligned";
    case IoCase::kWriteUnaligned:
      return "write_unaligned";
  }
  return "unknown";
}

IoRule DescribeIoRule(const IoRuleInputs& in) {
  const EngineOptions& o = in.options;
  ReadRequestInputs r;
  r.options = &o;
  r.file = &in.file;
  r.staged = in.staged;
  r.memory_address = kAlignedAddress;
  r.allow_compat = in.allow_compat;
  r.page_cache = in.page_cache;
  r.page_size = in.page_size;

  // Large: past every threshold of the planner and the residency lookup, a few MiB.
  const size_t large =
      static_cast<size_t>(AlignUp(std::max({o.residency_min_bytes, o.page_cache_min_bytes,
                                            PlanRequest{}.direct_min_bytes, size_t{1} << 20}),
                                  uint64_t{1} << 20) *
                          4);
  const size_t small = std::max(
      in.page_size, static_cast<size_t>(AlignDown(o.residency_min_bytes / 2, in.page_size)));
  // An offset off every O_DIRECT alignment: the head of a read or write starting there.
  constexpr uint64_t kUnaligned = 1;

  IoRule rule;
  auto& way = rule.ways;
  const auto at = [](IoCase c) { return static_cast<size_t>(c); };
  way[at(IoCase::kReadWarm)] = ReadWay(r, 0, large, /*warm=*/true);
  way[at(IoCase::kReadWarmUnpinned)] = way[at(IoCase::kReadWarm)];
  if (way[at(IoCase::kReadWarm)].path == IoPath::kPageCache && o.page_cache_pin_after_uses > 1) {
    // TransferJob: a page-cache chunk whose window is not pinned yet reads through staging.
    way[at(IoCase::kReadWarmUnpinned)] = IoWay{IoPath::kBuffered, Fallback::kNotPinned};
  }
  way[at(IoCase::kReadCold)] = ReadWay(r, 0, large, /*warm=*/false);
  way[at(IoCase::kReadUnaligned)] = ReadWay(r, kUnaligned, large, /*warm=*/false);
  way[at(IoCase::kReadSmall)] = ReadWay(r, 0, small, /*warm=*/false);

  // SyncEngine::RunMany: small staged entries that may take the compatibility path are grouped
  // (buffered, one io_uring submission where a ring is had); the others run alone.
  if (in.staged && in.allow_compat) {
    rule.grouped_max_bytes = std::min(SyncEngine::kMaxGroupedBytes, o.chunk_bytes);
    way[at(IoCase::kBatchSmall)] = o.io_uring && in.ring
                                       ? IoWay{IoPath::kIoUring, Fallback::kNone}
                                       : IoWay{IoPath::kBuffered, Fallback::kNoRing};
  } else {
    way[at(IoCase::kBatchSmall)] = ReadWay(r, 0, std::min(small, SyncEngine::kMaxGroupedBytes),
                                           /*warm=*/false);
  }

  // Write: no page of the file pinned (a pinned window keeps writes off O_DIRECT: kPinnedPages).
  const bool direct_write = o.direct_writes && in.file.direct_fd >= 0;
  way[at(IoCase::kWriteAligned)] = FirstWay(MakeWriteRequest(r, direct_write, 0, large));
  way[at(IoCase::kWriteUnaligned)] = FirstWay(MakeWriteRequest(r, direct_write, kUnaligned, large));
  return rule;
}

}  // namespace hipfile::engine
