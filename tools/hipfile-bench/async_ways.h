// SPDX-License-Identifier: MIT
// hipfile-bench: which way a -x 5 run's stream-ordered operations went, and what the staged ones
// did (hipFileExtGetAsyncWayStats; docs/stats.md, "Stream-ordered operations by the way they
// went").
#pragma once

#include <hipfile_ext.h>

#include <string>

namespace hipfile_bench {

// The run's counts: `after` less `before`.
hipFileExtAsyncWayStats_t WaysBetween(const hipFileExtAsyncWayStats_t& before,
                                      const hipFileExtAsyncWayStats_t& after);
// {"run_at_once": N, ... one per way (reads and writes together), "large_chunks": N,
// "chains_alone": N, "staging_waits": N, "copied_ahead": N, "used_ahead": N,
// "ahead_on_companion": N}.
std::string WaysJson(const hipFileExtAsyncWayStats_t& w);
// One line, for the text output (--stages).
std::string WaysText(const hipFileExtAsyncWayStats_t& w);

}  // namespace hipfile_bench
