#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# copy-kernel-probe: the copy-table kernel (w4, the library's shape) against the same job done by
# the bulk-copy engine (copy-kernel-bulk.cu) and against DMA, 16 MiB copies from pinned host
# memory, one at a time per stream, on 1 and 16 streams, by grid:
#   bench/probes/copy-bulk-h200.sh BUILD_DIR > OUT/copy-bulk.txt
set -uo pipefail
build=$1
P=$build/bench/copy-kernel-probe
S=${SECONDS_PER_ROW:-2}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for streams in 1 16; do
  for grid in 32 132; do
    "$P" bench/probes/copy-kernel-variants.ptx "$streams" 16777216 "$grid" "$S" dma w4
    "$P" bench/probes/copy-kernel-bulk.ptx "$streams" 16777216 "$grid" "$S" bulk bulk5 bulk16
  done
done
