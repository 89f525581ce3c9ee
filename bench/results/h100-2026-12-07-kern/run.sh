#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 34 (2026-12-07), the device call: the run kernel against a kernel alone (trace row
# kern), the GPU test run of the carried build, the 256 MiB probe rows. The build travelled as
# .carry/n.tgz (build-h200t: a Release build of 47db4e0, -DHIPFILE_PYTHON=OFF), cond-copy-probe
# built with `nvcc -O2 -arch=sm_90 -o .carry/cond-copy-probe bench/probes/cond-copy-probe.cu -lcuda`.
set -u
[ -d build-new ] || tar xzf .carry/n.tgz
ln -sfn build-new build-h200t
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$OUT/card.txt"
ROWS="sync kern" timeout 200 bash bench/probes/trace-h200.sh build-h200t "$OUT/trace"
timeout 260 bash bench/probes/gpu-test-run.sh build-h200t "$OUT/tests"
X=bench/probes/copy-kernel-variants.ptx
{
  PROBE_SRC=file:/var/tmp timeout 60 build-h200t/bench/copy-kernel-probe $X 16 268435456 1056 3 dma w4 c4
  PROBE_SRC=file:/var/tmp timeout 60 build-h200t/bench/copy-kernel-probe $X 16 268435456 0 3 dma w4 c4
  SRC_DIR=/var/tmp timeout 40 .carry/cond-copy-probe 16 268435456 3 plain cond
} 2>&1 | tee "$OUT/variants-256.txt"
