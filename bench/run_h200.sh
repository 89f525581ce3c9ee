#!/usr/bin/env bash
# Compares hipFile's sync path with the baselines of issue 4 on one file, warm and with the page
# cache dropped, and writes JSON lines plus a table.
#
#   bench/run_h200.sh [BUILD_DIR] [FILE] [OUT_DIR]
#
# BUILD_DIR holds the built tree (hipfile-bench under tools/hipfile-bench/ or bench/); FILE is
# an 8 GiB data set on a local disk (not /dev/shm; created if missing); OUT_DIR gets
# results.jsonl and results.md. Dropping the page cache needs root (echo 3 > drop_caches); when
# it is not possible the "cold" rows say so. Medians of REPS runs (default 3). Total run time on
# the H200 is a few minutes; every run is also cut at -T seconds.
set -euo pipefail

BUILD=${1:-build}
FILE=${2:-/var/tmp/hipfile-bench.dat}
OUT=${3:-bench/results/$(date +%Y%m%d-%H%M%S)}
SIZE=${SIZE:-8G}
REPS=${REPS:-3}
DEV=${DEV:-0}
LIMIT=${LIMIT:-5}  # seconds per run (each run loops over the file for this long)

BENCH=""
for c in "$BUILD/tools/hipfile-bench/hipfile-bench" "$BUILD/bench/hipfile-bench" \
         "$BUILD/hipfile-bench"; do
  if [[ -x $c ]]; then BENCH=$c; break; fi
done
if [[ -z $BENCH ]]; then
  echo "run_h200.sh: no hipfile-bench under $BUILD" >&2
  exit 1
fi
mkdir -p "$OUT"
JSONL=$OUT/results.jsonl
: > "$JSONL"

can_drop=1
drop_caches() {
  sync
  if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then can_drop=0; fi
}

# run CASE CACHE BENCH-ARGS...: REPS runs, each a JSON line tagged with the case and cache state.
# CASE_ENV="VAR=value ..." before it sets the library's environment for that case.
run() {
  local name=$1 cache=$2
  shift 2
  for ((r = 1; r <= REPS; r++)); do
    if [[ $cache == cold ]]; then drop_caches; fi
    if [[ $cache == cold && $can_drop == 0 ]]; then
      echo "{\"case\": \"$name\", \"cache\": \"cold\", \"ok\": false, \"error\": \"cannot drop the page cache (not root)\"}" >> "$JSONL"
      return
    fi
    local line
    # shellcheck disable=SC2086  # CASE_ENV is a list of words
    if line=$(env ${CASE_ENV:-} "$BENCH" -f "$FILE" -d "$DEV" -s "$SIZE" --json "$@" 2>"$OUT/stderr.txt"); then :; else
      line="{\"ok\": false, \"error\": \"$(tr '\n"' ' ' < "$OUT/stderr.txt" | cut -c1-200)\"}"
    fi
    echo "${line/\{/\{\"case\": \"$name\", \"cache\": \"$cache\", \"rep\": $r, }" >> "$JSONL"
    echo "$name $cache rep $r: $line" >&2
  done
}

echo "== preparing $FILE ($SIZE)" >&2
"$BENCH" -f "$FILE" -s "$SIZE" -i 64M -x 10 -w 4 > /dev/null  # creates it, and warms the cache

SEQ=(-I 0 -T "$LIMIT")
# Warm page cache, 8 GiB sequential read.
run link-h2d              warm -x 9 -w 8 -i 64M "${SEQ[@]}"
run ours-1call-1thread    warm -x 0 -w 1 -i 1G  "${SEQ[@]}"
run ours-16M-8threads     warm -x 0 -w 8 -i 16M "${SEQ[@]}"
CASE_ENV="HIPFILE_PAGE_CACHE_PIN_AFTER=1" run ours-16M-8threads-pin1 warm -x 0 -w 8 -i 16M "${SEQ[@]}"
CASE_ENV="HIPFILE_PAGE_CACHE=off" run ours-16M-8threads-nopin warm -x 0 -w 8 -i 16M "${SEQ[@]}"
# One pass over the file in a fresh process (what a program reading a file once sees).
run ours-16M-8threads-1pass warm -x 0 -w 8 -i 16M -I 0
CASE_ENV="HIPFILE_PAGE_CACHE_PIN_AFTER=1" run ours-16M-8threads-1pass-pin1 warm -x 0 -w 8 -i 16M -I 0
run pread-copy-16threads-1pass warm -x 2 -w 16 -i 16M -I 0
run pread-copy-16threads  warm -x 2 -w 16 -i 16M "${SEQ[@]}"
run mmap-copy-16threads   warm -x 4 -w 16 -i 16M "${SEQ[@]}"
run pread-host-8threads   warm -x 10 -w 8 -i 16M "${SEQ[@]}"
# Page cache dropped before each run.
run odirect-host-8threads cold -x 1 -w 8 -i 16M "${SEQ[@]}"
run odirect-host-16x64M   cold -x 1 -w 16 -i 64M "${SEQ[@]}"
run ours-1call-1thread    cold -x 0 -w 1 -i 1G  "${SEQ[@]}"
run ours-16M-8threads     cold -x 0 -w 8 -i 16M "${SEQ[@]}"
run pread-copy-16threads  cold -x 2 -w 16 -i 16M "${SEQ[@]}"
# 4 KiB random reads, warm, 16 threads.
run ours-rand4k           warm -x 0 -w 16 -i 4K -I 2 -T 5
run pread-copy-rand4k     warm -x 2 -w 16 -i 4K -I 2 -T 5
# Writes from the GPU, buffered, fsync counted.
WFILE=$FILE.write
run_write() {
  local name=$1
  shift
  for ((r = 1; r <= REPS; r++)); do
    rm -f "$WFILE"
    local line
    line=$("$BENCH" -f "$WFILE" -d "$DEV" -s "$SIZE" --json --fsync -I 1 "$@" 2>"$OUT/stderr.txt") ||
      line="{\"ok\": false, \"error\": \"$(tr '\n"' ' ' < "$OUT/stderr.txt" | cut -c1-200)\"}"
    echo "${line/\{/\{\"case\": \"$name\", \"cache\": \"write+fsync\", \"rep\": $r, }" >> "$JSONL"
    echo "$name write rep $r: $line" >&2
  done
  rm -f "$WFILE"
}
run_write ours-write-16M-8threads  -x 0 -w 8 -i 16M
run_write pread-copy-write-8threads -x 2 -w 8 -i 16M
run_write pwrite-host-8threads     -x 10 -w 8 -i 16M

python3 - "$JSONL" "$OUT/results.md" <<'EOF'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    rows.setdefault((r["case"], r["cache"]), []).append(r)
def med(rs, k):
    v = [r[k] for r in rs if r.get("ok") and k in r]
    return statistics.median(v) if v else None
out = ["| case | cache | GiB/s (median) | p50 us | p99 us | IOPS | cores busy | cores per GiB/s | runs ok |",
       "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
summary = {}
for (case, cache), rs in rows.items():
    g = med(rs, "throughput_gib_s")
    summary[f"{case}/{cache}"] = g
    fmt = lambda v, f: (f % v) if v is not None else "-"
    err = next((r.get("error") for r in rs if not r.get("ok")), "")
    out.append(f"| {case} | {cache} | {fmt(g, '%.2f')} | {fmt(med(rs, 'p50_latency_us'), '%.1f')} | "
               f"{fmt(med(rs, 'p99_latency_us'), '%.1f')} | {fmt(med(rs, 'iops'), '%.0f')} | "
               f"{fmt(med(rs, 'cpu_cores'), '%.2f')} | {fmt(med(rs, 'cores_per_gib_s'), '%.3f')} | "
               f"{sum(1 for r in rs if r.get('ok'))}/{len(rs)} {err or ''} |")
def ratio(a, b):
    x, y = summary.get(a), summary.get(b)
    return f"{x / y:.2f}" if x and y else "n/a"
out += ["", "| target | ratio |", "| --- | --- |",
        f"| warm read, ours (1 call) / pinned H2D link (>= 0.85) | {ratio('ours-1call-1thread/warm', 'link-h2d/warm')} |",
        f"| warm read, ours (8 threads) / pinned H2D link (>= 0.85) | {ratio('ours-16M-8threads/warm', 'link-h2d/warm')} |",
        f"| warm read, ours pin-after-1 / link | {ratio('ours-16M-8threads-pin1/warm', 'link-h2d/warm')} |",
        f"| warm read, ours without pinning / link | {ratio('ours-16M-8threads-nopin/warm', 'link-h2d/warm')} |",
        f"| warm read, one pass, ours / pread+copy one pass | {ratio('ours-16M-8threads-1pass/warm', 'pread-copy-16threads-1pass/warm')} |",
        f"| warm read, one pass, ours pin-after-1 / pread+copy one pass | {ratio('ours-16M-8threads-1pass-pin1/warm', 'pread-copy-16threads-1pass/warm')} |",
        f"| warm read, ours / pread+copy 16 threads | {ratio('ours-16M-8threads/warm', 'pread-copy-16threads/warm')} |",
        f"| warm read, ours / mmap+copy 16 threads | {ratio('ours-16M-8threads/warm', 'mmap-copy-16threads/warm')} |",
        f"| cold read, ours / best O_DIRECT (>= 0.95) | {ratio('ours-16M-8threads/cold', 'odirect-host-16x64M/cold')} / {ratio('ours-16M-8threads/cold', 'odirect-host-8threads/cold')} |",
        f"| write+fsync, ours / pwrite host (>= 0.9) | {ratio('ours-write-16M-8threads/write+fsync', 'pwrite-host-8threads/write+fsync')} |"]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
echo "results: $JSONL $OUT/results.md" >&2
