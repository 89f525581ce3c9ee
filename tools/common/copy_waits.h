// SPDX-License-Identifier: MIT
// Waits for the library's own copies (hipFileExtGetCopyWaitStats; docs/stats.md, "Waits for the
// library's copies"), as the tools print them: hipfile-bench a run's, hipfile-stats a process's.
#pragma once

#include <hipfile_ext.h>

#include <string>

namespace hipfile_tools {

// The counts between two moments: `after` less `before`.
hipFileExtCopyWaitStats_t CopyWaitsBetween(const hipFileExtCopyWaitStats_t& before,
                                           const hipFileExtCopyWaitStats_t& after);
// {"waits": N, "slept": N, "poll_ms": X, "sleep_ms": X}.
std::string CopyWaitsJson(const hipFileExtCopyWaitStats_t& w);
// "Copy waits: N, N slept (P%); polled X ms, asleep X ms" (one line, no newline).
std::string CopyWaitsText(const hipFileExtCopyWaitStats_t& w);

}  // namespace hipfile_tools
