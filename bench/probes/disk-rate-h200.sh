#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stream-ordered reads of a file not in the page cache, and writes, against the synchronous path
# at the disk's rate (issue 21, item 1: "warm and cold, reads and writes"). The disk's rate moves
# 10-20% between rows, so the rows come in pairs, async and sync back to back, their order
# swapped every round, ROUNDS rounds (default 6); compare the pairs' ratios and the medians.
# Each row is one pass (no -T) of hipfile-bench over a SIZE (default 4G) data set, 16 threads of
# IOSIZE (default 16M) operations (-x 5: 16 streams x 2 in flight, --stages):
#   cold   reads, the page cache dropped before each row (needs root)
#   write  writes (-I 1 --fsync: the clock stops after fsync)
# ROWS=curve instead (or as well: ROWS="pairs curve") measures the disk alone: one cold pass of
# hipfile-bench -x 1 (O_DIRECT pread into page-aligned host memory, no GPU) for each
# THREADSxIOSIZE of SHAPES, twice: how many bytes in flight it wants.
# One line a row in OUT_DIR/disk-rate.txt.
#   bench/probes/disk-rate-h200.sh BUILD_DIR OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: disk-rate-h200.sh BUILD_DIR OUT_DIR [FILE]}
OUT=${2:?}
FILE=${3:-/var/tmp/hipfile-disk-rate.dat}
SIZE=${SIZE:-4G}
IOSIZE=${IOSIZE:-16M}  # each operation's size
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1
row() {  # row NAME FLAGS...
  local name=$1 line
  shift
  [[ $name == cold* ]] && { sync; echo 3 > /proc/sys/vm/drop_caches || return; }
  line=$(timeout 120 "$B" -f "$FILE" -s "$SIZE" -w 16 -i "$IOSIZE" "$@" --json 2>> "$OUT/disk-rate.err") ||
    { echo "$name: failed" | tee -a "$OUT/disk-rate.txt"; return; }
  python3 "$(dirname "$0")/json-row.py" "$name" "$line" | tee -a "$OUT/disk-rate.txt"
}
pairs() {
  for round in $(seq 1 "${ROUNDS:-6}"); do
    echo "== round $round" | tee -a "$OUT/disk-rate.txt"
    for kind in cold write; do
      flags=(-I 0)
      [[ $kind == write ]] && flags=(-I 1 --fsync)
      if ((round % 2)); then
        row "$kind-async" "${flags[@]}" -x 5 -Q 2 --stages
        row "$kind-sync" "${flags[@]}" -x 0
      else
        row "$kind-sync" "${flags[@]}" -x 0
        row "$kind-async" "${flags[@]}" -x 5 -Q 2 --stages
      fi
    done
  done
}
curve() {
  for round in 1 2; do
    for shape in ${SHAPES:-16x2M 32x2M 64x2M 16x4M 16x8M 32x8M}; do
      sync; echo 3 > /proc/sys/vm/drop_caches || return
      echo "curve $shape $(timeout 120 "$B" -f "$FILE" -s "$SIZE" -w "${shape%x*}" -i "${shape#*x}" \
        -x 1 -I 0 2>&1 | grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/disk-rate.txt"
    done
  done
}
for part in ${ROWS:-pairs}; do
  case $part in
  pairs) pairs ;;
  curve) curve ;;
  *) echo "disk-rate-h200.sh: no rows called $part" >&2; exit 2 ;;
  esac
done
