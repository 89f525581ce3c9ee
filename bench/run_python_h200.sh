#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package against the C API and against RAPIDS KvikIO on the same reads, in one run
# (issue 19 item 6): one pass over a data set into GPU memory, warm (in the page cache, never read
# through the library: every row is a fresh process) and cold (page cache dropped before each
# row), REPS times in rotating order; medians and ratios in OUT/results.md.
#
#   bench/run_python_h200.sh BUILD_DIR FILE OUT_DIR
#
# BUILD_DIR holds tools/hipfile-bench/hipfile-bench; the package must be importable by $PYTHON
# (PYTHONPATH) with CuPy and torch; KVIKIO_SITE (optional) a folder where KvikIO's wheels were
# installed (bench/competitors/fetch-kvikio-wheels.sh). Environment: SIZE (4G), REPS (3).
#
# Rows: c-16M-8thr   hipfile-bench -x 0 -i 16M -w 8 (the C API: 16 MiB hipFileRead calls, 8 threads)
#       c-1G-1thr    hipfile-bench -x 0 -i 1G -w 1 (one 1 GiB hipFileRead at a time)
#       py-pread-{cupy,torch}  FileHandle.pread of 16 MiB pieces of 1 GiB calls on 8 threads
#       py-read-{cupy,torch}   FileHandle.read of 1 GiB at a time
#       kvikio       CuFile.pread of 1 GiB calls, 16 MiB tasks on 8 threads (KvikIO's POSIX
#                    path where cuFile cannot open the file)
#       link         pinned host-to-GPU copies of 16 MiB on 8 threads (-x 9), warm rows only
set -uo pipefail
BUILD=$1
FILE=$2
OUT=$3
SIZE=${SIZE:-4G}
REPS=${REPS:-3}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=$BUILD/tools/hipfile-bench/hipfile-bench
JSONL=$OUT/python-bench.jsonl
mkdir -p "$OUT"
: > "$JSONL"
[[ -f $FILE ]] || "$BENCH" -f "$FILE" -s "$SIZE" -i 16M -w 8 -x 0 -I 1 > /dev/null

declare -A ROW=(
  [c-16M-8thr]="$BENCH -f $FILE -s $SIZE -i 16M -w 8 -x 0 --json"
  [c-1G-1thr]="$BENCH -f $FILE -s $SIZE -i 1G -w 1 -x 0 --json"
  [py-pread-cupy]="$PYTHON $HERE/python/hipfile-py-bench.py -f $FILE -s $SIZE --api pread -w 8 -i 16M --framework cupy"
  [py-pread-torch]="$PYTHON $HERE/python/hipfile-py-bench.py -f $FILE -s $SIZE --api pread -w 8 -i 16M --framework torch"
  [py-read-cupy]="$PYTHON $HERE/python/hipfile-py-bench.py -f $FILE -s $SIZE --api read --framework cupy"
  [py-read-torch]="$PYTHON $HERE/python/hipfile-py-bench.py -f $FILE -s $SIZE --api read --framework torch"
  [kvikio]="$PYTHON $HERE/competitors/kvikio-bench.py -f $FILE -s $SIZE -w 8 -i 16M"
  [link]="$BENCH -f $FILE -s $SIZE -i 16M -w 8 -x 9 --json"
)
ORDER=(c-16M-8thr py-pread-cupy py-pread-torch kvikio c-1G-1thr py-read-cupy py-read-torch link)

run_row() {  # run_row NAME CACHE REP
  local name=$1 cache=$2 rep=$3 line env=()
  if [[ $name == kvikio && -n ${KVIKIO_SITE:-} ]]; then
    env=(env "PYTHONPATH=$KVIKIO_SITE:${PYTHONPATH:-}"
         "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$KVIKIO_SITE/nvidia/cu13/lib")
  fi
  sync
  if [[ $cache == cold ]]; then
    echo 3 > /proc/sys/vm/drop_caches
  else
    cat "$FILE" > /dev/null  # in the page cache; no process has read it through the library
  fi
  # shellcheck disable=SC2086
  line=$("${env[@]}" ${ROW[$name]} 2> "$OUT/last-stderr.txt" | tail -1)
  [[ $line == \{* ]] || line="{\"ok\": false, \"error\": \"$(tail -c 300 "$OUT/last-stderr.txt" | tr -d '"\n')\"}"
  echo "{\"case\": \"$name\", \"cache\": \"$cache\", \"rep\": $rep, \"r\": $line}" >> "$JSONL"
}

for rep in $(seq 1 "$REPS"); do
  n=${#ORDER[@]}
  for ((k = 0; k < n; k++)); do
    name=${ORDER[$(((k + rep - 1) % n))]}
    run_row "$name" warm "$rep"
    [[ $name == link ]] || run_row "$name" cold "$rep"
  done
done

"$PYTHON" - "$JSONL" > "$OUT/results.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = {}
for cache in ("warm", "cold"):
    for name in sorted({r["case"] for r in rows}):
        got = [r["r"] for r in rows if r["case"] == name and r["cache"] == cache]
        ok = [g["throughput_gib_s"] for g in got if g.get("ok") or g.get("throughput_gib_s")]
        if got:
            med[(name, cache)] = (statistics.median(ok) if ok else None, got)
print("| case | cache | GiB/s (median) | runs | CPU cores | note |")
print("| --- | --- | --- | --- | --- | --- |")
for (name, cache), (m, got) in sorted(med.items(), key=lambda x: (x[0][1], x[0][0])):
    err = next((g.get("error") for g in got if g.get("error")), "")
    cores = statistics.median([g.get("cpu_cores", 0) for g in got])
    vals = ", ".join(f"{g.get('throughput_gib_s', 0):.2f}" for g in got)
    print(f"| {name} | {cache} | {m if m is None else f'{m:.2f}'} | {vals} | {cores} | {err} |")
print()
def ratio(a, b, cache):
    x, y = med.get((a, cache), (None,))[0], med.get((b, cache), (None,))[0]
    return f"{x / y:.3f}" if x and y else "n/a"
for cache in ("warm", "cold"):
    print(f"- {cache}: py-pread-cupy / c-16M-8thr = {ratio('py-pread-cupy', 'c-16M-8thr', cache)}, "
          f"py-pread-torch / c-16M-8thr = {ratio('py-pread-torch', 'c-16M-8thr', cache)}, "
          f"py-read-cupy / c-1G-1thr = {ratio('py-read-cupy', 'c-1G-1thr', cache)}, "
          f"py-read-torch / c-1G-1thr = {ratio('py-read-torch', 'c-1G-1thr', cache)}, "
          f"py-pread-cupy / kvikio = {ratio('py-pread-cupy', 'kvikio', cache)}")
print(f"- link (pinned host-to-GPU, warm): {med.get(('link', 'warm'), (None,))[0]}")
PY
cat "$OUT/results.md"
