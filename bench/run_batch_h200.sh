#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 4 KiB random reads from a warm file, 16 threads: hipFile batch (-x 6) against pread + hipMemcpy
# (-x 2), hipFile sync (-x 0) and stream-ordered hipFile (-x 5). Prints a table of median IOPS,
# p50/p99 latency and cores busy over REPS runs, and the IOPS ratio of -x 6 to -x 2.
#
#   bench/run_batch_h200.sh [BUILD_DIR] [FILE] [OUT_DIR]
#
# Environment: SIZE (data set, default 4G), REPS (3), LIMIT (seconds per run, 5), THREADS (16),
# DEV (GPU, 0), BATCH_WORKERS (a list such as "1 2 4": extra batch rows batch-Q128-wN run with
# HIPFILE_IO_THREADS=N, how IOPS trade against cores busy; default none), LEAN (WORKERS:NAP_US,
# default 1:10: a row batch-lean run with HIPFILE_IO_THREADS and HIPFILE_COPY_NAP_US set so,
# the configuration for few cores busy, compared with pread-copy in IOPS and cores; "" skips it),
# CACHE (warm, or cold: the page cache is dropped before every run, which needs
# root, and the batch is compared with raw O_DIRECT preads into host memory, -x 1, from as many
# threads as the batch path has workers (one per core) and from 128; pages read during a run stay
# cached, so a 5 s run over 4 GiB ends slightly warm). FILE is created if missing and read once to warm the page cache. OUT_DIR gets
# results.jsonl (one line per run, with the case, the rep and the CPU time) and table.md.
# "cores busy" is (user + sys CPU time of the run, all threads) / wall time, from bash's `time`
# keyword (no extra packages). With the defaults the whole script takes about 1.5 minutes.
set -euo pipefail

BUILD=${1:-build}
FILE=${2:-/var/tmp/hipfile-bench-batch.dat}
OUT=${3:-bench/results/batch-$(date +%Y%m%d-%H%M%S)}
SIZE=${SIZE:-4G}
REPS=${REPS:-3}
LIMIT=${LIMIT:-5}
THREADS=${THREADS:-16}
CACHE=${CACHE:-warm}
WORKERS=$(nproc)
DEV=${DEV:-0}

BENCH=""
for c in "$BUILD/tools/hipfile-bench/hipfile-bench" "$BUILD/bench/hipfile-bench" \
         "$BUILD/hipfile-bench"; do
  if [[ -x $c ]]; then BENCH=$c; break; fi
done
if [[ -z $BENCH ]]; then
  echo "run_batch_h200.sh: no hipfile-bench under $BUILD" >&2
  exit 1
fi
mkdir -p "$OUT"
JSONL=$OUT/results.jsonl
: > "$JSONL"

echo "== preparing $FILE ($SIZE), reading it once" >&2
"$BENCH" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null
drop() {
  if [[ $CACHE == cold ]]; then
    sync
    echo 3 > /proc/sys/vm/drop_caches || { echo "run_batch_h200.sh: cannot drop the page cache" >&2; exit 1; }
  fi
}

# field JSON NAME: the number after "NAME": in one JSON line (empty when absent).
field() { grep -o "\"$2\": [-0-9.e+]*" <<< "$1" | head -1 | awk '{print $2}'; }

# run CASE BENCH-ARGS...: REPS runs of 4 KiB random reads, each a JSON line with its CPU time.
run() {
  local name=$1
  shift
  for ((r = 1; r <= REPS; r++)); do
    local line times_out real user sys
    drop
    TIMEFORMAT='%R %U %S'
    # A run that hangs is stopped (timeout's status fails the row) instead of taking the rest.
    if times_out=$( { time timeout $((LIMIT * 3 + 30)) "$BENCH" -f "$FILE" -d "$DEV" -s "$SIZE" -w "$THREADS" -i 4K -I 2 \
                          -T "$LIMIT" --json "$@" > "$OUT/run.json" 2> "$OUT/stderr.txt" ; } 2>&1 ); then
      line=$(cat "$OUT/run.json")
    else
      line="{\"ok\": false, \"error\": \"$(tr '\n"' ' ' < "$OUT/stderr.txt" | cut -c1-200)\"}"
    fi
    read -r real user sys <<< "$times_out"
    local cores
    cores=$(awk -v r="$real" -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", (r > 0 ? (u + s) / r : 0) }')
    line="${line/\{/\{\"case\": \"$name\", \"rep\": $r, \"cpu_user_s\": $user, \"cpu_sys_s\": $sys, \"wall_s\": $real, \"cores_busy\": $cores, }"
    echo "$line" >> "$JSONL"
    echo "$name rep $r: $line" >&2
  done
}

CASES=(batch-Q128)
run batch-Q128    -x 6 -Q 128
for n in ${BATCH_WORKERS:-}; do
  HIPFILE_IO_THREADS=$n run "batch-Q128-w$n" -x 6 -Q 128
  CASES+=("batch-Q128-w$n")
done
LEAN=${LEAN-1:10}
if [[ -n $LEAN ]]; then
  HIPFILE_IO_THREADS=${LEAN%%:*} HIPFILE_COPY_NAP_US=${LEAN##*:} run batch-lean -x 6 -Q 128
  CASES+=(batch-lean)
fi
run pread-copy    -x 2
CASES+=(pread-copy)
if [[ $CACHE == cold ]]; then
  # Later -w options override THREADS: raw O_DIRECT at the batch path's queue depth, and deeper.
  run "odirect-host-w$WORKERS" -x 1 -w "$WORKERS"
  run odirect-host-w128 -x 1 -w 128
  CASES+=("odirect-host-w$WORKERS" odirect-host-w128)
else
  run sync          -x 0
  run async-Q8      -x 5 -Q 8
  CASES+=(sync async-Q8)
fi

# median CASE FIELD: the median of FIELD over the case's successful runs.
median() {
  grep "\"case\": \"$1\"" "$JSONL" | grep '"ok": true' | while read -r l; do field "$l" "$2"; done |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

{
  echo "4 KiB random reads, $THREADS threads, $SIZE $CACHE file, ${LIMIT}s per run, median of $REPS"
  echo
  echo "| case | IOPS | p50 us | p99 us | cores busy |"
  echo "|---|---:|---:|---:|---:|"
  for c in "${CASES[@]}"; do
    echo "| $c | $(median "$c" iops) | $(median "$c" p50_latency_us) | $(median "$c" p99_latency_us) | $(median "$c" cores_busy) |"
  done
  echo
  b=$(median batch-Q128 iops)
  p=$(median pread-copy iops)
  ratio() { awk -v b="$1" -v p="$2" 'BEGIN { if (b == "-" || p == "-" || p == 0) print "n/a"; else printf "%.2f", b / p }'; }
  echo "IOPS ratio -x 6 / -x 2: $(ratio "$b" "$p")"
  if [[ -n $LEAN ]]; then
    echo "batch-lean ($LEAN) / pread-copy: IOPS $(ratio "$(median batch-lean iops)" "$p"), cores busy $(ratio "$(median batch-lean cores_busy)" "$(median pread-copy cores_busy)")"
  fi
  if [[ $CACHE == cold ]]; then
    echo "IOPS ratio -x 6 / O_DIRECT at $WORKERS threads: $(ratio "$b" "$(median "odirect-host-w$WORKERS" iops)")"
    echo "IOPS ratio -x 6 / O_DIRECT at 128 threads: $(ratio "$b" "$(median odirect-host-w128 iops)")"
  fi
} | tee "$OUT/table.md"
