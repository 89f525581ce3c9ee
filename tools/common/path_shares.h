// SPDX-License-Identifier: MIT
// The bytes of a run by the path the library took (hipFileExtGetPathStats between two moments),
// as the tools print them: "Paths: page_cache 97.3%, buffered 2.7% (small)" and JSON.
#pragma once

#include <hipfile_ext.h>

#include <cstdint>
#include <string>

namespace hipfile_tools {

struct PathShares {
  uint64_t bytes[HIPFILE_EXT_PATH_COUNT] = {};         // read and write together
  uint64_t fallback[HIPFILE_EXT_FALLBACK_COUNT] = {};  // buffered bytes by why

  enum Directions { kReads = 1, kWrites = 2, kBoth = 3 };
  static PathShares Between(const hipFileExtPathStats_t& before, const hipFileExtPathStats_t& after,
                            Directions directions = kBoth);
  uint64_t total() const;
  // "page_cache 97.3%, buffered 2.7% (small 2.7%)"; "none" when nothing moved.
  std::string Text() const;
  // {"page_cache": BYTES, ...}: every path, bytes.
  std::string Json() const;
  // {"small": BYTES, ...}: the reasons with bytes.
  std::string FallbackJson() const;
};

}  // namespace hipfile_tools
