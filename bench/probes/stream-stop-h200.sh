#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stream-stop-probe (issue 21) on the H200, most telling rows first:
#   bench/probes/stream-stop-h200.sh BUILD_DIR > OUT/stream-stop.txt
# 1. scan: 2, 4, 8 and 16 streams copying 1 MiB and 16 MiB with no stop (the probe's watchdog
#    prints where it is and exits 3 if a shape hangs: its first runs printed nothing at 16 x
#    16 MiB, bench/results/h200-2026-12-05), and 16 x 16 MiB from cuMemHostAlloc'd sources;
# 2. the library's whole shape for a read copied ahead (PROBE_TOKENS=K: the copy into a region,
#    the stop, then K tokens of the copy-table kernel, the first copying the region on, the rest
#    nothing) at K = 1 and the read's chunks (8 at 16 MiB, 2 at 4 MiB), stops 0 and 50 us, and
#    the first token on 132 blocks (one per SM) instead of the library's 32: what the
#    device-to-device copy and the tokens that copy nothing cost (at 512 MiB of scratch a 16 MiB
#    read's stream spends 0.78 ms of its 5.6 ms after the read's release);
# 3. the same with each copy on a companion stream (PROBE_AHEAD=1), so that a stream's next copy
#    runs while it stops and copies on for this one: what copies ahead on a stream of the
#    library's own would gain, on 8 hardware queues and 32;
# 4. copy, stop for 0, 50, 200 and 500 us, go: one copy in flight per stream and two
#    (PROBE_SPLIT=2), on 8 hardware queues (the default: two streams share each) and 32 (one
#    each): whether stops or one copy in flight per stream cost.
# Each against 16 threads copying one at a time (the synchronous path's way, the probe's "sync"
# row). Every invocation runs under a timeout, so one hang does not take the rest.
set -uo pipefail
build=$1
P=$build/bench/stream-stop-probe
S=${SECONDS_PER_ROW:-2}
run() { timeout 90 "$@" || echo "exit $? from: $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== scan"
for streams in 2 4 8 16; do
  for bytes in 1048576 16777216; do run "$P" "$streams" "$bytes" 1 0; done
done
PROBE_SRC=hostalloc run "$P" 16 16777216 1 0  # sources from cuMemHostAlloc, surely pinned
echo "== library shape"
for bytes in 16777216 4194304; do
  chunks=$((bytes / 2097152))
  for tokens in 1 "$chunks"; do PROBE_TOKENS=$tokens run "$P" 16 "$bytes" "$S" 0 50; done
  PROBE_TOKENS=$chunks PROBE_GRID=132 run "$P" 16 "$bytes" "$S" 0
done
echo "== copies on a companion stream (PROBE_AHEAD=1): the next copy runs during the stop"
for connections in 8 32; do
  echo "CUDA_DEVICE_MAX_CONNECTIONS=$connections"
  CUDA_DEVICE_MAX_CONNECTIONS=$connections PROBE_AHEAD=1 PROBE_TOKENS=8 run "$P" 16 16777216 "$S" 0 50
done
PROBE_AHEAD=1 PROBE_TOKENS=2 run "$P" 16 4194304 "$S" 0 50
PROBE_AHEAD=1 run "$P" 16 16777216 "$S" 0 50 200
echo "== stops"
for connections in 8 32; do
  for bytes in 16777216 4194304; do
    for split in 1 2; do
      echo "CUDA_DEVICE_MAX_CONNECTIONS=$connections"
      CUDA_DEVICE_MAX_CONNECTIONS=$connections PROBE_SPLIT=$split run "$P" 16 "$bytes" "$S" 0 50 200 500
    done
  done
done
