#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Large staging blocks (HIPFILE_ASYNC_LARGE_CHUNKS_MB, docs/async.md "Large staging blocks") on
# and off against the synchronous path in the same run, rows back to back, their order turned
# every round, ROUNDS rounds (default 3). hipfile-bench, 16 threads (-x 5: 16 streams x 2 in
# flight) of IOSIZE (default 16M) reads; the "large" rows with HIPFILE_ASYNC_LARGE_CHUNKS_MB=
# LARGE_MB (default 1: every operation over 4 MiB), the "small" rows with 0. One line a row in
# OUT_DIR/large-chunks.txt:
#   warm   -T LIMIT (default 3) on a WARM_SIZE (default 2G) file in the page cache: the streams'
#          FIXED flags copy from pinned windows at submission, what is not pinned is staged
#   warm-long  the same, -T LONG (default 12)
#   queued the same with the ways decided at submission off (the stream's copy-table kernel)
#   cold   one pass over SIZE (default 4G), the page cache dropped first (needs root)
#   write  one pass of writes over SIZE, the clock stopped after fsync
#   tutorial  async-bench (16 streams x 256 MiB), queued and copied at submission, both settings
#   bench/probes/large-chunks-h200.sh BUILD_DIR OUT_DIR
set -uo pipefail
BUILD=${1:?usage: large-chunks-h200.sh BUILD_DIR OUT_DIR}
OUT=${2:?}
B=$BUILD/tools/hipfile-bench/hipfile-bench
WARM=/var/tmp/hipfile-large-warm.dat COLD=/var/tmp/hipfile-large-cold.dat
SIZE=${SIZE:-4G} LIMIT=${LIMIT:-3}
L=HIPFILE_ASYNC_LARGE_CHUNKS_MB LARGE=${LARGE_MB:-1} IOSIZE=${IOSIZE:-16M} WSIZE=${WARM_SIZE:-2G}
mkdir -p "$OUT"
row() {  # row NAME "VAR=VALUE ..." FILE SIZE FLAGS...
  local name=$1 envs=$2 file=$3 size=$4 line
  shift 4
  [[ $name == cold* ]] && { sync; echo 3 > /proc/sys/vm/drop_caches || return; }
  line=$(env $envs timeout 150 "$B" -f "$file" -s "$size" -w 16 -i "$IOSIZE" "$@" --json \
    2>> "$OUT/large-chunks.err") || { echo "$name: failed" | tee -a "$OUT/large-chunks.txt"; return; }
  python3 "$(dirname "$0")/json-row.py" "$name" "$line" | tee -a "$OUT/large-chunks.txt"
}
trio() {  # trio KIND ROUND "VAR=VALUE ..." FILE SIZE FLAGS...: large, small and sync rows
  local kind=$1 round=$2 envs=$3 file=$4 size=$5
  shift 5
  local names=("$kind-large" "$kind-small" "$kind-sync")
  local sets=("$envs $L=$LARGE" "$envs $L=0" "$envs $L=0")
  local xs=("-x 5 -Q 2 --stages" "-x 5 -Q 2 --stages" "-x 0")
  local order=(0 1 2)
  ((round % 2)) || order=(2 1 0)
  for i in "${order[@]}"; do
    # shellcheck disable=SC2086
    row "${names[$i]}" "${sets[$i]}" "$file" "$size" "$@" ${xs[$i]}
  done
}
"$B" -f "$WARM" -s "$WSIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1
"$B" -f "$COLD" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null || exit 1
for round in $(seq 1 "${ROUNDS:-3}"); do
  echo "== round $round" | tee -a "$OUT/large-chunks.txt"
  for part in ${ROWS:-warm queued cold write}; do
    case $part in
    warm)
      cat "$WARM" > /dev/null  # back in the page cache after a cold row dropped it
      trio warm "$round" "" "$WARM" "$WSIZE" -T "$LIMIT" -I 0
      ;;
    warm-long)  # the same for LONG seconds (default 12): what pinning large blocks costs once
      cat "$WARM" > /dev/null
      trio warm-long "$round" "" "$WARM" "$WSIZE" -T "${LONG:-12}" -I 0
      ;;
    queued)
      cat "$WARM" > /dev/null
      trio queued "$round" "HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0" \
        "$WARM" "$WSIZE" -T "$LIMIT" -I 0
      ;;
    cold) trio cold "$round" "" "$COLD" "$SIZE" -I 0 ;;
    write) trio write "$round" "" "$COLD" "$SIZE" -I 1 --fsync ;;
    tutorial)
      for copy in 0 1; do
        for mb in "$LARGE" 0; do
          echo "tutorial-copy-at-submission=$copy-$L=$mb: $(env HIPFILE_ASYNC_COPY_AT_SUBMISSION=$copy \
            $L=$mb timeout 150 "$BUILD/bench/async-bench" /var/tmp/hipfile-tutorial.dat 16 256 1000 \
            2>> "$OUT/large-chunks.err" | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" |
            tee -a "$OUT/large-chunks.txt"
        done
      done
      ;;
    *) echo "large-chunks-h200.sh: no rows called $part" >&2; exit 2 ;;
    esac
  done
done
