#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench -x 5 --json on HIPFILE_RUNTIME=cpu-staged: operations decided at submission
# (docs/async.md, "Operations on an idle stream", "Reads copied from windows at submission") wait
# neither for their stream to reach them nor for a worker: the median operation's "reach",
# "handoff" and "io" parts are 0 (all its time is "submit"). Queued, a worker's file I/O takes
# microseconds ("io" p50 4 us and up on this runtime), so a regression to the queued way fails
# here - except on a machine slow enough (a sanitizer build) that queued operations finish before
# their submission returns, whose parts then count 0 too (docs/async.md, "Where a stream-ordered
# operation's time goes"). Every byte is checked (-V in ARGS).
# Usage: async-at-submission-test.sh HIPFILE_BENCH ARGS... (ARGS with --json)
set -eu
p50() {  # p50 JSON PART: the part's median, in us
  echo "$1" | sed -n "s/.*\"$2\": {\"count\": [0-9]*, \"mean_us\": [0-9.]*, \"p50_us\": \([0-9.]*\).*/\1/p"
}
out=$("$@") || { echo "hipfile-bench failed: $out"; exit 1; }
for part in reach handoff io; do
  v=$(p50 "$out" "$part")
  [ "$v" = "0.000" ] || { echo "$part p50 is '$v' us: the operations were queued"; echo "$out"; exit 1; }
done
echo "decided at submission: reach, handoff and io p50 0 us"
