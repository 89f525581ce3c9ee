#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The statistics on the H200, in one run (docs/stats.md):
#   1. which path hipfile-bench's runs took (its result line's Paths:): warm 16 MiB reads on 8
#      threads (page-cache pinning), one cold pass (O_DIRECT), 4 KiB random reads (buffered:
#      small), 1 MiB writes (O_DIRECT);
#   2. what recording them costs: 4 KiB random warm reads on 16 threads and 16 MiB warm reads on 8
#      threads with HIPFILE_STATS_LEVEL=0 against 1, alternating, REPS times each;
#   3. BASE against NEW (the tree before path statistics against the one with them), the same
#      rows, alternating.
#
#   bench/run_stats_h200.sh BASE_DIR NEW_DIR FILE OUT_DIR
#
# BASE_DIR and NEW_DIR each hold hipfile-bench and libhipfile.so.0 (LD_LIBRARY_PATH is set to
# the folder). Environment: SIZE (8G), SECS (3), REPS (3). Cold rows drop the page cache (root).
set -uo pipefail
BASE=$1
NEW=$2
FILE=$3
OUT=$4
SIZE=${SIZE:-8G}
SECS=${SECS:-3}
REPS=${REPS:-3}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
bench() { # DIR ARGS...: one hipfile-bench run, its result line
  local dir=$1
  shift
  LD_LIBRARY_PATH=$dir "$dir/hipfile-bench" -f "$FILE" -s "$SIZE" "$@" 2>&1 | tail -1
}
row() { # NAME DIR ARGS...
  local name=$1
  shift
  echo "$name: $(bench "$@")" | tee -a "$SUMMARY"
}
drop() { sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null; }

echo "== preparing $FILE ($SIZE)" >&2
LD_LIBRARY_PATH=$NEW "$NEW/hipfile-bench" -f "$FILE" -s "$SIZE" -i 64M -x 0 -w 4 -T 1 > /dev/null
cat "$FILE" > /dev/null

echo "== 1. paths" | tee -a "$SUMMARY"
row warm-16M-8t "$NEW" -x 0 -w 8 -i 16M -I 0 -T "$SECS"
drop
row cold-1G-1t-one-pass "$NEW" -x 0 -w 1 -i 1G -I 0 -T 0.001
cat "$FILE" > /dev/null
row rand-4K-16t "$NEW" -x 0 -w 16 -i 4K -I 2 -T "$SECS"
row write-1M-4t "$NEW" -x 0 -w 4 -i 1M -I 1 -T "$SECS" -V
cat "$FILE" > /dev/null

echo "== 2. HIPFILE_STATS_LEVEL 0 against 1 (NEW)" | tee -a "$SUMMARY"
for rep in $(seq 1 "$REPS"); do
  for level in 0 1; do
    HIPFILE_STATS_LEVEL=$level row "level$level-rand-4K-16t#$rep" "$NEW" -x 0 -w 16 -i 4K -I 2 -T "$SECS"
    HIPFILE_STATS_LEVEL=$level row "level$level-warm-16M-8t#$rep" "$NEW" -x 0 -w 8 -i 16M -I 0 -T "$SECS"
  done
done

echo "== 3. BASE against NEW" | tee -a "$SUMMARY"
for rep in $(seq 1 "$REPS"); do
  for v in base new; do
    dir=$BASE
    [ "$v" = new ] && dir=$NEW
    row "$v-rand-4K-16t#$rep" "$dir" -x 0 -w 16 -i 4K -I 2 -T "$SECS"
    row "$v-warm-16M-8t#$rep" "$dir" -x 0 -w 8 -i 16M -I 0 -T "$SECS"
    row "$v-batch-4K-16t-Q16#$rep" "$dir" -x 6 -w 16 -i 4K -I 2 -Q 16 -T "$SECS"
  done
done
echo "== done" >&2
