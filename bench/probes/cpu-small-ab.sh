#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Small stream-ordered operations on the CPU runtime, with two builds of the library in one run,
# alternating: hipfile-bench 16 threads of 4 KiB random reads and writes on a warm 256 MiB file,
# -x 5 with 8 and 1 in flight, and -x 0, each ROUNDS times (default 2), each library in turn.
# Prints every row and, per library, each row's GiB/s and the ways its operations went.
#   bench/probes/cpu-small-ab.sh BUILD BASE_LIBDIR NEW_LIBDIR OUT_DIR
# BUILD: a build folder (its hipfile-bench); BASE_LIBDIR / NEW_LIBDIR: folders holding a
# libhipfile.so.0 each, put first with LD_LIBRARY_PATH (the tool's RUNPATH yields to it). The
# file goes to DIR (default /var/tmp). SECONDS_EACH (default 2) per row. About 3 minutes.
set -uo pipefail
build=$(realpath "${1:?usage: cpu-small-ab.sh BUILD BASE_LIBDIR NEW_LIBDIR OUT_DIR}")
declare -A lib=([base]=$(realpath "${2:?}") [new]=$(realpath "${3:?}"))
out=${4:?}
dir=${DIR:-/var/tmp}
rounds=${ROUNDS:-2}
secs=${SECONDS_EACH:-2}
export HIPFILE_RUNTIME=cpu
mkdir -p "$out"
rows=$out/rows.txt
: > "$rows"
data=$dir/hipfile-cpu-small-ab.dat
rm -f "$data" "$data.hipfile-bench"
bench=$build/tools/hipfile-bench/hipfile-bench
"$bench" -f "$data" -s 256M -w 4 -i 1M -x 0 -I 0 > /dev/null 2>&1  # made, and warm
for _ in $(seq "$rounds"); do
  for which in base new; do
    export LD_LIBRARY_PATH=${lib[$which]}
    for io in 2 3; do
      for run in "5 8" "5 1" "0 0"; do
        read -r x q <<< "$run"
        args=(-f "$data" -s 256M -w 16 -i 4K -I "$io" -x "$x" -T "$secs" --json)
        [[ $x == 5 ]] && args+=(-Q "$q")
        line=$("$bench" "${args[@]}" 2>/dev/null | tail -1)
        [[ $line == \{* ]] || { echo "hipfile-bench ${args[*]} failed ($which)" >&2; exit 1; }
        echo "$which I$io-x$x-Q$q $line" >> "$rows"
      done
    done
  done
done
rm -f "$data" "$data.hipfile-bench"
unset LD_LIBRARY_PATH
python3 - "$rows" <<'PY' | tee "$out/summary.txt"
import json, sys
runs = {}
for line in open(sys.argv[1]):
    which, what, text = line.split(' ', 2)
    runs.setdefault((what, which), []).append(json.loads(text))
for (what, which), rs in sorted(runs.items()):
    rates = ' '.join(f"{r['throughput_gib_s']:.3f}" for r in rs)
    ways = {}
    for r in rs:  # hipfile-bench's "async_ways": each way's operations over the row
        for way in ('run_at_once', 'read_at_submission', 'worker', 'host_function'):
            ways[way] = ways.get(way, 0) + r.get('async_ways', {}).get(way, 0)
    used = ', '.join(f'{k} {v}' for k, v in ways.items() if v)
    cores = ' '.join(f"{r['cpu_cores']:.2f}" for r in rs)
    print(f"{what:12} {which:4} GiB/s {rates}  cores {cores}" + (f"  ways: {used}" if used else ''))
PY
