#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 36: timelines of the parts' way (p8, p16) against sync, and the tutorial's program at
# the default budget and at 256 MiB with 16 MiB parts, on HEAD's carried build (build-h200t).
set -u
[ -d build-h200t/src ] || tar xzf .carry/h36.tgz
B=$PWD/build-h200t
export LD_LIBRARY_PATH=$B/src HIPFILE_TEST_TMPDIR=/var/tmp
ROWS="p8 p16 sync" timeout 300 bash bench/probes/trace-h200.sh "$B" "$OUT/trace" > /dev/null 2>&1
echo '{"properties": {"max_device_cache_size_kb": 262144}}' > /tmp/cache-256.json
o=$OUT/tutorial.txt
for _ in 1 2; do
  for v in default p16 p16-q; do
    case $v in
    default) envs="" ;;
    p16) envs="HIPFILE_CONFIG=/tmp/cache-256.json HIPFILE_ASYNC_AHEAD_PART_MB=16" ;;
    p16-q) envs="HIPFILE_CONFIG=/tmp/cache-256.json HIPFILE_ASYNC_AHEAD_PART_MB=16 HIPFILE_ASYNC_COPY_AT_SUBMISSION=0" ;;
    esac
    rm -f /var/tmp/hipfile-tutorial.dat.out
    echo "tutorial-$v: $(env $envs timeout 100 "$B/bench/async-bench" /var/tmp/hipfile-tutorial.dat \
      16 256 1000 2>> "$OUT/err" | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" | tee -a "$o"
  done
done
