// SPDX-License-Identifier: MIT
#include "core/io_rules.h"

#include <climits>

#include "util/align.h"

namespace hipfile::core {

size_t MaxRwCount(long page_size) {
  const uint64_t page = page_size > 0 && IsPowerOfTwo(static_cast<uint64_t>(page_size))
                            ? static_cast<uint64_t>(page_size)
                            : 4096;
  return static_cast<size_t>(AlignDown(INT_MAX, page));
}

bool IoRangeValid(size_t buffer_length, size_t size, off_t buffer_offset) {
  if (buffer_offset < 0) return false;
  const uint64_t bo = static_cast<uint64_t>(buffer_offset);
  return bo < buffer_length && size <= buffer_length - bo;
}

bool MeetsDioAlignment(const engine::IoFile& file, const void* memory, size_t size, off_t offset) {
  if (file.direct_fd < 0 || file.dio_mem_align == 0 || file.dio_offset_align == 0) return false;
  // Alignments reported by statx are powers of two; treat anything else as not aligned.
  if (!IsPowerOfTwo(file.dio_mem_align) || !IsPowerOfTwo(file.dio_offset_align)) return false;
  return offset >= 0 && IsAligned(memory, file.dio_mem_align) &&
         IsAligned(static_cast<uint64_t>(offset), file.dio_offset_align) &&
         IsAligned(size, file.dio_offset_align);
}

}  // namespace hipfile::core
