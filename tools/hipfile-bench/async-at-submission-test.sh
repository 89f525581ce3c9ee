#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench -x 5 --json on HIPFILE_RUNTIME=cpu-staged: operations decided at submission
# (docs/async.md, "Small reads at submission", "Operations on an idle stream", "Reads copied from
# windows at submission") wait
# neither for their stream to reach them nor for a worker: the median operation's "reach",
# "handoff" and "io" parts are 0 (all its time is "submit"). Queued, a worker's file I/O takes
# microseconds ("io" p50 4 us and up on this runtime), so a regression to the queued way fails
# here - except on a machine slow enough (a sanitizer build) that queued operations finish before
# their submission returns, whose parts then count 0 too (docs/async.md, "Where a stream-ordered
# operation's time goes"). FILE is read into the page cache first (-x 10, buffered preads): a
# file the cache dropped is read by O_DIRECT, which leaves it cold, and only resident bytes are
# copied from windows. Every byte is checked (-V in ARGS).
# With EXPECT_WAY (a way of hipFileExtAsyncWayName) set, more than half the operations must have
# gone that way by "async_ways" (docs/stats.md).
# Usage: async-at-submission-test.sh HIPFILE_BENCH FILE SIZE ARGS... (ARGS with --json)
set -eu
bench=$1 file=$2 size=$3
shift 3
p50() {  # p50 JSON PART: the part's median, in us
  echo "$1" | sed -n "s/.*\"$2\": {\"count\": [0-9]*, \"mean_us\": [0-9.]*, \"p50_us\": \([0-9.]*\).*/\1/p"
}
"$bench" -f "$file" -s "$size" -i 1M -x 10 -w 1 > /dev/null || { echo "reading $file in failed"; exit 1; }
out=$("$bench" -f "$file" -s "$size" "$@") || { echo "hipfile-bench failed: $out"; exit 1; }
for part in reach handoff io; do
  v=$(p50 "$out" "$part")
  [ "$v" = "0.000" ] || { echo "$part p50 is '$v' us: the operations were queued"; echo "$out"; exit 1; }
done
if [ -n "${EXPECT_WAY:-}" ]; then
  # Most of the run's operations went the way it is about (async_ways, docs/stats.md).
  ops=$(echo "$out" | sed -n 's/.*"ops": \([0-9]*\).*/\1/p')
  n=$(echo "$out" | sed 's/.*"async_ways": {//' | sed -n "s/.*\"$EXPECT_WAY\": \([0-9]*\).*/\1/p")
  [ -n "$n" ] && [ $((2 * n)) -gt "$ops" ] ||
    { echo "async_ways.$EXPECT_WAY is '$n' of $ops operations"; echo "$out"; exit 1; }
  echo "$n of $ops operations went $EXPECT_WAY"
fi
echo "decided at submission: reach, handoff and io p50 0 us"
