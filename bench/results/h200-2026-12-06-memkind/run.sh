#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 33: copy kernels reading host memory, by reading pattern and by kind of memory.
set -u
P=.carry/copy-kernel-probe
X=bench/probes/copy-kernel-variants.ptx
o=$OUT/variants.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$o"
{
  echo "== cond-copy-probe, registered heap memory: plain DMA vs memcpy128"
  timeout 60 .carry/cond-copy-probe 16 268435456 3 plain cond plain cond
  echo "== cond-copy-probe, SRC_DIR=/var/tmp (registered page-cache file mappings)"
  SRC_DIR=/var/tmp timeout 90 .carry/cond-copy-probe 16 268435456 3 plain cond plain cond
  for src in file:/var/tmp register hostalloc; do
    for g in 32 1056 0; do
      PROBE_SRC=$src timeout 120 $P $X 16 268435456 $g 2 dma w4 page c4
    done
  done
  for src in file:/var/tmp register; do
    PROBE_SRC=$src timeout 120 $P $X 16 16777216 0 2 dma w4 page c4
    PROBE_SRC=$src timeout 120 $P $X 16 16777216 1056 2 dma w4 page c4
  done
} 2>&1 | tee -a "$o"
