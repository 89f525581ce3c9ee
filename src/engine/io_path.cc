// SPDX-License-Identifier: MIT
#include "engine/io_path.h"

namespace hipfile::engine {

const char* IoPathName(IoPath path) {
  switch (path) {
    case IoPath::kPageCache:
      return "page_cache";
    case IoPath::kDirect:
      return "direct";
    case IoPath::kBuffered:
      return "buffered";
    case IoPath::kIoUring:
      return "io_uring";
    case IoPath::kHost:
      return "host";
  }
  return "unknown";
}

const char* FallbackName(Fallback why) {
  switch (why) {
    case Fallback::kNone:
      return "none";
    case Fallback::kNoDirect:
      return "no_direct";
    case Fallback::kDirectOff:
      return "direct_off";
    case Fallback::kPinnedPages:
      return "pinned_pages";
    case Fallback::kUnaligned:
      return "unaligned";
    case Fallback::kSmall:
      return "small";
    case Fallback::kWarm:
      return "warm";
    case Fallback::kNotPinned:
      return "not_pinned";
    case Fallback::kDirectRefused:
      return "direct_refused";
    case Fallback::kNoRing:
      return "no_ring";
  }
  return "unknown";
}

PathBytes& PathBytes::operator+=(const PathBytes& other) {
  for (size_t i = 0; i < kIoPathCount; ++i) bytes[i] += other.bytes[i];
  for (size_t i = 0; i < kFallbackCount; ++i) fallback[i] += other.fallback[i];
  return *this;
}

uint64_t PathBytes::total() const {
  uint64_t sum = 0;
  for (uint64_t b : bytes) sum += b;
  return sum;
}

IoPath PathBytes::primary() const {
  size_t best = static_cast<size_t>(IoPath::kHost);
  for (size_t i = 0; i < kIoPathCount; ++i) {
    if (bytes[i] > bytes[best]) best = i;
  }
  return static_cast<IoPath>(best);
}

}  // namespace hipfile::engine
