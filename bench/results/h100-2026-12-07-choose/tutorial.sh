#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 40, second device call (after run.sh built build-dev/): the tutorial's program
# (async-bench, 16 streams x 256 MiB, warm) with HIPFILE_ASYNC_AHEAD_PART_MB=8 set (the old
# default, parts everywhere) and unset (the library measures and chooses), two rounds.
B=$PWD/build-dev
export HIPFILE_TEST_TMPDIR=/var/tmp
for r in 1 2; do
  for part in 8 auto; do
    if [ $part = 8 ]; then export HIPFILE_ASYNC_AHEAD_PART_MB=8; else unset HIPFILE_ASYNC_AHEAD_PART_MB; fi
    echo "tutorial r$r part=$part: $(timeout 100 "$B/bench/async-bench" /var/tmp/hipfile-tutorial.dat 16 256 1000 2>/dev/null |
      tail -1 | grep -oE '"(sync|async)_read_gib_s": [0-9.]*' | tr '\n' ' ')"
  done
done | tee "$OUT/tutorial2.txt"
