#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Which part of a token that copies nothing costs a stream its time (issue 21): stream-stop-probe
# in the library's shape for a read copied ahead (a copy into a region, a stop, then K tokens,
# the first copying the region on), 16 streams, no stop, with the tokens after the first keeping
# only some of their parts (PROBE_TOKEN_PARTS: w the wait, l the launch, c the `write copied`,
# b waits and writes batched), against one token; two rounds, 16 MiB (8 tokens) and 4 MiB (2).
#   bench/probes/token-parts-h200.sh BUILD_DIR > OUT/token-parts.txt
P=${1:?usage: token-parts-h200.sh BUILD_DIR}/bench/stream-stop-probe
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
  for b in 16777216 4194304; do
    k=$((b / 2097152))
    PROBE_TOKENS=1 timeout 60 "$P" 16 "$b" 2 0
    for parts in wlc l wc bl wl lc; do
      PROBE_TOKENS=$k PROBE_TOKEN_PARTS=$parts timeout 60 "$P" 16 "$b" 2 0 | grep -v "^mode=sync"
    done
  done
done
