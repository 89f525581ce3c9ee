#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where a token's launch spends its stream's time (issue 21): stream-stop-probe in the library's
# shape for a read copied ahead (a copy into a region, no stop, K tokens, the first copying the
# region on), 16 streams, with the copy kernel's tables in mapped pinned host memory (as the
# library keeps them) and in device memory (PROBE_TABLE=device): does each launch wait on its
# table's reads over a link the copies keep busy? No tokens (the copy alone) as the ceiling; two
# rounds, 16 MiB (1 and 8 tokens) and 4 MiB (1 and 2).
#   bench/probes/token-table-h200.sh BUILD_DIR > OUT/token-table.txt
P=${1:?usage: token-table-h200.sh BUILD_DIR}/bench/stream-stop-probe
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
  for b in 16777216 4194304; do
    echo "== round $round, $b bytes"
    timeout 60 "$P" 16 "$b" 2 0
    for k in 1 $((b / 2097152)); do
      for t in host device; do
        echo "-- tokens $k, tables in $t memory"
        PROBE_TABLE=$t PROBE_TOKENS=$k timeout 60 "$P" 16 "$b" 2 0 | grep -v "^mode=sync"
      done
    done
  done
done
