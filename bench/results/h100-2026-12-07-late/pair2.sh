#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 38: the pair-writes prototype at the tutorial's shapes whose writes ran 0.92x (1 x 1 GiB,
# 64 x 16 MiB), against HEAD's writes, alternating, built on the device.
set -u
nvidia-smi --query-gpu=name,uuid --format=csv,noheader | tee "$OUT/pair2.txt"
git apply bench/results/h100-2026-12-07-late/pair-writes-prototype.diff || exit 1
cmake -S . -B /tmp/bp -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF \
  -DHIPFILE_BUILD_EXAMPLES=OFF -DHIPFILE_PYTHON=OFF > /dev/null 2>&1 &&
  cmake --build /tmp/bp -j 16 --target async-bench > /dev/null 2>&1 || { echo "build failed"; exit 1; }
for shape in "1 1024" "64 16"; do
  # shellcheck disable=SC2086
  set -- $shape
  for round in 1 2 3; do
    for v in head pair; do
      e=A=1; [ $v = pair ] && e=HF_PAIR_PROTO=1
      rm -f "/var/tmp/tut-$1-$2.dat.out"
      echo "r$round $1 x $2 MiB $v: $(env $e timeout 100 /tmp/bp/bench/async-bench "/var/tmp/tut-$1-$2.dat" "$1" "$2" 200 \
        2>/dev/null | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/pair2.txt"
    done
  done
done
