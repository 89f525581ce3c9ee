#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 37, one call: hipfile-bench -x 5 with and without --late-binding against -x 0 (large
# reads, writes, 4 KiB random reads with cores); the tutorial's program at the defaults; then, on
# an H200 only, the Python busy-stream bench and fio's stream rows - HEAD's build (h37b.tgz); 16 MiB writes in large and small chunks.
set -u
gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "$gpu" | tee "$OUT/late.txt"
[ -d build-h200t/src ] || tar xzf .carry/h37b.tgz
B=$PWD/build-h200t
export LD_LIBRARY_PATH=$B/src HIPFILE_TEST_TMPDIR=/var/tmp
H=$B/tools/hipfile-bench/hipfile-bench F=/var/tmp/hb37.dat
$H -f $F -s 4G -i 64M -x 10 -w 4 > /dev/null 2>&1
$H -f $F -s 4G -i 64M -x 10 -w 4 -T 1 > /dev/null 2>&1
for round in 1 2; do
  for r in "-i 256M -x 0" "-i 256M -x 5 -Q 2" "-i 256M -x 5 -Q 2 --late-binding" \
           "-i 16M -x 0" "-i 16M -x 5 -Q 2" "-i 16M -x 5 -Q 2 --late-binding" \
           "-I 1 -i 16M -x 0" "-I 1 -i 16M -x 5 -Q 2" "-I 1 -i 16M -x 5 -Q 2 --late-binding"; do
    # shellcheck disable=SC2086
    echo "r$round $r: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 $r 2>&1 | tail -1 |
      grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/late.txt"
  done
  for r in "-x 0" "-x 5 -Q 8" "-x 5 -Q 8 --late-binding" "-x 5 -Q 8 --event-every 8" \
           "-x 5 -Q 8 --event-every 8 --late-binding"; do
    # shellcheck disable=SC2086
    echo "r$round 4K $r: $(timeout 60 $H -f $F -s 4G -T 2 --ramp 1 -w 16 -i 4K -I 2 $r --json 2>&1 |
      tail -1 | grep -oE '"(iops|p50_latency_us|cpu_cores)": [0-9.]*|"(staged|read_at_submission|run_at_once)": [0-9]*' |
      tr '\n' ' ')" | tee -a "$OUT/late.txt"
  done
done
for round in 1 2 3; do
  line="r$round writes 16 x 16 MiB:"
  for v in sync large small; do
    case $v in
    sync) args=(-x 0) envs=() ;;
    large) args=(-x 5 -Q 2) envs=() ;;
    small) args=(-x 5 -Q 2) envs=(HIPFILE_ASYNC_LARGE_CHUNKS_MB=0) ;;
    esac
    line="$line $v $(env "${envs[@]}" timeout 60 "$H" -f $F -s 4G -i 16M -w 16 -I 1 -T 3 "${args[@]}" \
      --json 2>/dev/null | grep -oE '"(throughput_gib_s|large_chunks)": [0-9.]*' | tr '\n' ' ')"
  done
  echo "$line" | tee -a "$OUT/late.txt"
done
for _ in 1 2; do
  rm -f /var/tmp/hipfile-tutorial.dat.out
  echo "tutorial: $(timeout 100 "$B/bench/async-bench" /var/tmp/hipfile-tutorial.dat 16 256 1000 2>/dev/null |
    grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/late.txt"
done
for shape in "1 1024" "4 256" "16 64" "64 16" "256 4"; do
  # shellcheck disable=SC2086
  set -- $shape
  for _ in 1 2; do
    rm -f "/var/tmp/tut-$1-$2.dat.out"
    echo "tutorial $1 x $2 MiB: $(timeout 100 "$B/bench/async-bench" "/var/tmp/tut-$1-$2.dat" "$1" "$2" 200 \
      2>/dev/null | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/shapes.txt"
  done
done
case $gpu in *H200*) ;; *) echo "not an H200: the H200 rows are left"; exit 0 ;; esac
rm -rf /var/tmp/p37 && tar -C /var/tmp -xzf .carry/f37/p37.tgz
unset LD_LIBRARY_PATH
python3 -m pip install --no-build-isolation --no-index --no-deps --target /tmp/site . \
  -C build-dir=/tmp/bpy > "$OUT/pip.log" 2>&1 &&
  PYTHONPATH=/tmp/site timeout 150 python3 bench/python/busy-stream-bench.py /var/tmp/busy.dat \
    --rounds 2 2>&1 | tee "$OUT/busy-stream.txt"
ROWS=flags timeout 200 bash bench/probes/fio-stream-h200.sh /var/tmp/p37 "$PWD/.carry/f37/fio" \
  /var/tmp/fio-4g.bin 2>&1 | tee "$OUT/fio-flags.txt"
