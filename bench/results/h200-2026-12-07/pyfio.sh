#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 39, second call (an H200 only): the Python package built from this tree into /tmp/site
# and busy-stream-bench.py (read_async FIXED and late binding against sync, torch streams kept
# busy); fio's stream mode with and without the FIXED flags beside sync mode, through the engine
# installed in /var/tmp/p39 (rows.sh / build.sh) and the carried fio 3.33.
set -u
gpu=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "$gpu" | tee "$OUT/pyfio.txt"
case $gpu in *H200*) ;; *) echo "not an H200: nothing run" | tee -a "$OUT/pyfio.txt"; exit 0 ;; esac
[ -x /var/tmp/p39/bin/hipfile-bench ] || bash .carry/f39/build.sh 2>&1 | tee -a "$OUT/pyfio.txt"
c=$PWD/.carry/f39
python3 -m pip install --no-build-isolation --no-index --no-deps --target /tmp/site . \
  -C build-dir=/tmp/bpy -C cmake.define.HIPFILE_LIBURING_INCLUDE_DIR="$c/uring/include" \
  -C cmake.define.HIPFILE_LIBURING_STATIC_LIBRARY="$c/uring/lib/liburing.a" > "$OUT/pip.log" 2>&1 &&
  PYTHONPATH=/tmp/site timeout 200 python3 bench/python/busy-stream-bench.py /var/tmp/busy.dat \
    --rounds 2 2>&1 | tee -a "$OUT/pyfio.txt" || { echo "pip failed"; tail -20 "$OUT/pip.log"; }
ROWS=flags timeout 240 bash bench/probes/fio-stream-h200.sh /var/tmp/p39 "$c/bin/fio" \
  /var/tmp/fio-4g.bin 2>&1 | tee -a "$OUT/pyfio.txt"
