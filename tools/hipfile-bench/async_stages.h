// SPDX-License-Identifier: MIT
// hipfile-bench: where a -x 5 run's stream-ordered operations spent their time, per part
// (hipFileExtGetAsyncStageStats, docs/async.md "Where a stream-ordered operation's time goes").
#pragma once

#include <hipfile_ext.h>

#include <string>

namespace hipfile_bench {

// The run's figures: `after` less `before`.
hipFileExtAsyncStageStats_t StagesBetween(const hipFileExtAsyncStageStats_t& before,
                                          const hipFileExtAsyncStageStats_t& after);
// {"submit": {"count": N, "mean_us": M, "p50_us": A, "p99_us": B}, ...}. p50 and p99 are the
// upper bound of the log2 bucket that holds them (at most twice the true value).
std::string StagesJson(const hipFileExtAsyncStageStats_t& s);
// One line per part, for the text output (--stages).
std::string StagesText(const hipFileExtAsyncStageStats_t& s);

}  // namespace hipfile_bench
