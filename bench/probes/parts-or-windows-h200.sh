#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Which way reads on busy streams without the FIXED flags should take past the device budget, on
# this host (docs/async.md, "Reads copied ahead in parts"; bench/results/h200-2026-12-07): in
# parts (HIPFILE_ASYNC_AHEAD_PART_MB=8, the default: DMA into device memory, then the kernel from
# there) or from the pinned windows by the kernel (=0), beside the host's grid-kernel rate from
# pinned host memory (copy-kernel-probe w4, 16 streams x 256 MiB) and the synchronous path. Warm,
# 16 threads, `--late-binding`, 16 x 1 x 256 MiB and 16 x 2 x 16 MiB, ROUNDS rounds (default 2).
# `auto`: the setting unset, so that the library measures the device and chooses (docs/async.md,
# "Parts or the windows' way, by measurement"); its choice, from its info log line, ends the row.
# One line a row on stdout.
#   bench/probes/parts-or-windows-h200.sh BUILD_DIR [FILE]
set -u
build=$(realpath "${1:?usage: parts-or-windows-h200.sh BUILD_DIR [FILE]}")
F=${2:-/var/tmp/parts-or-windows.dat}
here=$(dirname "$0")
H=$build/tools/hipfile-bench/hipfile-bench
export HIPFILE_TEST_TMPDIR=${DIR:-/var/tmp}
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
[ -f "$F" ] || "$H" -f "$F" -s 4G -i 64M -x 10 -w 4 > /dev/null 2>&1
cat "$F" > /dev/null
echo "kernel: $(PROBE_SRC=file:$HIPFILE_TEST_TMPDIR timeout 40 "$build/bench/copy-kernel-probe" \
  "$here/copy-kernel-variants.ptx" 16 268435456 32 3 w4 2>&1 | tail -1)"
for round in $(seq "${ROUNDS:-2}"); do
  for shape in "256M 1" "16M 2"; do
    # shellcheck disable=SC2086
    set -- $shape
    line="r$round 16 x $2 x $1:"
    for way in sync parts8 parts0 auto; do
      case $way in
      sync) args=(-x 0) part=8 ;;
      parts8) args=(-x 5 -Q "$2" --late-binding) part=8 ;;
      parts0) args=(-x 5 -Q "$2" --late-binding) part=0 ;;
      auto) args=(-x 5 -Q "$2" --late-binding) part= ;;
      esac
      line="$line $way $(env ${part:+HIPFILE_ASYNC_AHEAD_PART_MB=$part} HIPFILE_LOG_LEVEL=info \
        timeout 60 "$H" -f "$F" -s 4G -T 2 --ramp 1 -w 16 -i "$1" "${args[@]}" --json \
        2>/tmp/parts-or-windows.log |
        grep -oE '"(throughput_gib_s|cached_at_start)": [0-9.]*' | grep -oE '[0-9.]+$' | tr '\n' ' ')"
    done
    echo "$line chose: $(grep -oE 'copy kernel reads.*' /tmp/parts-or-windows.log | head -1)"
  done
done
