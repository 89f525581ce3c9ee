// SPDX-License-Identifier: MIT
// The pure rules of a synchronous read or write (hipFile spec §1.8).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "engine/sync_io.h"

namespace hipfile::core {

// Linux's MAX_RW_COUNT: the most one read/write moves, INT_MAX rounded down to a page
// (0x7ffff000 with 4 KiB pages). hipFileRead/Write clamp to it.
size_t MaxRwCount(long page_size);

// buffer_offset must lie inside the buffer and size must fit after it:
// bo < length and size <= length - bo. Offsets are checked non-negative before this.
bool IoRangeValid(size_t buffer_length, size_t size, off_t buffer_offset);

// Whether a transfer meets the file's O_DIRECT alignment (memory, offset and size); false when
// the file has no O_DIRECT descriptor.
bool MeetsDioAlignment(const engine::IoFile& file, const void* memory, size_t size, off_t offset);

}  // namespace hipfile::core
