#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 38: the pair-writes prototype against HEAD's writes, built on the device (16 cores).
set -u
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/pair.txt"
which cmake ninja nvcc g++ | tee -a "$OUT/pair.txt"
git apply bench/results/h100-2026-12-07-late/pair-writes-prototype.diff || { echo "apply failed" | tee -a "$OUT/pair.txt"; exit 1; }
s=$SECONDS
cmake -S . -B /tmp/bp -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF \
  -DHIPFILE_BUILD_EXAMPLES=OFF -DHIPFILE_PYTHON=OFF > "$OUT/cfg.log" 2>&1 &&
  cmake --build /tmp/bp -j 16 --target hipfile-bench async-bench > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
echo "built in $((SECONDS - s)) s" | tee -a "$OUT/pair.txt"
H=/tmp/bp/tools/hipfile-bench/hipfile-bench F=/var/tmp/hb38.dat
export HIPFILE_TEST_TMPDIR=/var/tmp
$H -f $F -s 4G -i 64M -x 10 -w 4 > /dev/null 2>&1
for round in 1 2 3 4; do
  line="r$round writes 16 x 16 MiB:"
  for v in sync head pair; do
    case $v in
    sync) args=(-x 0) envs=(A=1) ;;
    head) args=(-x 5 -Q 2) envs=(A=1) ;;
    pair) args=(-x 5 -Q 2) envs=(HF_PAIR_PROTO=1) ;;
    esac
    line="$line $v $(env "${envs[@]}" timeout 60 "$H" -f $F -s 4G -i 16M -w 16 -I 1 -T 3 "${args[@]}" \
      --json 2>/dev/null | grep -oE '"throughput_gib_s": [0-9.]*' | grep -oE '[0-9.]+$')"
  done
  echo "$line" | tee -a "$OUT/pair.txt"
done
for round in 1 2; do
  for v in head pair; do
    e=A=1; [ $v = pair ] && e=HF_PAIR_PROTO=1
    rm -f /var/tmp/hipfile-tutorial.dat.out
    echo "r$round tutorial $v: $(env $e timeout 100 /tmp/bp/bench/async-bench /var/tmp/hipfile-tutorial.dat 16 256 1000 2>/dev/null |
      grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/pair.txt"
  done
done
