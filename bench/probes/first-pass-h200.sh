#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# First-pass warm reads on the H200 (issue 20 item 1), as run through `device` with OUT set:
# builds first-pass-probe and hipfile-bench (Release) in /tmp/b, makes a 28 GiB file in the page
# cache, then (1) the pinned link rate, (2) hipfile-bench one pass over 8 GiB, each run a fresh
# process with the file warm, with HIPFILE_PAGE_CACHE_PIN_AHEAD 0, 8 and 32, 16 MiB calls on 8
# threads and 1 GiB calls on one, three rounds; (3) first-pass-probe over fresh 2 GiB regions.
# Writes OUT/engine.txt and OUT/first-pass-probe.txt.
set -o pipefail
(cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF -DHIPFILE_BUILD_EXAMPLES=OFF && cmake --build /tmp/b --target first-pass-probe hipfile-bench) > /tmp/pb.log 2>&1 || { tail -20 /tmp/pb.log; exit 1; }
F=/var/tmp/fp.dat
[ -f $F ] || dd if=/dev/zero of=$F bs=16M count=1792 status=none
cat $F > /dev/null
B=/tmp/b/tools/hipfile-bench/hipfile-bench
echo "link: $($B -f $F -s 4G -i 16M -w 8 -x 9 -T 2 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["throughput_gib_s"])')" | tee $OUT/engine.txt
for rep in 1 2 3; do for ahead in 0 8 32; do for shape in "-w 8 -i 16M" "-w 1 -i 1G"; do
  cat $F > /dev/null
  r=$(HIPFILE_PAGE_CACHE_PIN_AHEAD=$ahead $B -f $F -s 8G $shape -x 0 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["throughput_gib_s"], d.get("paths"))')
  echo "rep $rep ahead $ahead shape '$shape': $r" | tee -a $OUT/engine.txt
done; done; done
/tmp/b/bench/first-pass-probe $F 2 2>&1 | tee $OUT/first-pass-probe.txt
