#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the engine's copy waits poll (HIPFILE_COPY_WAIT, docs/engine.md "Waiting for copies"):
# `stream` (hipStreamQuery until the copy is done) against `word` (the lane's stream writes a
# host word after the copy; the wait polls memory), rows interleaved, in one run on a warm file.
# Each row a fresh hipfile-bench -T LIMIT --json (one line a row, in OUT_DIR/copy-wait.txt):
# 4 KiB random reads synchronous with 1 and 16 threads, stream-ordered run at once (16 x 1,
# 16 x 8), a batch of 128 on 4 threads; 1 MiB and 16 MiB reads with 16 threads; and a checked
# (-V) row of each with words.
#   bench/probes/copy-wait-h200.sh BUILD_DIR OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: copy-wait-h200.sh BUILD_DIR OUT_DIR [FILE]}
OUT=${2:?}
FILE=${3:-/var/tmp/hipfile-copy-wait.dat}
LIMIT=${LIMIT:-3}
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s 2G -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache
row() {  # row NAME MODE FLAGS...
  local name=$1 mode=$2 line
  shift 2
  line=$(HIPFILE_COPY_WAIT=$mode timeout $((3 * LIMIT + 60)) "$B" -f "$FILE" -s 2G -T "$LIMIT" \
    "$@" --json 2>> "$OUT/copy-wait.err") || { echo "$name $mode: failed" | tee -a "$OUT/copy-wait.txt"; return; }
  python3 - "$name" "$mode" "$line" <<'PY' | tee -a "$OUT/copy-wait.txt"
import json, sys
name, mode, d = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print(f'{name:22s} {mode:6s} {d["throughput_gib_s"]:7.2f} GiB/s {d["iops"]:9.0f} IOPS '
      f'p50 {d["p50_latency_us"]:8.1f} p99 {d["p99_latency_us"]:8.1f} us cores {d.get("cpu_cores", 0):5.2f}')
PY
}
for round in 1 2; do
  echo "== round $round" | tee -a "$OUT/copy-wait.txt"
  for mode in stream word; do
    row 4k-sync-1 $mode -w 1 -i 4K -I 2 -x 0
    row 4k-sync-16 $mode -w 16 -i 4K -I 2 -x 0
    row 4k-async-16x1 $mode -w 16 -i 4K -I 2 -x 5 -Q 1
    row 4k-async-16x8 $mode -w 16 -i 4K -I 2 -x 5 -Q 8
    row 4k-batch-4x128 $mode -w 4 -i 4K -I 2 -x 6 -Q 128
    row 1m-sync-16 $mode -w 16 -i 1M -I 0 -x 0
    row 16m-sync-16 $mode -w 16 -i 16M -I 0 -x 0
  done
done
row 4k-sync-16-verify word -w 16 -i 4K -I 2 -x 0 -V
row 1m-sync-16-verify word -w 16 -i 1M -I 0 -x 0 -V
