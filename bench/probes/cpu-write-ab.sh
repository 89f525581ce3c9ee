#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stream-ordered against synchronous writes on the CPU runtime, with two builds of the library in
# one run, alternating: the tutorial's program (async-bench, 16 x 64 MiB and 4 x 256 MiB: 1 GiB
# round trips) and hipfile-bench's 4 threads x 256 MiB writes (-x 0 against -x 5 -Q 1), each
# ROUNDS times, each library in turn. Prints every run and the medians of the ratios.
#   bench/probes/cpu-write-ab.sh BUILD BASE_LIBDIR NEW_LIBDIR OUT_DIR
# BUILD: a build folder (its async-bench and hipfile-bench); BASE_LIBDIR / NEW_LIBDIR: folders
# holding a libhipfile.so.0 each, put first with LD_LIBRARY_PATH (the tools' RUNPATH yields to
# it). Files go to DIR (default /var/tmp). RUNTIME (default cpu) picks HIPFILE_RUNTIME. About 6
# minutes with ROUNDS=4 on a 2-core machine.
set -uo pipefail
build=$(realpath "${1:?usage: cpu-write-ab.sh BUILD BASE_LIBDIR NEW_LIBDIR OUT_DIR}")
declare -A lib=([base]=$(realpath "${2:?}") [new]=$(realpath "${3:?}"))
out=${4:?}
dir=${DIR:-/var/tmp}
rounds=${ROUNDS:-4}
export HIPFILE_RUNTIME=${RUNTIME:-cpu}
mkdir -p "$out"
rows=$out/rows.txt
: > "$rows"
data=$dir/hipfile-cpu-write-ab.dat
bench_data=$dir/hipfile-cpu-write-ab-bench.dat
rm -f "$data" "$data.out" "$bench_data" "$bench_data.hipfile-bench"
for _ in $(seq "$rounds"); do
  for which in base new; do
    export LD_LIBRARY_PATH=${lib[$which]}
    for shape in "16 64" "4 256"; do
      # shellcheck disable=SC2086  # the shape is two arguments
      json=$("$build/bench/async-bench" "$data" $shape 200 2>/dev/null | sed -n 's/^json: //p')
      [[ -n $json ]] || { echo "async-bench $shape failed with the $which library" >&2; exit 1; }
      echo "$which async-bench-${shape/ /x} $json" >> "$rows"
    done
    for x in 0 5; do
      q=()
      [[ $x == 5 ]] && q=(-Q 1)
      line=$("$build/tools/hipfile-bench/hipfile-bench" -f "$bench_data" -s 1G -w 4 -i 256M \
        -x "$x" -I 1 "${q[@]}" --json 2>/dev/null | tail -1)
      [[ $line == \{* ]] || { echo "hipfile-bench -x $x failed with the $which library" >&2; exit 1; }
      echo "$which hipfile-bench-x$x $line" >> "$rows"
    done
  done
done
rm -f "$data" "$data.out" "$bench_data" "$bench_data.hipfile-bench"
unset LD_LIBRARY_PATH
python3 - "$rows" <<'EOF' | tee "$out/summary.txt"
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    which, what, text = line.split(' ', 2)
    runs.setdefault((which, what), []).append(json.loads(text))
for which in ('base', 'new'):
    for shape in ('16x64', '4x256'):
        rs = runs[(which, f'async-bench-{shape}')]
        w = [r['async_write_gib_s'] / r['sync_write_gib_s'] for r in rs]
        rd = [r['async_read_gib_s'] / r['sync_read_gib_s'] for r in rs]
        print(f"{which} async-bench {shape}: write ratio "
              f"{' '.join(f'{x:.2f}' for x in w)} (median {statistics.median(w):.2f}); "
              f"read ratio median {statistics.median(rd):.2f}; "
              f"sync write median {statistics.median(r['sync_write_gib_s'] for r in rs):.2f} GiB/s")
    s = [r['throughput_gib_s'] for r in runs[(which, 'hipfile-bench-x0')]]
    a = [r['throughput_gib_s'] for r in runs[(which, 'hipfile-bench-x5')]]
    print(f"{which} hipfile-bench 4 x 256 MiB writes: sync {' '.join(f'{x:.2f}' for x in s)}, "
          f"async {' '.join(f'{x:.2f}' for x in a)} GiB/s; medians' ratio "
          f"{statistics.median(a) / statistics.median(s):.2f}")
EOF
