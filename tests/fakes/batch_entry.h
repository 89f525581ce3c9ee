// SPDX-License-Identifier: MIT
// One hipFileBatchIOSubmit entry, as the tests spell them.
#pragma once

#include <hipfile.h>

#include <cstddef>
#include <cstdint>

namespace hipfile::testing {

// An entry moving `size` bytes between the file at `file_offset` and `base + buffer_offset`.
inline hipFileIOParams_t BatchEntry(hipFileOpcode_t opcode, void* fh, void* base, size_t size,
                                    int64_t file_offset, int64_t buffer_offset,
                                    void* cookie = nullptr) {
  hipFileIOParams_t p = {};
  p.mode = hipFileBatch;
  p.opcode = opcode;
  p.fh = fh;
  p.u.batch.devPtr_base = base;
  p.u.batch.size = size;
  p.u.batch.file_offset = file_offset;
  p.u.batch.devPtr_offset = buffer_offset;
  p.cookie = cookie;
  return p;
}

}  // namespace hipfile::testing
