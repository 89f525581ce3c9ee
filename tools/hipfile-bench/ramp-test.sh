#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench --ramp as a user types it: 2 threads of 4 KiB random reads paced at 400 a second,
# 1 s of ramp then -T 1, synchronous (-x 0) and stream-ordered (-x 5), every byte checked (-V).
# The ramp's operations are not counted: about 400 are (at least 80% of the rate, at most the
# threads' 400 + 2 due in the counted second), where counting the ramp would give about 800; the
# JSON line names the ramp and the counted time is the -T second, not two. --ramp without -T is
# refused (exit 2) with a line naming the flag.
# Usage: ramp-test.sh EXPECT HIPFILE_BENCH DIR (EXPECT, the tools' output checker, is not used)
set -eu
bench=$2 dir=$3
mkdir -p "$dir"
for x in 0 5; do
  out=$("$bench" -D "$dir" -s 1M -i 4K -I 2 -w 2 -T 1 --ramp 1 -x $x -V --rate 400 --json) ||
    { echo "hipfile-bench -x $x --ramp 1 failed: $out"; exit 1; }
  ops=$(echo "$out" | sed -n 's/.*"ops": \([0-9]*\).*/\1/p')
  ramp=$(echo "$out" | sed -n 's/.*"ramp_s": \([0-9.]*\).*/\1/p')
  secs=$(echo "$out" | sed -n 's/.*"total_time_s": \([0-9.]*\).*/\1/p')
  [ "$ramp" = 1 ] || { echo "-x $x: ramp_s is '$ramp', not 1: $out"; exit 1; }
  awk -v t="$secs" 'BEGIN { exit !(t > 0.5 && t < 1.5) }' ||
    { echo "-x $x: the counted time is $secs s, not the -T second: $out"; exit 1; }
  [ -n "$ops" ] && [ "$ops" -le 402 ] && [ "$ops" -ge 320 ] ||
    { echo "-x $x: $ops operations counted in 1 s at --rate 400 after a 1 s ramp: $out"; exit 1; }
  case $out in *'"ok": true'*) ;; *) echo "-x $x: not ok: $out"; exit 1 ;; esac
  echo "-x $x: $ops operations counted after the ramp"
done
if err=$("$bench" -D "$dir" -s 1M -i 4K --ramp 1 2>&1); then
  echo "--ramp without -T ran: $err"; exit 1
else
  rc=$?
fi
[ "$rc" = 2 ] || { echo "--ramp without -T exited $rc, not 2: $err"; exit 1; }
case $err in *"--ramp: needs -T"*) ;; *) echo "--ramp without -T said: $err"; exit 1 ;; esac
echo "ramp-test: ok"
