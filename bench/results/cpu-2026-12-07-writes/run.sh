#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Staged stream-ordered writes of 12 and 16 MiB on HIPFILE_RUNTIME=cpu-staged (a GPU's data
# paths) against the synchronous path, on this machine's disk: -x 0, -x 5 -Q 2 at the defaults
# (since 2026-12-07 such writes take large chunks), and -x 5 -Q 2 with
# HIPFILE_ASYNC_LARGE_CHUNKS_MB=0 (the small chunks, as before), 4 threads, 4 s steady-state
# rows over a 1 GiB file, ROUNDS rounds (default 6) in turn.
#   run.sh BUILD OUT_FILE
set -uo pipefail
build=$1 out=$2
H=$build/tools/hipfile-bench/hipfile-bench
F=${DIR:-/var/tmp}/hipfile-write-chunks.dat
export HIPFILE_RUNTIME=cpu-staged
: > "$out"
for i in $(seq "${ROUNDS:-6}"); do
  for io in 16M 12M; do
    line="round $i $io:"
    for v in sync large small; do
      case $v in
      sync) args=(-x 0) envs=() ;;
      large) args=(-x 5 -Q 2) envs=() ;;
      small) args=(-x 5 -Q 2) envs=(HIPFILE_ASYNC_LARGE_CHUNKS_MB=0) ;;
      esac
      t=$(env "${envs[@]}" "$H" -f "$F" -s 1G -i "$io" -w 4 -I 1 -T 4 "${args[@]}" --json 2>/dev/null |
        sed -n 's/.*"throughput_gib_s": \([0-9.]*\).*"large_chunks": \([0-9]*\).*/\1 (large \2)/p;
                s/.*"throughput_gib_s": \([0-9.]*\).*/\1/p' | head -1)
      line="$line $v $t"
    done
    echo "$line" | tee -a "$out"
  done
done
