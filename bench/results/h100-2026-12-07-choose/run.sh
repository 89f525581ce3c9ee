#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 40, any card: build with tests; the probe's unit test on CUDA (rates, time); the
# parts-or-windows rows with the library's own choice (auto); 4 KiB sync rows with the copy spin
# at 20 and 100 us; then every test binary on the GPU (GPU=1).
set -u
gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "$gpu" | tee "$OUT/probe.txt"
TESTS=ON bash bench/results/h100-2026-12-07-warm-4k/build.sh 2>&1 | tee -a "$OUT/probe.txt"
for i in 1 2 3; do
  build-dev/tests/unit_async_tests --gtest_filter='*HostReadProbe*cuda' 2>&1 | grep -E "DMA|OK|FAIL|Skipped" | tee -a "$OUT/probe.txt"
done
ROUNDS=2 timeout 240 bash bench/probes/parts-or-windows-h200.sh build-dev /var/tmp/pw.dat 2>&1 | tee -a "$OUT/probe.txt"
H=$PWD/build-dev/tools/hipfile-bench/hipfile-bench F=/var/tmp/pw.dat
export HIPFILE_TEST_TMPDIR=/var/tmp
for round in 1 2; do
  cat $F > /dev/null
  for spin in 20 100; do
    echo "r$round 4K sync spin=$spin: $(HIPFILE_COPY_SPIN_US=$spin timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 -i 4K -I 2 -x 0 --json 2>&1 |
      tail -1 | grep -oE '"(iops|p50_latency_us|p99_latency_us|avg_latency_us|cpu_cores|cached_at_start)": [0-9.]*' |
      tr '\n' ' ')" | tee -a "$OUT/probe.txt"
  done
done
[ "${GPU:-0}" = 1 ] && timeout 200 bash bench/probes/gpu-test-run.sh build-dev "$OUT/gt" 2>&1 | tail -5 | tee -a "$OUT/probe.txt"
exit 0
