#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The disk's rate by threads and request size: one cold pass (page cache dropped before each row;
# needs root) of hipfile-bench -x 1 (O_DIRECT pread into page-aligned host memory, no GPU) over
# a SIZE (default 4G) data set, for each THREADSxIOSIZE in SHAPES. What stream-ordered reads of
# cold data, one 2 MiB chunk in flight per stream, can expect against the synchronous path, whose
# 16 MiB reads go as two 8 MiB chunks at once (docs/engine.md).
#   bench/probes/disk-curve-h200.sh BUILD_DIR OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: disk-curve-h200.sh BUILD_DIR OUT_DIR [FILE]}
OUT=${2:?}
FILE=${3:-/var/tmp/hipfile-disk-rate.dat}
SIZE=${SIZE:-4G}
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1
for round in 1 2; do
  for shape in ${SHAPES:-16x2M 32x2M 64x2M 16x4M 16x8M 32x8M}; do
    sync; echo 3 > /proc/sys/vm/drop_caches || exit 1
    echo "$shape $(timeout 120 "$B" -f "$FILE" -s "$SIZE" -w "${shape%x*}" -i "${shape#*x}" -x 1 -I 0 \
      2>&1 | grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/disk-curve.txt"
  done
done
