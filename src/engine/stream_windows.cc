// SPDX-License-Identifier: MIT
#include "engine/stream_windows.h"

#include <algorithm>
#include <utility>

namespace hipfile::engine {

StreamWindows::StreamWindows(PageCachePins& pins, std::shared_ptr<MappedFile> mapped,
                             std::vector<PlannedChunk> plan, bool look)
    : pins_(pins),
      mapped_(std::move(mapped)),
      plan_(std::move(plan)),
      windows_(plan_.size()),
      asked_(plan_.size(), 0),
      look_(look) {}

const std::shared_ptr<const PinnedWindow>& StreamWindows::WindowOf(size_t i) {
  if (asked_[i] == 0) {
    asked_[i] = 1;
    if (plan_[i].method == ChunkMethod::kPageCache) {
      windows_[i] = look_ ? pins_.FindPinned(mapped_, plan_[i].offset)
                          : pins_.FindOrQueue(mapped_, plan_[i].offset);
    }
  }
  return windows_[i];
}

ResidentPiece StreamWindows::At(uint64_t offset, size_t max) {
  while (next_ < plan_.size() && plan_[next_].offset + plan_[next_].size <= offset) ++next_;
  // The first page-cache chunk at or after the offset.
  size_t i = next_;
  while (i < plan_.size() && plan_[i].method != ChunkMethod::kPageCache) ++i;
  if (i == plan_.size()) return {};  // none: stage the rest
  const PlannedChunk& c = plan_[i];
  if (c.offset > offset) return {nullptr, static_cast<size_t>(c.offset - offset), nullptr};
  const std::shared_ptr<const PinnedWindow>& window = WindowOf(i);
  if (window == nullptr) {  // not pinned (yet): stage to the chunk's end
    return {nullptr, static_cast<size_t>(c.offset + c.size - offset), nullptr};
  }
  // On through the page-cache chunks that follow in the same window.
  uint64_t end = c.offset + c.size;
  for (size_t j = i + 1; j < plan_.size() && end - offset < max; ++j) {
    const PlannedChunk& d = plan_[j];
    if (d.method != ChunkMethod::kPageCache || d.offset != end || WindowOf(j) != window) break;
    end += d.size;
  }
  const size_t bytes = static_cast<size_t>(std::min<uint64_t>(end - offset, max));
  return {window->At(offset), bytes, window};
}

}  // namespace hipfile::engine
