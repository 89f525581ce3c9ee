// SPDX-License-Identifier: MIT
// Which way stream-ordered operations went, and what the staged ones did
// (hipFileExtGetAsyncWayStats; docs/stats.md, "Stream-ordered operations by the way they went"),
// as the tools print them: hipfile-bench -x 5 a run's counts, hipfile-stats a process's.
#pragma once

#include <hipfile_ext.h>

#include <string>

namespace hipfile_tools {

// The counts between two moments: `after` less `before`.
hipFileExtAsyncWayStats_t WaysBetween(const hipFileExtAsyncWayStats_t& before,
                                      const hipFileExtAsyncWayStats_t& after);
// "N in large chunks, N queued alone, N waited for a block; reads copied ahead N (N used, N on
// a companion stream, N in parts), not N (N not all in pinned windows, N no room); N reads
// copied in one launch; N not in parts, by the device's measure".
std::string StagedText(const hipFileExtAsyncWayStats_t& w);
// "\"large_chunks\": N, \"chains_alone\": N, \"staging_waits\": N, \"copied_ahead\": N,
// \"used_ahead\": N, \"ahead_on_companion\": N, \"one_launch\": N, \"ahead_in_parts\": N,
// \"ahead_not_pinned\": N, \"ahead_no_room\": N, \"ahead_windows_chosen\": N" (members of an
// object, no braces).
std::string StagedJson(const hipFileExtAsyncWayStats_t& w);
// {"run_at_once": N, ... one per way (reads and writes together), then StagedJson's members}.
std::string WaysJson(const hipFileExtAsyncWayStats_t& w);
// "Async ways: run_at_once N, ...; staged: " StagedText, one line.
std::string WaysText(const hipFileExtAsyncWayStats_t& w);

}  // namespace hipfile_tools
