#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench -x 5 --json reports where its operations' time went: every part of
# "async_stages" (docs/async.md) counts each operation of the run once; and which way each went:
# the ways of "async_ways" (docs/stats.md) add up to the run's operations.
# Usage: async-stages-test.sh HIPFILE_BENCH ARGS... (run with --json).
set -eu
out=$("$@") || { echo "hipfile-bench failed: $out"; exit 1; }
echo "$out"
ops=$(echo "$out" | sed -n 's/.*"ops": \([0-9]*\).*/\1/p')
[ -n "$ops" ] && [ "$ops" -gt 0 ] || { echo "no ops in the output"; exit 1; }
for part in submit reach handoff io release copy total; do
  n=$(echo "$out" | sed -n "s/.*\"$part\": {\"count\": \([0-9]*\).*/\1/p")
  [ "$n" = "$ops" ] || { echo "async_stages.$part.count is '$n', the run made $ops operations"; exit 1; }
done
ways=$(echo "$out" | sed 's/.*"async_ways": {//' | grep -o '"[a-z_]*": [0-9]*' |
  sed -n 's/^"\(run_at_once\|read_at_submission\|copied_at_submission\|staged\|worker\|host_function\)": //p' |
  awk '{s += $1} END {print s + 0}')
[ "$ways" = "$ops" ] || { echo "async_ways add up to '$ways', the run made $ops operations"; exit 1; }
echo "every part counted $ops operations, and every way together"
