#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 36: is an 8 MiB DMA slower than a 64 MiB one? copy-kernel-probe's dma at 8/16/64 MiB
# from file mappings and cuMemHostAlloc, 16 streams; hipfile-bench -x 0 at 8, 16, 64, 256 MiB.
set -u
[ -d build-h200t/src ] || tar xzf .carry/h36.tgz
B=$PWD/build-h200t
export LD_LIBRARY_PATH=$B/src HIPFILE_TEST_TMPDIR=/var/tmp
o=$OUT/p.txt
nvidia-smi --query-gpu=name,uuid --format=csv,noheader | tee "$o"
for src in file:/var/tmp hostalloc; do
  for mb in 8 16 64 8; do
    echo "dma $src $mb MiB: $(PROBE_SRC=$src timeout 40 .carry/copy-kernel-probe \
      bench/probes/copy-kernel-variants.ptx 16 $((mb << 20)) 32 3 dma 2>&1 | tr '\n' ' ')" | tee -a "$o"
  done
done
F=/var/tmp/hipfile-p36.dat
H=$B/tools/hipfile-bench/hipfile-bench
$H -f $F -s 2G -i 64M -x 10 -w 4 > /dev/null
for _ in 1 2; do
  for i in 8M 16M 64M 256M; do
    echo "sync $i: $($H -f $F -s 2G -T 2 --ramp 1 -w 16 -i $i -I 0 -x 0 2>&1 | tail -1)" | tee -a "$o"
  done
  echo "p8 256M: $(HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0 $H -f $F -s 2G -T 2 --ramp 1 \
    -w 16 -i 256M -I 0 -x 5 -Q 1 2>&1 | tail -1)" | tee -a "$o"
  echo "default-x5 256M: $($H -f $F -s 2G -T 2 --ramp 1 -w 16 -i 256M -I 0 -x 5 -Q 1 2>&1 | tail -1)" | tee -a "$o"
  echo "default-x5 16M Q2: $($H -f $F -s 2G -T 2 --ramp 1 -w 16 -i 16M -I 0 -x 5 -Q 2 2>&1 | tail -1)" | tee -a "$o"
done
