#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stream-stop-probe (issue 21): 16 streams copying 16 MiB and 4 MiB from registered host memory,
# each stopping after each copy for 0, 50, 200 and 500 us until the host lets it go, one copy in
# flight per stream and two (PROBE_SPLIT=2), on 8 hardware queues (the default: two streams
# share each, and a stream's wait holds up the other's copies queued behind it) and on 32 (a
# queue each), against 16 threads copying one at a time:
#   bench/probes/stream-stop-h200.sh BUILD_DIR > OUT/stream-stop.txt
# What it answers: whether the queued way's reads copied ahead (0.89-0.91x the synchronous path
# at 16 MiB, bench/results/h200-2026-12-04-f) lose to the stops of their streams or to one copy
# in flight per stream. Then the library's whole shape (PROBE_TOKENS=K: the copy into a region,
# the stop, then K tokens of the copy-table kernel, the first copying the region on, the rest
# nothing) at K = 1 and the read's chunks (8 at 16 MiB, 2 at 4 MiB), on 8 queues: what the
# device-to-device copy and the tokens that copy nothing cost; and the first token's launch on
# 132 blocks (one per SM) instead of the library's 32.
set -uo pipefail
build=$1
P=$build/bench/stream-stop-probe
S=${SECONDS_PER_ROW:-3}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for connections in 8 32; do
  for bytes in 16777216 4194304; do
    for split in 1 2; do
      echo "CUDA_DEVICE_MAX_CONNECTIONS=$connections"
      CUDA_DEVICE_MAX_CONNECTIONS=$connections PROBE_SPLIT=$split "$P" 16 "$bytes" "$S" 0 50 200 500
    done
  done
done
for bytes in 16777216 4194304; do
  chunks=$((bytes / 2097152))
  for tokens in 1 "$chunks"; do
    PROBE_TOKENS=$tokens "$P" 16 "$bytes" "$S" 0 50
  done
  PROBE_TOKENS=$chunks PROBE_GRID=132 "$P" 16 "$bytes" "$S" 0
done
