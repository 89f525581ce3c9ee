#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where hipfile.safetensors.load's time goes on the H200, warm and cold (issue 20 item 4), as run
# through `device` with OUT set and the package on PYTHONPATH (bench/h200-prep.sh): makes an
# 8 GB, 16-shard checkpoint when missing, then one bench/python/loader-profile.py load per row,
# each a fresh process, and writes OUT/loader-phases.jsonl (one line a row, with "row") and
# OUT/loader-phases.txt (a line a row: total, reads, GB/s, bytes per data path).
#
#   bench/probes/loader-phases-h200.sh [CKPT]      (CKPT default /var/tmp/ck8)
#
# Rows (the loader's own order, shard by shard, unless "offset"): warm (shards read by `cat`
# first), warm-t16 (16 I/O threads), warm-offset (all shards at once, interleaved by offset: the
# order before 2026-12-02), cold (page cache dropped), cold-t16, cold-t32, cold-offset.
# ROWS="warm cold" picks some. (bench/results/h200-2026-12-02-owed ran before the order changed:
# there "warm"/"cold" are by offset and "*-files" shard by shard.)
set -uo pipefail
CKPT=${1:-/var/tmp/ck8}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${OUT:?set OUT}"
[[ -f $CKPT/.complete ]] || {
  python3 "$HERE/python/make-checkpoint.py" --gb 8 --shards 16 -j 16 "$CKPT" > /dev/null &&
    touch "$CKPT/.complete"
} || exit 1
declare -A ARGS=(
  [warm]=""
  [warm-t16]="--threads 16"
  [warm-offset]="--order offset"
  [cold]="--cold"
  [cold-t16]="--cold --threads 16"
  [cold-t32]="--cold --threads 32"
  [cold-offset]="--cold --order offset"
)
for row in ${ROWS:-warm warm-offset cold cold-offset}; do
  [[ $row == warm* ]] && cat "$CKPT"/*.safetensors > /dev/null
  # shellcheck disable=SC2086  # the row's flags are words
  line=$(timeout 120 python3 "$HERE/python/loader-profile.py" "$CKPT" ${ARGS[$row]} \
    2>> "$OUT/loader-phases.err") || { echo "$row: failed rc=$?" | tee -a "$OUT/loader-phases.txt"; continue; }
  python3 - "$row" "$line" <<'PY' | tee -a "$OUT/loader-phases.txt"
import json, sys
row, d = sys.argv[1], json.loads(sys.argv[2])
d["row"] = row
print(json.dumps(d), file=open(__import__("os").environ["OUT"] + "/loader-phases.jsonl", "a"))
print(row, {k: v for k, v in d.items() if k != "row"})
PY
done
