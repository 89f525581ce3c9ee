#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stream-ordered operations run at once on idle streams (HIPFILE_ASYNC_RUN_IDLE_KB, docs/async.md)
# against the queued way (=0) and the synchronous path, in one run on a warm file: 4 KiB random
# reads, 1 stream x 1 in flight, 16 x 1 and 16 x 8, then 16 MiB reads (above the limit: queued
# either way), each row a fresh hipfile-bench -T LIMIT with --json. Prints one line a row.
#   bench/probes/run-idle-h200.sh BUILD_DIR OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: run-idle-h200.sh BUILD_DIR OUT_DIR [FILE]}
OUT=${2:?}
FILE=${3:-/var/tmp/hipfile-run-idle.dat}
LIMIT=${LIMIT:-3}
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s 2G -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache
row() {  # row NAME RUN_IDLE_KB FLAGS...
  local name=$1 kb=$2 line
  shift 2
  line=$(HIPFILE_ASYNC_RUN_IDLE_KB=$kb timeout $((3 * LIMIT + 30)) "$B" -f "$FILE" -s 2G -T "$LIMIT" \
    "$@" --json 2>> "$OUT/run-idle.err") || { echo "$name: failed" | tee -a "$OUT/run-idle.txt"; return; }
  python3 - "$name" "$line" <<'PY' | tee -a "$OUT/run-idle.txt"
import json, sys
name, d = sys.argv[1], json.loads(sys.argv[2])
st = {k: round(v["mean_us"]) for k, v in d.get("async_stages", {}).items()}
print(f'{name:28s} {d["throughput_gib_s"]:7.2f} GiB/s {d["iops"]:9.0f} IOPS p50 {d["p50_latency_us"]:7.1f} '
      f'p99 {d["p99_latency_us"]:8.1f} us cores {d.get("cpu_cores", 0):5.2f} {st if st else ""}')
PY
}
for round in 1 2; do
  echo "== round $round" | tee -a "$OUT/run-idle.txt"
  row small-1x1-at-once 64 -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
  row small-1x1-queued 0 -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
  row small-sync-1 64 -w 1 -i 4K -I 2 -x 0
  row small-16x1-at-once 64 -w 16 -i 4K -I 2 -x 5 -Q 1 --stages
  row small-16x1-queued 0 -w 16 -i 4K -I 2 -x 5 -Q 1 --stages
  row small-16x8-at-once 64 -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
  row small-16x8-queued 0 -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
  row small-sync-16 64 -w 16 -i 4K -I 2 -x 0
  row small-16x8-at-once-verify 64 -w 16 -i 4K -I 2 -x 5 -Q 8 -V
  row large-16x2 64 -w 16 -i 16M -I 0 -x 5 -Q 2
  row large-sync-16 64 -w 16 -i 16M -I 0 -x 0
done
