#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# aside-context-probe's questions on a GPU machine, each mode in a process of its own (a mode
# that hangs is ended by the probe's watchdog and says so):
#   bench/probes/aside-context-h200.sh BUILD_DIR > OUT/aside-context.txt
# MODES (default: all) picks some: access release free rate kernel.
set -uo pipefail
build=$1
P=$build/bench/aside-context-probe
PTX=bench/probes/copy-kernel-variants.ptx
MODES=${MODES:-access release free rate kernel}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { echo "== $*"; "$@" 2>&1; echo "rc=$?"; }
for mode in $MODES; do
  case $mode in
    access) run "$P" "$PTX" access ;;
    release)
      for ctx in aside primary; do CUDA_DEVICE_MAX_CONNECTIONS=1 run "$P" "$PTX" release "$ctx"; done
      ;;
    free)
      for ctx in aside primary; do
        for order in wcg cwg gcw; do PROBE_TIMEOUT_S=5 run "$P" "$PTX" free "$ctx" "$order"; done
      done
      ;;
    rate) for round in 1 2; do for ctx in primary aside; do run "$P" "$PTX" rate "$ctx"; done; done ;;
    kernel) for ctx in primary aside; do run "$P" "$PTX" kernel "$ctx"; done ;;
  esac
done
