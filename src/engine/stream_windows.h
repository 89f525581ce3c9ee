// SPDX-License-Identifier: MIT
// The page-cache side of a staged stream-ordered read (docs/async.md, "Staged reads of resident
// data"): the plan SyncEngine::Read would make for the whole operation, and the pinned windows
// its resident chunks are copied from by the operation's stream, found as the operation's chunks
// get to them. A worker must make no runtime call, so windows are only taken where pinned
// already; one due for pinning is queued for the engine's pinner threads
// (PageCachePins::FindOrQueue) and its bytes staged meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/page_cache_pins.h"
#include "engine/plan.h"

namespace hipfile::engine {

// A piece of a read at some file offset.
struct ResidentPiece {
  // The window's address of the offset, which the stream copies from (pinned host memory); null
  // when the piece is to be staged.
  const void* src = nullptr;
  // From a window: its bytes (at most what was asked). To be staged: the bytes before the next
  // piece that may come from a window (0: none may, stage as much as fits).
  size_t bytes = 0;
  // Keeps the window pinned while held (PageCachePins::UnpinRetired skips it): held until the
  // stream has copied from it.
  std::shared_ptr<const void> lease;
};

// Used by one worker at a time. Holds the engine's PageCachePins by reference: the engine must
// outlive it (the operation holds the engine).
class StreamWindows {
 public:
  // `look`: the windows are only looked at (PageCachePins::FindPinned): no use counted, none
  // queued for pinning - for a caller asking whether they hold a read's bytes, not reading them.
  StreamWindows(PageCachePins& pins, std::shared_ptr<MappedFile> mapped,
                std::vector<PlannedChunk> plan, bool look = false);

  // The piece at file offset `offset`, at most `max` bytes from a window: the resident chunks
  // there, pinned, in one window, merged. Offsets asked for never go back.
  ResidentPiece At(uint64_t offset, size_t max);

 private:
  // Chunk i's window, asked for once (FindOrQueue counts each ask as a read of it, as Read's
  // Pin does per chunk); null when its bytes are to be staged.
  const std::shared_ptr<const PinnedWindow>& WindowOf(size_t i);

  PageCachePins& pins_;
  std::shared_ptr<MappedFile> mapped_;
  std::vector<PlannedChunk> plan_;
  size_t next_ = 0;  // the first chunk that does not end at or before the last offset asked
  std::vector<std::shared_ptr<const PinnedWindow>> windows_;  // by chunk, once asked
  std::vector<char> asked_;
  const bool look_;
};

}  // namespace hipfile::engine
