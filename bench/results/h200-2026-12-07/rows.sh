#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 39, first call: build (build.sh), then on any card the 4 KiB probe - are the H100s'
# 184-211 us sync 4 KiB reads the disk's, after the write rows' O_DIRECT writes dropped the file
# from the page cache? - and, on an H200 only, h100-2026-12-07-late's rows at HEAD: hipfile-bench
# -x 5 -Q 2 FIXED and --late-binding against -x 0, 4 KiB random reads (the file read whole
# first), the tutorial's program at the defaults and at five shapes.
set -u
gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "$gpu" | tee "$OUT/rows.txt"
df -T /var/tmp | tail -1 | tee -a "$OUT/rows.txt"
# PROBE=0: on an H200 only, without the probe
if [ "${PROBE:-1}" = 0 ]; then
  case $gpu in *H200*) ;; *) echo "not an H200: nothing run" | tee -a "$OUT/rows.txt"; exit 0 ;; esac
fi
bash .carry/f39/build.sh 2>&1 | tee -a "$OUT/rows.txt"
[ -x /var/tmp/p39/bin/hipfile-bench ] || exit 1
B=$PWD/build-dev
H=$B/tools/hipfile-bench/hipfile-bench F=/var/tmp/hb39.dat
export HIPFILE_TEST_TMPDIR=/var/tmp
[ -f $F ] || $H -f $F -s 4G -i 64M -x 10 -w 4 > /dev/null 2>&1
k4() {  # k4 LABEL ARGS...: a 4 KiB random-read row's rate, p50 and cores
  echo "$1: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 -i 4K -I 2 "${@:2}" --json 2>&1 |
    tail -1 | grep -oE '"(iops|p50_latency_us|cpu_cores)": [0-9.]*|"(staged|read_at_submission|run_at_once)": [0-9]*' |
    tr '\n' ' ')" | tee -a "$OUT/rows.txt"
}
[ "${PROBE:-1}" = 0 ] || for round in 1 2; do
  cat $F > /dev/null
  k4 "probe r$round 4K -x 0, file read whole first" -x 0
  echo "probe r$round writes: $(timeout 60 $H -f $F -s 4G -T 2 -w 16 -i 16M -I 1 -x 0 2>&1 | tail -1 |
    grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/rows.txt"
  k4 "probe r$round 4K -x 0, after the writes" -x 0
  k4 "probe r$round 4K -x 0, after the writes, again" -x 0
  cat $F > /dev/null
  k4 "probe r$round 4K -x 0, file read whole again" -x 0
done
case $gpu in *H200*) ;; *) echo "not an H200: the H200 rows are left" | tee -a "$OUT/rows.txt"; exit 0 ;; esac
cat $F > /dev/null
for round in 1 2; do
  for r in "-i 256M -x 0" "-i 256M -x 5 -Q 2" "-i 256M -x 5 -Q 2 --late-binding" \
           "-i 16M -x 0" "-i 16M -x 5 -Q 2" "-i 16M -x 5 -Q 2 --late-binding"; do
    # shellcheck disable=SC2086
    echo "r$round $r: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 $r 2>&1 | tail -1 |
      grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/rows.txt"
  done
  for r in "-x 0" "-x 5 -Q 8" "-x 5 -Q 8 --late-binding" "-x 5 -Q 8 --event-every 8" \
           "-x 5 -Q 8 --event-every 8 --late-binding"; do
    # shellcheck disable=SC2086
    k4 "r$round 4K $r" $r
  done
  for r in "-I 1 -i 16M -x 0" "-I 1 -i 16M -x 5 -Q 2" "-I 1 -i 16M -x 5 -Q 2 --late-binding"; do
    # shellcheck disable=SC2086
    echo "r$round $r: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 $r 2>&1 | tail -1 |
      grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/rows.txt"
  done
  cat $F > /dev/null
done
for _ in 1 2; do
  rm -f /var/tmp/hipfile-tutorial.dat.out
  echo "tutorial: $(timeout 100 "$B/bench/async-bench" /var/tmp/hipfile-tutorial.dat 16 256 1000 2>/dev/null |
    grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/rows.txt"
done
for shape in "1 1024" "4 256" "16 64" "64 16" "256 4"; do
  # shellcheck disable=SC2086
  set -- $shape
  for _ in 1 2; do
    rm -f "/var/tmp/tut-$1-$2.dat.out"
    echo "tutorial $1 x $2 MiB: $(timeout 100 "$B/bench/async-bench" "/var/tmp/tut-$1-$2.dat" "$1" "$2" 200 \
      2>/dev/null | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/rows.txt"
  done
done
