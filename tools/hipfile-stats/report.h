// SPDX-License-Identifier: MIT
// hipfile-stats' output: ais-stats' V1 report with a per-path section, the --json object, and
// --watch's rate lines. Pure formatting of hipFileExtProcessStats_t snapshots.
#pragma once

#include <hipfile.h>
#include <hipfile_ext.h>

#include <cstdio>

namespace hipfile_stats {

// ais-stats' V1 layout (AIS-STATS Version: 1 ... per GPU), then "Paths:" and "Buffered by reason:".
void PrintText(std::FILE* out, const hipFileExtProcessStats_t& s);
// One line: {"pid", "read_bytes", "write_bytes", "read_ops", "write_ops", "errors",
// "paths": {NAME: {"read_bytes", "write_bytes", "ops"}}}; the paths add up to the totals.
void PrintJson(std::FILE* out, const hipFileExtProcessStats_t& s);
// Rates between two snapshots `seconds` apart, on one line.
void PrintRates(std::FILE* out, const hipFileExtProcessStats_t& before,
                const hipFileExtProcessStats_t& now, double seconds, double elapsed);

}  // namespace hipfile_stats
