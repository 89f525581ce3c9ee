// SPDX-License-Identifier: MIT
// Alignment arithmetic on unsigned sizes. `a` must be a power of two unless noted.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hipfile {

constexpr bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
constexpr uint64_t AlignDown(uint64_t v, uint64_t a) { return v & ~(a - 1); }
constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
constexpr bool IsAligned(uint64_t v, uint64_t a) { return (v & (a - 1)) == 0; }
inline bool IsAligned(const void* p, uint64_t a) {
  return IsAligned(reinterpret_cast<uintptr_t>(p), a);
}

}  // namespace hipfile
