#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench -x 5 --json on HIPFILE_RUNTIME=cpu-staged, busy streams without copies at
# submission (every read staged): the staged chains are queued side by side, each with a block
# reserved, not one at a time ("chains_alone" of "async_ways", docs/stats.md; docs/async.md,
# "Queueing the chains"). Until 2026-12-05 the staging pool stayed a block short of a
# reservation while reads stayed in flight, and all of a run's chains went alone; a few may go
# alone while the first submissions pin blocks at once, so the check is fewer than a tenth.
# Usage: async-chains-test.sh HIPFILE_BENCH ARGS... (run with --json).
set -eu
out=$("$@") || { echo "hipfile-bench failed: $out"; exit 1; }
echo "$out"
ways=$(echo "$out" | sed 's/.*"async_ways": {//')
staged=$(echo "$ways" | sed -n 's/.*"staged": \([0-9]*\).*/\1/p')
alone=$(echo "$ways" | sed -n 's/.*"chains_alone": \([0-9]*\).*/\1/p')
[ -n "$staged" ] && [ "$staged" -gt 0 ] || { echo "no staged operations: '$staged'"; exit 1; }
[ -n "$alone" ] && [ $((10 * alone)) -lt "$staged" ] ||
  { echo "$alone of $staged staged chains were queued alone"; exit 1; }
echo "$alone of $staged staged chains were queued alone"
