// SPDX-License-Identifier: MIT
// hipfile-stats' output: ais-stats' V1 report with this library's sections after it, the --json
// object, and --watch's rate lines. Pure formatting of Snapshot values.
#pragma once

#include <hipfile.h>
#include <hipfile_ext.h>

#include <cstdio>

namespace hipfile_stats {

// Everything the tool reads of a process at one time.
struct Snapshot {
  hipFileExtProcessStats_t process;
  hipFileExtLatencyStats_t latency;
  hipFileExtGpuStats_t gpus[HIPFILE_MAX_GPUS];
  hipFileExtAsyncWayStats_t async_ways;
  hipFileExtCopyWaitStats_t copy_waits;
};

// ais-stats' V1 report (AIS-STATS Version: 1 ... per GPU in use, its four histogram tables and
// unaligned counts), then "Paths:", "Buffered by reason:", "Latency Histogram (us)", the GPUs'
// uuids, where there were any, "Stream-ordered operations:" by way and what the staged ones did,
// and, where there were any, "Copy waits:" (the waits for the library's own copies).
void PrintText(std::FILE* out, const Snapshot& s);
// One line: {"pid", "read_bytes", "write_bytes", "read_ops", "write_ops", "errors",
// "paths": {NAME: {"read_bytes", "write_bytes", "ops"}}, "latency": {...}, "gpus": [...],
// "async_ways": {WAY: {"read_ops", "write_ops"}, "large_chunks", "chains_alone", "staging_waits",
// "copied_ahead", "used_ahead", "ahead_on_companion", "one_launch", "ahead_in_parts",
// "ahead_not_pinned", "ahead_no_room", "ahead_windows_chosen"}, "copy_waits": {"waits", "slept",
// "poll_ms", "sleep_ms"}}; the paths add up to the totals.
void PrintJson(std::FILE* out, const Snapshot& s);
// Rates between two snapshots `seconds` apart, on one line.
void PrintRates(std::FILE* out, const hipFileExtProcessStats_t& before,
                const hipFileExtProcessStats_t& now, double seconds, double elapsed);

}  // namespace hipfile_stats
