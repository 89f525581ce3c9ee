#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Pins aside against pins in the primary context, on the H200 (issue 20 item 1), as run through
# `device` with OUT set (liburing's .deb in .whl/deb: bench/competitors/fetch-liburing.sh): builds
# hipfile-bench (Release) and the Python package, makes a 28 GiB file in the page cache, then
# (1) the pinned link rate (the steady state of 16 MiB x 8 threads), (2) hipfile-bench one pass
# over the first SIZES (8G) of it, each run a fresh process, HIPFILE_PAGE_CACHE_PIN_ASIDE 0 and 1,
# 16 MiB calls on 8 threads and 1 GiB calls on one, REPS rounds; (3) the steady state with each;
# (4) unless LOADER=0, bench/python/loader-profile.py on a generated 8 GB checkpoint, each
# setting twice.
# Writes OUT/first-pass-aside.txt and OUT/loader-aside.txt.
set -o pipefail
REPS=${REPS:-3}
SIZES=${SIZES:-8G}
LOADER=${LOADER:-1}
if ls .whl/deb/liburing-dev_*.deb > /dev/null 2>&1; then
  dpkg -x .whl/deb/liburing-dev_*.deb /tmp/uring && export CMAKE_PREFIX_PATH=/tmp/uring/usr
fi
(cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF -DHIPFILE_BUILD_EXAMPLES=OFF && cmake --build /tmp/b --target hipfile-bench) > /tmp/pb.log 2>&1 || { tail -20 /tmp/pb.log; exit 1; }
grep -m1 "io_uring:" /tmp/pb.log
F=/var/tmp/fa.dat
[ -f $F ] || dd if=/dev/zero of=$F bs=16M count=1792 status=none
cat $F > /dev/null
B=/tmp/b/tools/hipfile-bench/hipfile-bench
T=$OUT/first-pass-aside.txt
rate() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["throughput_gib_s"], d.get("paths"))'; }
echo "link (steady state, 4 GiB, 16 MiB x 8): $($B -f $F -s 4G -i 16M -w 8 -x 9 -T 2 --json | rate)" | tee $T
# Each one-pass run reads 8 GiB the library has not read in this process; a fresh process pins
# afresh (pins end with the process), so the same 8 GiB serve every run.
for rep in $(seq "$REPS"); do for size in $SIZES; do for aside in 0 1; do
  for shape in "-w 8 -i 16M" "-w 1 -i 1G"; do
    r=$(HIPFILE_PAGE_CACHE_PIN_ASIDE=$aside $B -f $F -s $size $shape -x 0 --json 2>> $OUT/log.txt | rate)
    echo "rep $rep size $size aside $aside shape '$shape': $r" | tee -a $T
  done
done; done; done
for aside in 0 1; do
  echo "steady aside $aside (8 GiB, 16 MiB x 8, 5 s): $(HIPFILE_PAGE_CACHE_PIN_ASIDE=$aside $B -f $F -s 8G -i 16M -w 8 -x 0 -T 5 --json | rate)" | tee -a $T
done
[ "$LOADER" = 1 ] || exit 0
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-build-isolation --no-index --no-deps --target /tmp/site . -C build-dir=/tmp/bpy > /tmp/pipb.log 2>&1 || tail /tmp/pipb.log
C=/var/tmp/ck8
[ -d $C ] || python3 bench/python/make-checkpoint.py --gb 8 --shards 16 -j 16 $C > /dev/null
for rep in 1 2; do for aside in 0 1; do
  cat $C/*.safetensors > /dev/null
  echo "ck8 aside $aside: $(HIPFILE_PAGE_CACHE_PIN_ASIDE=$aside python3 bench/python/loader-profile.py $C 2>> $OUT/log.txt)" | tee -a $OUT/loader-aside.txt
done; done
