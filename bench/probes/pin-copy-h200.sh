#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Pins against copies on the H200 (issue 20 item 1), as run through `device` with OUT set: builds
# pin-copy-probe (Release) in /tmp/b, makes a 24 GiB file in the page cache and runs the probe
# over it (see the probe's header for each line). Writes OUT/pin-copy-probe.txt with the
# machine's kernel, file system and transparent-huge-page settings first.
set -o pipefail
(cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF -DHIPFILE_BUILD_EXAMPLES=OFF && cmake --build /tmp/b --target pin-copy-probe pin-lock-probe) > /tmp/pb.log 2>&1 || { tail -20 /tmp/pb.log; exit 1; }
F=/var/tmp/pc.dat
[ -f $F ] || dd if=/dev/zero of=$F bs=16M count=1536 status=none
cat $F > /dev/null
{
  echo "kernel $(uname -r); $(df -T /var/tmp | tail -1 | awk '{print $2}') at /var/tmp; THP $(cat /sys/kernel/mm/transparent_hugepage/enabled); $(nproc) cpus; $(grep -m1 'model name' /proc/cpuinfo)"
  /tmp/b/bench/pin-copy-probe $F
  /tmp/b/bench/pin-lock-probe $F
} 2>&1 | tee $OUT/pin-copy-probe.txt
