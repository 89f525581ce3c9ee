// SPDX-License-Identifier: MIT
#include "async_ways.h"

#include <cinttypes>
#include <cstdio>

namespace hipfile_tools {
namespace {

uint64_t Ops(const hipFileExtAsyncWayStats_t& w, int way) {
  return w.read_ops[way] + w.write_ops[way];
}

}  // namespace

hipFileExtAsyncWayStats_t WaysBetween(const hipFileExtAsyncWayStats_t& before,
                                      const hipFileExtAsyncWayStats_t& after) {
  hipFileExtAsyncWayStats_t d = {};
  for (int i = 0; i < HIPFILE_EXT_MAX_ASYNC_WAYS; ++i) {
    d.read_ops[i] = after.read_ops[i] - before.read_ops[i];
    d.write_ops[i] = after.write_ops[i] - before.write_ops[i];
  }
  d.large_chunks = after.large_chunks - before.large_chunks;
  d.chains_alone = after.chains_alone - before.chains_alone;
  d.staging_waits = after.staging_waits - before.staging_waits;
  d.copied_ahead = after.copied_ahead - before.copied_ahead;
  d.used_ahead = after.used_ahead - before.used_ahead;
  d.ahead_on_companion = after.ahead_on_companion - before.ahead_on_companion;
  d.one_launch = after.one_launch - before.one_launch;
  d.ahead_in_parts = after.ahead_in_parts - before.ahead_in_parts;
  d.ahead_not_pinned = after.ahead_not_pinned - before.ahead_not_pinned;
  d.ahead_no_room = after.ahead_no_room - before.ahead_no_room;
  d.ahead_windows_chosen = after.ahead_windows_chosen - before.ahead_windows_chosen;
  return d;
}

std::string StagedText(const hipFileExtAsyncWayStats_t& w) {
  char text[512];
  std::snprintf(text, sizeof text,
                "%" PRIu64 " in large chunks, %" PRIu64 " queued alone, %" PRIu64
                " waited for a block; reads copied ahead %" PRIu64 " (%" PRIu64 " used, %" PRIu64
                " on a companion stream, %" PRIu64 " in parts), not %" PRIu64 " (%" PRIu64
                " not all in pinned windows, %" PRIu64 " no room); %" PRIu64
                " reads copied in one launch; %" PRIu64 " not in parts, by the device's measure",
                w.large_chunks, w.chains_alone, w.staging_waits, w.copied_ahead, w.used_ahead,
                w.ahead_on_companion, w.ahead_in_parts, w.ahead_not_pinned + w.ahead_no_room,
                w.ahead_not_pinned, w.ahead_no_room, w.one_launch, w.ahead_windows_chosen);
  return text;
}

std::string StagedJson(const hipFileExtAsyncWayStats_t& w) {
  char json[512];
  std::snprintf(json, sizeof json,
                "\"large_chunks\": %" PRIu64 ", \"chains_alone\": %" PRIu64
                ", \"staging_waits\": %" PRIu64 ", \"copied_ahead\": %" PRIu64
                ", \"used_ahead\": %" PRIu64 ", \"ahead_on_companion\": %" PRIu64
                ", \"one_launch\": %" PRIu64 ", \"ahead_in_parts\": %" PRIu64
                ", \"ahead_not_pinned\": %" PRIu64 ", \"ahead_no_room\": %" PRIu64
                ", \"ahead_windows_chosen\": %" PRIu64,
                w.large_chunks, w.chains_alone, w.staging_waits, w.copied_ahead, w.used_ahead,
                w.ahead_on_companion, w.one_launch, w.ahead_in_parts, w.ahead_not_pinned,
                w.ahead_no_room, w.ahead_windows_chosen);
  return json;
}

std::string WaysJson(const hipFileExtAsyncWayStats_t& w) {
  std::string out = "{";
  for (int i = 0; i < HIPFILE_EXT_ASYNC_WAY_COUNT; ++i) {
    char way[96];
    std::snprintf(way, sizeof way, "\"%s\": %" PRIu64 ", ", hipFileExtAsyncWayName(i), Ops(w, i));
    out += way;
  }
  return out + StagedJson(w) + "}";
}

std::string WaysText(const hipFileExtAsyncWayStats_t& w) {
  std::string out = "Async ways:";
  for (int i = 0; i < HIPFILE_EXT_ASYNC_WAY_COUNT; ++i) {
    char way[96];
    std::snprintf(way, sizeof way, "%s %s %" PRIu64, i == 0 ? "" : ",", hipFileExtAsyncWayName(i),
                  Ops(w, i));
    out += way;
  }
  return out + "; staged: " + StagedText(w) + "\n";
}

}  // namespace hipfile_tools
