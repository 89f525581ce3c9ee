#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stream-ordered I/O on one file (copies on each operation's stream; the engine's way,
# HIPFILE_ASYNC_STAGED=0, hung from 4 streams on the H200 and is refused at driver open since
# 2026-12-01: bench/results/h200-2026-12-01-b has its figures), in one run:
#   1. 4 KiB random reads, hipfile-bench -x 5 at 1, 4 and 16 streams (-w) with 8 in flight each:
#      every row must finish;
#      a row that does not finish in 3 x its limit + 30 s is reported as "hung";
#   2. async-bench's round trip (STREAMS x SLICE_MIB slices read then written, sync against
#      async) and its 4 KiB latency.
#
#   bench/run_async_h200.sh [BUILD_DIR] [FILE] [OUT_DIR]
#
# Environment: SIZE (4G), LIMIT (seconds per -x 5 row, 5), STREAMS (16), SLICE_MIB (256),
# DEV (0), PROFILE (0; 1 adds a thread profile of the 16-stream staged row). SIZE must be at least
# STREAMS x SLICE_MIB MiB: async-bench reads that much of FILE and refuses a shorter file. OUT_DIR gets one
# log per row and summary.txt. Takes about 2 minutes on the H200.
set -uo pipefail

BUILD=${1:-build}
FILE=${2:-/var/tmp/hipfile-bench-async.dat}
OUT=${3:-bench/results/async-$(date +%Y%m%d-%H%M%S)}
SIZE=${SIZE:-4G}
LIMIT=${LIMIT:-5}
STREAMS=${STREAMS:-16}
SLICE_MIB=${SLICE_MIB:-256}
DEV=${DEV:-0}
PROFILE=${PROFILE:-0}
BENCH=$BUILD/tools/hipfile-bench/hipfile-bench
ASYNC=$BUILD/bench/async-bench
for p in "$BENCH" "$ASYNC"; do
  [[ -x $p ]] || { echo "run_async_h200.sh: $p is missing (build $BUILD first)" >&2; exit 1; }
done
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"

echo "== preparing $FILE ($SIZE), reading it once" >&2
"$BENCH" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1

# row NAME ENV... -- ARGS...: one bounded run; prints NAME and the result line, or "hung".
row() {
  local name=$1
  shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local log=$OUT/$name.log
  local start end
  start=$(date +%s%N)
  env "${envs[@]}" timeout $((LIMIT * 3 + 30)) "$@" > "$log" 2>&1
  local rc=$?
  end=$(date +%s%N)
  local result
  if [[ $rc == 124 ]]; then
    result="hung (killed after $((LIMIT * 3 + 30)) s)"
  elif [[ $rc != 0 ]]; then
    result="failed (exit $rc): $(tail -1 "$log")"
  else
    result=$(grep -o 'Throughput: [0-9.]* GiB/sec, Avg_Latency: [0-9.]* usecs' "$log" | head -1)
    [[ -n $result ]] || result=$(grep '^json: ' "$log" | head -1)
  fi
  printf '%-28s %s  [%d ms]\n' "$name" "$result" $(((end - start) / 1000000)) | tee -a "$SUMMARY"
}

for w in 1 4 16; do
  row "x5-staged-w$w" HIPFILE_ASYNC_STAGED=1 -- \
    "$BENCH" -f "$FILE" -d "$DEV" -s "$SIZE" -w "$w" -i 4K -I 2 -T "$LIMIT" -x 5 -Q 8
done
if [[ $PROFILE == 1 ]]; then
  # Where the threads of a 16-stream staged run spend their time (bench/probes/threadprof.py).
  echo "== threadprof: x5-staged-w16" | tee -a "$SUMMARY"
  "$BENCH" -f "$FILE" -d "$DEV" -s "$SIZE" -w 16 -i 4K -I 2 -T $((LIMIT + 4)) -x 5 -Q 8 \
    > "$OUT/x5-staged-w16-profiled.log" 2>&1 &
  pid=$!
  sleep 1
  python3 "$(dirname "$0")/probes/threadprof.py" "$pid" "$LIMIT" | tee -a "$SUMMARY"
  wait "$pid"
fi
# async-bench refuses to write over a FILE.out that holds something; one left by a run that was
# killed (a hung row) is this script's own.
rm -f "$FILE.out"
row "async-bench-staged" HIPFILE_ASYNC_STAGED=1 -- "$ASYNC" "$FILE" "$STREAMS" "$SLICE_MIB" 2000
echo "summary: $SUMMARY" >&2
