#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cold one-pass reads on the H200 (issue 20 item 1: "cold one-pass reads at >= 0.95 x the best
# O_DIRECT reader of the same run"), as run through `device` with OUT set: builds hipfile-bench
# (Release, with liburing from .whl/deb when there), makes an 8 GiB file, and for each shape drops
# the page cache and reads the first 4 GiB once: the library into GPU memory (-x 0), O_DIRECT
# pread into host memory (-x 1), buffered pread (-x 10). Writes OUT/cold-pass.txt.
set -o pipefail
if ls .whl/deb/liburing-dev_*.deb > /dev/null 2>&1; then
  dpkg -x .whl/deb/liburing-dev_*.deb /tmp/uring && export CMAKE_PREFIX_PATH=/tmp/uring/usr
fi
(cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF -DHIPFILE_BUILD_EXAMPLES=OFF && cmake --build /tmp/b --target hipfile-bench) > /tmp/pb.log 2>&1 || { tail -20 /tmp/pb.log; exit 1; }
F=/var/tmp/cold.dat
[ -f $F ] || dd if=/dev/zero of=$F bs=16M count=512 oflag=direct status=none
B=/tmp/b/tools/hipfile-bench/hipfile-bench
for x in "0 -w 8 -i 16M" "1 -w 8 -i 16M" "10 -w 8 -i 16M" "0 -w 16 -i 16M" "1 -w 16 -i 16M" "10 -w 16 -i 16M" "0 -w 16 -i 64M" "1 -w 16 -i 64M"; do
  sync; echo 3 > /proc/sys/vm/drop_caches
  r=$($B -f $F -s 4G -x $x --json 2>> $OUT/cold-log.txt | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["throughput_gib_s"], d.get("paths"))')
  echo "cold -x $x: $r" | tee -a $OUT/cold-pass.txt
done
