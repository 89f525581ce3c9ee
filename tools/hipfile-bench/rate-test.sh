#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench --rate as a user types it: 2 threads of 4 KiB random reads for 1 s at 400
# operations a second, synchronous (-x 0) and stream-ordered (-x 5, waiting for each operation or,
# with --wait-when-full, only for a full window, and with --event-every 4 recording an event for
# every 4 operations only), every byte checked (-V). A
# paced run starts at most rate x seconds operations (the threads' first ones are due at the
# start, so one more each at most), and on the CPU runtime 400 a second is far below what it can
# do, so it keeps the rate: at least 80% of it (the loose bound is for a loaded CI machine). The
# JSON line names the rate and the way -x 5 waited. Unpaced, --event-every 3 with 8 in flight
# (windows that its events do not divide) still completes and checks every operation.
# Usage: rate-test.sh EXPECT HIPFILE_BENCH DIR (EXPECT, the tools' output checker, is not used)
set -eu
bench=$2 dir=$3
mkdir -p "$dir"
for x in 0 5 "5 --wait-when-full" "5 --wait-when-full --event-every 4"; do
  out=$("$bench" -D "$dir" -s 1M -i 4K -I 2 -w 2 -T 1 -x $x -V --rate 400 --json) ||
    { echo "hipfile-bench -x $x failed: $out"; exit 1; }
  ops=$(echo "$out" | sed -n 's/.*"ops": \([0-9]*\).*/\1/p')
  rate=$(echo "$out" | sed -n 's/.*"rate_iops": \([0-9]*\).*/\1/p')
  [ "$rate" = 400 ] || { echo "-x $x: rate_iops is '$rate', not 400: $out"; exit 1; }
  full=$(echo "$out" | sed -n 's/.*"wait_when_full": \([a-z]*\).*/\1/p')
  case $x in *--wait-when-full*) want=true ;; *) want=false ;; esac
  [ "$full" = "$want" ] || { echo "-x $x: wait_when_full is '$full': $out"; exit 1; }
  every=$(echo "$out" | sed -n 's/.*"event_every": \([0-9]*\).*/\1/p')
  case $x in *--event-every*) want=4 ;; *) want=1 ;; esac
  [ "$every" = "$want" ] || { echo "-x $x: event_every is '$every': $out"; exit 1; }
  [ -n "$ops" ] && [ "$ops" -le 402 ] && [ "$ops" -ge 320 ] ||
    { echo "-x $x: $ops operations in 1 s at --rate 400: $out"; exit 1; }
  echo "-x $x: $ops operations in 1 s at --rate 400"
done
out=$("$bench" -D "$dir" -s 1M -i 4K -I 2 -w 2 -T 0.5 -x 5 -Q 8 --event-every 3 -V --json) ||
  { echo "hipfile-bench -x 5 --event-every 3 failed: $out"; exit 1; }
ops=$(echo "$out" | sed -n 's/.*"ops": \([0-9]*\).*/\1/p')
case $out in *'"ok": true'*) ;; *) echo "--event-every 3: not ok: $out"; exit 1 ;; esac
[ -n "$ops" ] && [ "$ops" -gt 0 ] || { echo "--event-every 3: no operations: $out"; exit 1; }
echo "-x 5 -Q 8 --event-every 3: $ops operations, every byte checked"
echo "rate-test: ok"
