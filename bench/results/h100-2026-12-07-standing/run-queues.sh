#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 34, the third device call (same machine, warm): the windows' way (budget 0) of 16 x 1 x
# 256 MiB reads on CUDA's default 8 hardware queues and on 32 (CUDA_DEVICE_MAX_CONNECTIONS),
# untraced then traced (the kernels' bytes over a 1.4 s window), and -x 0 twice.
set -u
[ -d build-new ] || tar xzf .carry/n.tgz
ln -sfn build-new build-h200t
O=$OUT
ROWS=none bash bench/probes/trace-h200.sh build-h200t "$O/t" > /dev/null 2>&1  # builds cupti-trace.so
B=build-h200t/tools/hipfile-bench/hipfile-bench
F=/var/tmp/hipfile-trace.dat
echo '{"properties": {"max_device_cache_size_kb": 0}}' > /tmp/c0.json
Q="HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0"
R="-w 16 -i 256M -I 0 -x 5 -Q 1 --stages"
for q in 8 32; do
  for t in 0 1; do
    E="$Q CUDA_DEVICE_MAX_CONNECTIONS=$q HIPFILE_CONFIG=/tmp/c0.json"
    [ $t = 1 ] && E="$E CUPTI_TRACE_OUT=$O/win-q$q.csv LD_PRELOAD=/tmp/cupti-trace.so"
    l=$(env $E timeout 60 $B -f $F -s 2G -T 2 --ramp 1 $R --json)
    echo "win q$q traced=$t $(python3 bench/probes/json-row.py '' "$l")"
  done
  python3 bench/probes/trace-gaps.py $O/win-q$q.csv --skip 1.3 --keep 1.4 --kernel-bytes 268435456 |
    grep -E "kernels|hipfile_copy"
done 2>&1 | tee $O/q.txt
for s in 1 2; do
  l=$(env $Q timeout 60 $B -f $F -s 2G -T 2 --ramp 1 -w 16 -i 256M -I 0 -x 0 --json)
  echo "sync $(python3 bench/probes/json-row.py '' "$l")"
done | tee -a $O/q.txt
rm -f $O/*.csv
