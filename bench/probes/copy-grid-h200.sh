#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How fast the copy-table kernel's shape moves 16 MiB from pinned host memory by grid size:
# copy-kernel-probe, 1 and 16 streams of 16 MiB copies, GRID blocks of 256 threads (GRIDS, default
# 32 64 128 256), DMA against the kernel with 1 and 4 words in flight per thread. Then
# hipfile-bench -x 5 -w 16 -Q 2 of 4 and 16 MiB reads the stream copies itself (the queued way:
# HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0) against -x 0, and the tutorial's
# program the same way: what the library's grid (runtime/cuda/gather_kernel.h) gives. The
# 2026-12-04-b rows by grid were made with a build whose CopyTableAsync read its grid from
# HIPFILE_X_TABLE_BLOCKS, a patch not kept (bench/results/h200-2026-12-04-b/README.md).
#   bench/probes/copy-grid-h200.sh BUILD_DIR OUT_DIR
set -uo pipefail
BUILD=${1:?usage: copy-grid-h200.sh BUILD_DIR OUT_DIR}
OUT=${2:?}
FILE=${FILE:-/var/tmp/hipfile-at-submission.dat}
GRIDS=${GRIDS:-32 64 128 256}
mkdir -p "$OUT"
P=$BUILD/bench/copy-kernel-probe
for s in 1 16; do
  for g in $GRIDS; do
    echo "probe streams=$s grid=$g: $("$P" bench/probes/copy-kernel-variants.ptx "$s" 16777216 "$g" 2 dma w1 w4 2>&1 | tr '\n' ' ')" |
      tee -a "$OUT/copy-grid.txt"
  done
done
B=$BUILD/tools/hipfile-bench/hipfile-bench
"$B" -f "$FILE" -s 2G -i 64M -x 10 -w 4 > /dev/null || exit 1
row() {  # row NAME "VAR=VALUE ..." FLAGS...
  local name=$1 envs=$2 line
  shift 2
  line=$(env $envs timeout 60 "$B" -f "$FILE" -s 2G -T 3 "$@" --json 2>> "$OUT/copy-grid.err") ||
    { echo "$name: failed" | tee -a "$OUT/copy-grid.txt"; return; }
  python3 "$(dirname "$0")/json-row.py" "$name" "$line" | tee -a "$OUT/copy-grid.txt"
}
Q="HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0"
for round in 1 2; do
  echo "== round $round" | tee -a "$OUT/copy-grid.txt"
  for size in 16M 4M; do
    row "queued-16x2-$size" "$Q" -w 16 -i "$size" -I 0 -x 5 -Q 2 --stages
    row "sync-16-$size" "" -w 16 -i "$size" -I 0 -x 0
  done
done
echo "tutorial-queued: $(env $Q timeout 150 "$BUILD/bench/async-bench" \
  /var/tmp/hipfile-tutorial.dat 16 256 1000 2>> "$OUT/copy-grid.err" |
  grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/copy-grid.txt"
