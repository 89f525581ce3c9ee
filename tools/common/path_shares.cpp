// SPDX-License-Identifier: MIT
#include "path_shares.h"

#include <cinttypes>
#include <cstdio>

namespace hipfile_tools {
namespace {

std::string Percent(uint64_t part, uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

}  // namespace

PathShares PathShares::Between(const hipFileExtPathStats_t& before,
                               const hipFileExtPathStats_t& after, Directions directions) {
  const uint64_t r = (directions & kReads) != 0 ? 1 : 0;
  const uint64_t w = (directions & kWrites) != 0 ? 1 : 0;
  PathShares s;
  for (int i = 0; i < HIPFILE_EXT_PATH_COUNT; ++i) {
    s.bytes[i] = r * (after.read_bytes[i] - before.read_bytes[i]) +
                 w * (after.write_bytes[i] - before.write_bytes[i]);
  }
  for (int i = 0; i < HIPFILE_EXT_FALLBACK_COUNT; ++i) {
    s.fallback[i] = r * (after.read_fallback_bytes[i] - before.read_fallback_bytes[i]) +
                    w * (after.write_fallback_bytes[i] - before.write_fallback_bytes[i]);
  }
  return s;
}

uint64_t PathShares::total() const {
  uint64_t sum = 0;
  for (uint64_t b : bytes) sum += b;
  return sum;
}

std::string PathShares::Text() const {
  const uint64_t whole = total();
  if (whole == 0) return "none";
  std::string out;
  for (int i = 0; i < HIPFILE_EXT_PATH_COUNT; ++i) {
    if (bytes[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(hipFileExtPathName(i)) + " " + Percent(bytes[i], whole);
    if (i != hipFileExtPathBuffered) continue;
    std::string why;
    for (int r = 0; r < HIPFILE_EXT_FALLBACK_COUNT; ++r) {
      if (fallback[r] == 0) continue;
      if (!why.empty()) why += ", ";
      why += std::string(hipFileExtFallbackName(r)) + " " + Percent(fallback[r], whole);
    }
    if (!why.empty()) out += " (" + why + ")";
  }
  return out;
}

std::string PathShares::Json() const {
  std::string out = "{";
  for (int i = 0; i < HIPFILE_EXT_PATH_COUNT; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s\"%s\": %" PRIu64, i == 0 ? "" : ", ", hipFileExtPathName(i),
                  bytes[i]);
    out += buf;
  }
  return out + "}";
}

std::string PathShares::FallbackJson() const {
  std::string out = "{";
  for (int r = 0; r < HIPFILE_EXT_FALLBACK_COUNT; ++r) {
    if (fallback[r] == 0) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s\"%s\": %" PRIu64, out.size() > 1 ? ", " : "",
                  hipFileExtFallbackName(r), fallback[r]);
    out += buf;
  }
  return out + "}";
}

}  // namespace hipfile_tools
