#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU cost of waiting for copies: the engine's poll-then-sleep wait (HIPFILE_COPY_SPIN_US, default
# 20 us) against a spin for the whole copy (HIPFILE_COPY_SPIN_US=1000000, the behaviour of a
# plain cuStreamSynchronize), on 4 KiB random reads (sync and batch) and 16 MiB sequential reads
# of a warm file. JSON lines (with cpu_cores) to OUT_DIR/results.jsonl, a table on stdout.
#
#   bench/run_copy_wait_h200.sh [BUILD_DIR] [FILE] [OUT_DIR]
set -euo pipefail
BUILD=${1:-build}
FILE=${2:-/var/tmp/hipfile-bench-4g.dat}
OUT=${3:-bench/results/copy-wait-$(date +%Y%m%d-%H%M%S)}
SIZE=${SIZE:-4G}
REPS=${REPS:-2}
LIMIT=${LIMIT:-4}
SPINS=${SPINS:-"20 1000000"}  # HIPFILE_COPY_SPIN_US values to compare
SEQ=${SEQ:-1}                 # 0: skip the sequential case
BENCH=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
JSONL=$OUT/results.jsonl
: > "$JSONL"
"$BENCH" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null  # creates the file, warms the cache

run() {  # run CASE SPIN_US BENCH-ARGS...
  local name=$1 spin=$2
  shift 2
  for ((r = 1; r <= REPS; r++)); do
    local line
    line=$(HIPFILE_COPY_SPIN_US=$spin "$BENCH" -f "$FILE" -s "$SIZE" -T "$LIMIT" --json "$@") ||
      line='{"ok": false}'
    echo "${line/\{/\{\"case\": \"$name\", \"spin_us\": $spin, \"rep\": $r, }" >> "$JSONL"
  done
}
for spin in $SPINS; do
  run sync-rand4k "$spin" -x 0 -w 16 -i 4K -I 2
  run batch-rand4k-Q128 "$spin" -x 6 -Q 128 -w 16 -i 4K -I 2
  if ((SEQ)); then run seq-16M-8threads "$spin" -x 0 -w 8 -i 16M -I 0; fi
done
run pread-copy-rand4k 0 -x 2 -w 16 -i 4K -I 2

python3 - "$JSONL" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["case"], r["spin_us"]), []).append(r)
print("| case | spin us | IOPS | GiB/s | p50 us | p99 us | cores busy | cores per GiB/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for (case, spin), rs in rows.items():
    ok = [r for r in rs if r.get("ok")]
    m = lambda k: statistics.median(r[k] for r in ok) if ok else float("nan")
    print(f"| {case} | {spin} | {m('iops'):.0f} | {m('throughput_gib_s'):.2f} | "
          f"{m('p50_latency_us'):.1f} | {m('p99_latency_us'):.1f} | {m('cpu_cores'):.2f} | "
          f"{m('cores_per_gib_s'):.3f} |")
PY
