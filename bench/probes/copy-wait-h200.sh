#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the engine's copy waits poll (docs/engine.md "Waiting for copies"), one row per setting of
# MODES (default "HIPFILE_COPY_WAIT=stream HIPFILE_COPY_WAIT=word": hipStreamQuery until the copy
# is done, against the lane's stream writing a host word after the copy, polled in memory; a
# setting may join several VAR=VALUE with commas), rows interleaved, in one run on a warm file.
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
MODES=${MODES:-HIPFILE_COPY_WAIT=stream HIPFILE_COPY_WAIT=word}
ROWS=${ROWS:-4k-sync-1 4k-sync-16 4k-async-16x1 4k-async-16x8 4k-batch-4x128 1m-sync-16 16m-sync-16}
row() {  # row NAME SETTING FLAGS...
  local name=$1 mode=$2 line
  shift 2
  # shellcheck disable=SC2086  # a setting is several words
  line=$(env ${mode//,/ } timeout $((3 * LIMIT + 60)) "$B" -f "$FILE" -s 2G -T "$LIMIT" \
    "$@" --json 2>> "$OUT/copy-wait.err") || { echo "$name $mode: failed" | tee -a "$OUT/copy-wait.txt"; return; }
  python3 - "$name" "$mode" "$line" <<'PY' | tee -a "$OUT/copy-wait.txt"
import json, sys
name, mode, d = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print(f'{name:22s} {mode:34s} {d["throughput_gib_s"]:7.2f} GiB/s {d["iops"]:9.0f} IOPS '
      f'p50 {d["p50_latency_us"]:8.1f} p99 {d["p99_latency_us"]:8.1f} us cores {d.get("cpu_cores", 0):5.2f}')
PY
}
flags() {  # the hipfile-bench flags of a row
  case $1 in
  4k-sync-1) echo -w 1 -i 4K -I 2 -x 0 ;;
  4k-sync-16) echo -w 16 -i 4K -I 2 -x 0 ;;
  4k-async-16x1) echo -w 16 -i 4K -I 2 -x 5 -Q 1 ;;
  4k-async-16x8) echo -w 16 -i 4K -I 2 -x 5 -Q 8 ;;
  4k-batch-4x128) echo -w 4 -i 4K -I 2 -x 6 -Q 128 ;;
  1m-sync-16) echo -w 16 -i 1M -I 0 -x 0 ;;
  16m-sync-16) echo -w 16 -i 16M -I 0 -x 0 ;;
  esac
}
for round in 1 2; do
  echo "== round $round" | tee -a "$OUT/copy-wait.txt"
  for mode in $MODES; do
    for r in $ROWS; do
      # shellcheck disable=SC2046  # the flags are words
      row "$r" "$mode" $(flags "$r")
    done
  done
done
last=${MODES##* }
# shellcheck disable=SC2046
row 4k-sync-16-verify "$last" $(flags 4k-sync-16) -V
# shellcheck disable=SC2046
row 1m-sync-16-verify "$last" $(flags 1m-sync-16) -V
