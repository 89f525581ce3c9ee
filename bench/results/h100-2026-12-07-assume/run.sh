#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 36, one call: fio ROWS=assume; the tutorial's program and hipfile-bench -x 5 at the
# defaults against sync; the Python busy-stream bench - c180613's build.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
rm -rf /var/tmp/p36 && tar -C /var/tmp -xzf .carry/f36/p36.tgz
[ -d build-h200t/src ] || tar xzf .carry/h36c.tgz
B=$PWD/build-h200t
ROWS=assume timeout 150 bash bench/probes/fio-stream-h200.sh /var/tmp/p36 "$PWD/.carry/f36/fio" \
  /var/tmp/fio-4g.bin 2>&1 | tee "$OUT/fio-assume.txt"
export LD_LIBRARY_PATH=$B/src
for _ in 1 2; do
  rm -f /var/tmp/hipfile-tutorial.dat.out
  echo "tutorial: $(timeout 100 "$B/bench/async-bench" /var/tmp/hipfile-tutorial.dat 16 256 1000 2>/dev/null |
    grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$OUT/defaults.txt"
done
H=$B/tools/hipfile-bench/hipfile-bench F=/var/tmp/hb36.dat
$H -f $F -s 4G -i 64M -x 10 -w 4 > /dev/null
for _ in 1 2; do
  for r in "-i 256M -x 0" "-i 256M -x 5 -Q 1" "-i 16M -x 0" "-i 16M -x 5 -Q 2"; do
    # shellcheck disable=SC2086
    echo "$r: $($H -f $F -s 4G -T 2 --ramp 1 -w 16 -I 0 $r 2>&1 | tail -1 | grep -o 'Throughput: [0-9.]* GiB/sec')" | tee -a "$OUT/defaults.txt"
  done
done
unset LD_LIBRARY_PATH
python3 -m pip install --no-build-isolation --no-index --no-deps --target /tmp/site . \
  -C build-dir=/tmp/bpy > "$OUT/pip.log" 2>&1 &&
  PYTHONPATH=/tmp/site timeout 120 python3 bench/python/busy-stream-bench.py /var/tmp/busy.dat \
    --rounds 2 2>&1 | tee "$OUT/busy-stream.txt"
