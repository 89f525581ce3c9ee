#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The windows' way against the parts' way and the synchronous path, with two builds of the
# library in one run, interleaved (docs/async.md, "A read across several windows"): 16 x 1 x 256
# MiB reads from pinned windows (budget 0), in 8 MiB parts (the default), -x 0; the same on 32
# hardware queues (CUDA_DEVICE_MAX_CONNECTIONS=32); 16 x 2 x 256 MiB from windows; 16 x 2 x 16 MiB
# in parts, parts off, from windows and -x 0 - each queued (HIPFILE_ASYNC_COPY_AT_SUBMISSION=0,
# HIPFILE_ASYNC_RUN_IDLE_KB=0), ROUNDS times (default 2). Then the tutorial's program (async-bench
# 16 x 256 MiB) with parts off on each build, twice; copy-kernel-probe's 256 MiB grid kernels
# alone, followed by a stream write, and by a passed stream wait (PROBE_AFTER), on 8 and 32
# queues (does a launch hold its hardware queue's other streams through what follows it?); and
# the new build's runtime and stress tests on the GPU. The new build's rows only where they ask
# what a setting does. Each build's tools run with LD_LIBRARY_PATH at its own library.
#   bench/probes/windows-ab-h200.sh BASE_BUILD NEW_BUILD OUT_DIR
# About 5 minutes on an H100; rows go to OUT_DIR/ab.txt as they come.
set -u
base=$(realpath "${1:?usage: windows-ab-h200.sh BASE_BUILD NEW_BUILD OUT_DIR}")
new=$(realpath "${2:?}")
out=${3:?}
mkdir -p "$out"
here=$(dirname "$0")
o=$out/ab.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$o"
export HIPFILE_TEST_TMPDIR=${DIR:-/var/tmp}
tests() {  # tests BINARY SECONDS
  if [ ! -x "$new/tests/$1" ]; then
    echo "$1: not run: $new was built without tests (-DHIPFILE_BUILD_TESTS=ON)" | tee -a "$o"
    return
  fi
  LD_LIBRARY_PATH=$new/src timeout "$2" "$new/tests/$1" > "$out/$1.log" 2>&1
  echo "$1 rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$out/$1.log" | tr '\n' ' ')" | tee -a "$o"
  grep -E "FAILED" "$out/$1.log" | head -8 | tee -a "$o"
}
tests unit_runtime_tests 120
F=$HIPFILE_TEST_TMPDIR/hipfile-windows-ab.dat
bench() { LD_LIBRARY_PATH=$1/src "$1/tools/hipfile-bench/hipfile-bench" "${@:2}"; }
bench "$base" -f "$F" -s 2G -i 64M -x 10 -w 4 > /dev/null
bench "$base" -f "$F" -s 2G -i 64M -x 10 -w 4 -T 1 > /dev/null
echo '{"properties": {"max_device_cache_size_kb": 0}}' > "$out/cache-0.json"
Q="HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0"
W="HIPFILE_CONFIG=$out/cache-0.json"
row() {  # row NAME BUILD "VAR=VALUE ..." FLAGS...
  local name=$1 build=$2 envs=$3 line
  shift 3
  # shellcheck disable=SC2086  # the settings are words
  line=$(env $Q $envs LD_LIBRARY_PATH="$build/src" timeout 60 \
    "$build/tools/hipfile-bench/hipfile-bench" -f "$F" -s 2G -T "${SECS:-2}" --ramp "${RAMP:-1}" \
    "$@" --json 2>> "$out/err") &&
    echo "$name $(python3 "$here/json-row.py" '' "$line")" | tee -a "$o"
}
for _ in $(seq "${ROUNDS:-2}"); do
  for which in base new; do
    build=$base
    [[ $which == new ]] && build=$new
    row "windows-$which" "$build" "$W" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
    row "parts-$which" "$build" "" -w 16 -i 256M -I 0 -x 5 -Q 1
  done
  row windows32-new "$new" "CUDA_DEVICE_MAX_CONNECTIONS=32 $W" -w 16 -i 256M -I 0 -x 5 -Q 1
  row windows-16x2-new "$new" "$W" -w 16 -i 256M -I 0 -x 5 -Q 2
  row parts32-new "$new" "CUDA_DEVICE_MAX_CONNECTIONS=32" -w 16 -i 256M -I 0 -x 5 -Q 1
  row sync32 "$new" "CUDA_DEVICE_MAX_CONNECTIONS=32" -w 16 -i 256M -I 0 -x 0
  row sync "$new" "" -w 16 -i 256M -I 0 -x 0
  row parts-16M-new "$new" "" -w 16 -i 16M -I 0 -x 5 -Q 2
  row parts-off-16M-new "$new" "HIPFILE_ASYNC_AHEAD_PART_MB=0" -w 16 -i 16M -I 0 -x 5 -Q 2
  row windows-16M-new "$new" "$W" -w 16 -i 16M -I 0 -x 5 -Q 2
  row sync-16M "$new" "" -w 16 -i 16M -I 0 -x 0
done
for which in base new base new; do
  build=$base
  [[ $which == new ]] && build=$new
  rm -f "$HIPFILE_TEST_TMPDIR/hipfile-tutorial.dat.out"  # left by a run that timed out
  echo "tutorial-parts-off-$which: $(HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_AHEAD_PART_MB=0 \
    LD_LIBRARY_PATH=$build/src timeout 100 "$build/bench/async-bench" \
    "$HIPFILE_TEST_TMPDIR/hipfile-tutorial.dat" 16 256 1000 2>> "$out/err" |
    grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$o"
done
for q in 8 32; do
  for after in none write wait; do
    echo "== queues $q after $after" | tee -a "$o"
    CUDA_DEVICE_MAX_CONNECTIONS=$q PROBE_AFTER=$after PROBE_SRC=file:$HIPFILE_TEST_TMPDIR \
      timeout 40 "$new/bench/copy-kernel-probe" "$here/copy-kernel-variants.ptx" 16 268435456 32 3 \
      w4 2>&1 | tee -a "$o"
  done
done
tests stress_tests 150
