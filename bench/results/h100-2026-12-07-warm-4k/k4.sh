#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 39, any card: the 4 KiB rows of h100-2026-12-07-late again, the file read whole before
# each round (that run's came after the O_DIRECT write rows, from the disk); then fio's 4 KiB rows
# with the process's cores (fio-stream-h200.sh ROWS=cores).
set -u
gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "$gpu" | tee "$OUT/k4.txt"
[ -x /var/tmp/p39/bin/hipfile-bench ] || bash .carry/f39/build.sh 2>&1 | tee -a "$OUT/k4.txt"
H=$PWD/build-dev/tools/hipfile-bench/hipfile-bench F=/var/tmp/hb39.dat
export HIPFILE_TEST_TMPDIR=/var/tmp
[ -f $F ] || $H -f $F -s 4G -i 64M -x 10 -w 4 > /dev/null 2>&1
for round in 1 2; do
  cat $F > /dev/null
  for r in "-x 0" "-x 5 -Q 8" "-x 5 -Q 8 --late-binding" "-x 5 -Q 8 --event-every 8" \
           "-x 5 -Q 8 --event-every 8 --late-binding"; do
    # shellcheck disable=SC2086
    echo "r$round 4K $r: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 -i 4K -I 2 $r --json 2>&1 |
      tail -1 | grep -oE '"(iops|p50_latency_us|cpu_cores)": [0-9.]*|"(staged|read_at_submission|run_at_once)": [0-9]*' |
      tr '\n' ' ')" | tee -a "$OUT/k4.txt"
  done
done
ROWS=cores timeout 300 bash bench/probes/fio-stream-h200.sh /var/tmp/p39 "$PWD/.carry/f39/bin/fio" \
  /var/tmp/fio-4g.bin 2>&1 | tee -a "$OUT/k4.txt"
