// SPDX-License-Identifier: MIT
// Which way each byte of a transfer went, and why bytes took the buffered path: what the engine
// reports to the statistics (core/stats.h) and hipFileExtGetPathStats shows (hipfile_ext.h, whose
// enums have these values in this order).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hipfile::engine {

enum class IoPath : uint8_t {
  kPageCache,  // the GPU copied from pinned page-cache windows of the file
  kDirect,     // O_DIRECT into or out of pinned staging
  kBuffered,   // pread/pwrite through the page cache into or out of staging (compatibility path)
  kIoUring,    // a batch group: buffered through one staging buffer, one io_uring submission
  kHost,       // host memory: the system calls moved the bytes straight into or out of it
};
inline constexpr size_t kIoPathCount = 5;

// Why bytes that meet staging took the buffered path.
enum class Fallback : uint8_t {
  kNone,
  kNoDirect,       // the file has no O_DIRECT descriptor (its file system refused O_DIRECT)
  kDirectOff,      // O_DIRECT turned off (HIPFILE_DIRECT_READS / HIPFILE_DIRECT_WRITES)
  kPinnedPages,    // a write: pages of the file are pinned for the page-cache path
  kUnaligned,      // off the file's O_DIRECT alignment (an unaligned head or tail, or memory)
  kSmall,          // too small to look the cache up, for an O_DIRECT body, or to pin
  kWarm,           // in the page cache, where its pages are not pinned (CPU runtime)
  kNotPinned,      // in the page cache, no window pinned yet (first reads, or at the cap)
  kDirectRefused,  // O_DIRECT refused at run time (EINVAL)
  kNoRing,         // a batch group whose system calls ran one by one (io_uring off or refused)
};
inline constexpr size_t kFallbackCount = 10;

const char* IoPathName(IoPath path);
const char* FallbackName(Fallback why);

// One transfer's bytes by path, and its buffered bytes by why.
struct PathBytes {
  uint64_t bytes[kIoPathCount] = {};
  uint64_t fallback[kFallbackCount] = {};

  void Add(IoPath path, uint64_t n) { bytes[static_cast<size_t>(path)] += n; }
  void AddBuffered(Fallback why, uint64_t n) {
    Add(IoPath::kBuffered, n);
    fallback[static_cast<size_t>(why)] += n;
  }
  PathBytes& operator+=(const PathBytes& other);
  uint64_t total() const;
  // The path that moved the most bytes (an operation is counted under it); kHost when none did.
  IoPath primary() const;
};

}  // namespace hipfile::engine
