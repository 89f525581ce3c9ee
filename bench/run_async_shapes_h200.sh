#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 21's shapes on the H200, stream-ordered (-x 5) against synchronous (-x 0) with the same
# threads in the same run, each row a fresh hipfile-bench with --json (-x 5 rows carry
# "async_stages": where their operations' time went, docs/async.md):
#   small   4 KiB random reads, 16 threads: -x 5 -Q 8 (16 streams, 8 in flight each) against -x 0
#           at 16 and 128 threads (the synchronous path's IOPS at 16 and at 128 in flight)
#   large   16 MiB reads and writes, 16 threads: -x 5 -Q 2 against -x 0
#   many    4 KiB random reads verified (-V) on 256 and 4096 streams, one in flight each: every
#           stream must finish (a row over 3 x LIMIT + 30 s is "hung")
#
#   bench/run_async_shapes_h200.sh BUILD_DIR [FILE] [OUT_DIR]
#
# Environment: LIMIT (seconds a row, 5), SIZE (4G), ROWS (all: "small large many").
# OUT_DIR/async-shapes.jsonl gets one line a row ({"row": ..., the bench's JSON}),
# OUT_DIR/async-shapes.txt a summary line a row. About 2 minutes.
set -uo pipefail
BUILD=${1:?usage: run_async_shapes_h200.sh BUILD_DIR [FILE] [OUT_DIR]}
FILE=${2:-/var/tmp/hipfile-bench-async.dat}
OUT=${3:-${OUT:-.}}
LIMIT=${LIMIT:-5}
SIZE=${SIZE:-4G}
B=$BUILD/tools/hipfile-bench/hipfile-bench
[[ -x $B ]] || { echo "run_async_shapes_h200.sh: $B is missing (build $BUILD first)" >&2; exit 1; }
mkdir -p "$OUT"
"$B" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache

row() {  # row NAME HIPFILE-BENCH-FLAGS...
  local name=$1 line rc
  shift
  line=$(timeout $((3 * LIMIT + 30)) "$B" -f "$FILE" "$@" --json 2>> "$OUT/async-shapes.err")
  rc=$?
  if ((rc == 124)); then
    echo "$name: hung (no result in $((3 * LIMIT + 30)) s)" | tee -a "$OUT/async-shapes.txt"
  elif ((rc != 0)); then
    echo "$name: failed rc=$rc" | tee -a "$OUT/async-shapes.txt"
  else
    python3 - "$name" "$line" "$OUT" <<'PY' | tee -a "$OUT/async-shapes.txt"
import json, sys
name, d, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
print(json.dumps({"row": name, **d}), file=open(out + "/async-shapes.jsonl", "a"))
keep = ("throughput_gib_s", "iops", "p50_latency_us", "p99_latency_us", "cpu_cores", "paths")
stages = {k: (v["mean_us"], v["p50_us"]) for k, v in d.get("async_stages", {}).items()}
print(name, {k: d[k] for k in keep if k in d}, "stages (mean, p50 us):" if stages else "",
      stages or "")
PY
  fi
}

for part in ${ROWS:-small large many}; do
  case $part in
  small)
    row small-async-w16-q8 -s "$SIZE" -w 16 -i 4K -I 2 -T "$LIMIT" -x 5 -Q 8
    row small-sync-w16 -s "$SIZE" -w 16 -i 4K -I 2 -T "$LIMIT" -x 0
    row small-sync-w128 -s "$SIZE" -w 128 -i 4K -I 2 -T "$LIMIT" -x 0
    ;;
  large)
    row large-read-async -s "$SIZE" -w 16 -i 16M -I 0 -T "$LIMIT" -x 5 -Q 2
    row large-read-sync -s "$SIZE" -w 16 -i 16M -I 0 -T "$LIMIT" -x 0
    row large-write-async -s "$SIZE" -w 16 -i 16M -I 1 -T "$LIMIT" -x 5 -Q 2
    row large-write-sync -s "$SIZE" -w 16 -i 16M -I 1 -T "$LIMIT" -x 0
    ;;
  many)
    row many-256 -s 1G -w 256 -i 4K -I 2 -T "$LIMIT" -x 5 -Q 1 -V
    (ulimit -u unlimited 2> /dev/null; row many-4096 -s 1G -w 4096 -i 4K -I 2 -T "$LIMIT" -x 5 -Q 1 -V)
    ;;
  esac
done
