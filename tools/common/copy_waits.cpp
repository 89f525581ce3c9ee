// SPDX-License-Identifier: MIT
#include "copy_waits.h"

#include <cinttypes>
#include <cstdio>

namespace hipfile_tools {
namespace {

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

hipFileExtCopyWaitStats_t CopyWaitsBetween(const hipFileExtCopyWaitStats_t& before,
                                           const hipFileExtCopyWaitStats_t& after) {
  hipFileExtCopyWaitStats_t d = {};
  d.waits = after.waits - before.waits;
  d.slept = after.slept - before.slept;
  d.poll_ns = after.poll_ns - before.poll_ns;
  d.sleep_ns = after.sleep_ns - before.sleep_ns;
  return d;
}

std::string CopyWaitsJson(const hipFileExtCopyWaitStats_t& w) {
  char json[160];
  std::snprintf(json, sizeof json,
                "{\"waits\": %" PRIu64 ", \"slept\": %" PRIu64
                ", \"poll_ms\": %.3f, \"sleep_ms\": %.3f}",
                w.waits, w.slept, Ms(w.poll_ns), Ms(w.sleep_ns));
  return json;
}

std::string CopyWaitsText(const hipFileExtCopyWaitStats_t& w) {
  char text[160];
  const double share = w.waits > 0 ? 100.0 * static_cast<double>(w.slept) / w.waits : 0;
  std::snprintf(text, sizeof text,
                "Copy waits: %" PRIu64 ", %" PRIu64
                " slept (%.1f%%); polled %.3f ms, asleep %.3f ms",
                w.waits, w.slept, share, Ms(w.poll_ns), Ms(w.sleep_ns));
  return text;
}

}  // namespace hipfile_tools
