#!/bin/sh
# SPDX-License-Identifier: MIT
# examples_tmpdriver_signal_test.sh DRIVER BASE: starts DRIVER on a long-running program in a
# fresh BASE, sends the driver SIGTERM and checks that it died of it with BASE left empty.
driver=$1
base=$2
rm -rf "$base" && mkdir -p "$base" || exit 1
"$driver" --base "$base" --seed-input 4096 -- sleep 60 &
pid=$!
tries=0
while [ -z "$(ls -A "$base")" ] && [ $tries -lt 100 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
left=$(ls -A "$base")
if [ "$rc" -eq 143 ] && [ -z "$left" ]; then
  echo "OK  scratch directory removed after SIGTERM"
else
  echo "FAILED: driver exit status $rc, left in $base: $left"
  exit 1
fi
