#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compares hipFile's sync path with the baselines of issue 4 and with NVIDIA cuFile and RAPIDS
# KvikIO on one file, warm and with the page cache dropped, reads and writes, and writes JSON
# lines, a table and a chart.
#
#   bench/run_h200.sh [--quick] [BUILD_DIR] [FILE] [OUT_DIR]
#
# BUILD_DIR holds the built tree (hipfile-bench under tools/hipfile-bench/ or bench/, and
# bench/cufile-bench where the CUDA toolkit was found at configure time); FILE is an 8 GiB data
# set on a local disk (not /dev/shm; created if missing); OUT_DIR gets results.jsonl (one line
# per run, tagged with case, cache and rep), results.md (medians and the issue's ratios),
# summary.json (the medians) and read-write.png (bench/plot_results.py, when $PYTHON has
# matplotlib). Dropping the page cache needs root (echo 3 > drop_caches); when it is not
# possible the "cold" rows say so.
#
# Environment: REPS runs per case (default 3, medians), LIMIT seconds per timed run (default 5;
# each run loops over the file for this long), SIZE (8G), DEV (GPU, 0), PYTHON (python3: runs
# the table, kvikio-bench.py and the chart), COMP_REPS (runs per cuFile / KvikIO case, default
# REPS), ONLY (a bash regex: run only the cases whose name matches, e.g. ONLY='cufile|kvikio').
# KVIKIO_WHEELS: a folder of KvikIO wheels (bench/competitors/fetch-kvikio-wheels.sh) to install
# into a temporary folder when $PYTHON cannot import kvikio (the H200 has no internet access).
# --quick is REPS=1 LIMIT=2 (where not set): a check that every case runs, about 2 minutes.
#
# Time on the H200 at REPS=3 LIMIT=5: about 6 minutes, with cuFile and KvikIO failing fast
# (cuFile cannot register a file on that disk, KvikIO is not installed there); a competitor that
# fails stops after its first run and its row says why. Where both run, add about 2.5 minutes
# (COMP_REPS=1: under 1 minute).
#
# Competitors (bench/competitors/, bench/README.md): cufile-bench (cuFileRead / cuFileWrite
# from GPU memory, the same threads and I/O sizes as ours; buffered for warm reads and writes,
# O_DIRECT for cold reads as gdsio opens files; when the default run fails, once more with
# CUFILE_FORCE_COMPAT_MODE=true) and kvikio-bench.py (CuFile.pread / pwrite of 1 GiB calls into a
# CuPy array, split into 16 MiB tasks on 8 threads). cuFile's logs end up in
# OUT_DIR/cufile-logs.txt, and a failure's error quotes the run's last logged error line.
set -euo pipefail

if [[ ${1:-} == --quick ]]; then
  REPS=${REPS:-1}
  LIMIT=${LIMIT:-2}
  shift
fi
BUILD=${1:-build}
FILE=${2:-/var/tmp/hipfile-bench.dat}
OUT=${3:-bench/results/$(date +%Y%m%d-%H%M%S)}
SIZE=${SIZE:-8G}
REPS=${REPS:-3}
DEV=${DEV:-0}
LIMIT=${LIMIT:-5}  # seconds per run (each run loops over the file for this long)
COMP_REPS=${COMP_REPS:-$REPS}
ONLY=${ONLY:-}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

BENCH=""
for c in "$BUILD/tools/hipfile-bench/hipfile-bench" "$BUILD/bench/hipfile-bench" \
         "$BUILD/hipfile-bench"; do
  if [[ -x $c ]]; then BENCH=$c; break; fi
done
if [[ -z $BENCH ]]; then
  echo "run_h200.sh: no hipfile-bench under $BUILD" >&2
  exit 1
fi
CUFILE_BENCH=$BUILD/bench/cufile-bench
KVIKIO_BENCH=$HERE/competitors/kvikio-bench.py
mkdir -p "$OUT" "$OUT/logs"
JSONL=$OUT/results.jsonl
: > "$JSONL"

can_drop=1
drop_caches() {
  sync
  if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then can_drop=0; fi
}

# Whether case NAME is to run (ONLY unset, or NAME matches it).
selected() { [[ -z $ONLY || $1 =~ $ONLY ]]; }

# Reads text on stdin and prints {"ok": false, "error": TEXT} as JSON, TEXT prefixed by $1.
json_error() {
  "$PYTHON" -c 'import json, sys
text = " ".join((sys.argv[1] + sys.stdin.read()).split())[:300]
print(json.dumps({"ok": False, "error": text or "failed with no output"}))' "$1"
}

# emit CASE CACHE REP LINE: appends LINE tagged with the case, cache state and rep.
emit() {
  echo "${4/\{/\{\"case\": \"$1\", \"cache\": \"$2\", \"rep\": $3, }" >> "$JSONL"
  echo "$1 $2 rep $3: $4" >&2
}

# run CASE CACHE BENCH-ARGS...: REPS runs, each a JSON line tagged with the case and cache state.
# CASE_ENV="VAR=value ..." before it sets the library's environment for that case.
run() {
  local name=$1 cache=$2
  shift 2
  selected "$name" || return 0
  for ((r = 1; r <= REPS; r++)); do
    if [[ $cache == cold ]]; then drop_caches; fi
    if [[ $cache == cold && $can_drop == 0 ]]; then
      echo "{\"case\": \"$name\", \"cache\": \"cold\", \"ok\": false, \"error\": \"cannot drop the page cache (not root)\"}" >> "$JSONL"
      return
    fi
    local line
    # shellcheck disable=SC2086  # CASE_ENV is a list of words
    if line=$(env ${CASE_ENV:-} "$BENCH" -f "$FILE" -d "$DEV" -s "$SIZE" --json "$@" 2>"$OUT/stderr.txt"); then :; else
      line=$(json_error "" < "$OUT/stderr.txt")
    fi
    emit "$name" "$cache" "$r" "$line"
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
WFILE=$FILE.write  # a fresh file for each write run; hipfile-bench's marker goes with it
run_write() {
  local name=$1
  shift
  selected "$name" || return 0
  for ((r = 1; r <= REPS; r++)); do
    rm -f "$WFILE" "$WFILE.hipfile-bench"
    local line
    # shellcheck disable=SC2086  # CASE_ENV is a list of words
    line=$(env ${CASE_ENV:-} "$BENCH" -f "$WFILE" -d "$DEV" -s "$SIZE" --json --fsync -I 1 "$@" 2>"$OUT/stderr.txt") ||
      line=$(json_error "" < "$OUT/stderr.txt")
    emit "$name" write+fsync "$r" "$line"
  done
  rm -f "$WFILE" "$WFILE.hipfile-bench"
}
run_write ours-write-16M-8threads  -x 0 -w 8 -i 16M
CASE_ENV="HIPFILE_DIRECT_WRITES=1" run_write ours-write-16M-8threads-direct -x 0 -w 8 -i 16M
run_write pread-copy-write-8threads -x 2 -w 8 -i 16M
run_write pwrite-host-8threads     -x 10 -w 8 -i 16M
run_write odirect-write-host-8threads -x 1 -w 8 -i 16M

# run_tool CASE CACHE COMMAND...: COMP_REPS runs of a competitor program that prints its own JSON
# line ("ok": false and "error" when it cannot run), tagged like run()'s. CACHE is warm, cold
# (page cache dropped first) or write+fsync (WFILE removed before and after). Stops after the
# first failed run: a competitor that cannot start fails the same way every time. Returns 1
# when a run failed, so a fallback case can follow. cuFile logs to OUT/logs/CASE-CACHE-REP.log.
run_tool() {
  local name=$1 cache=$2
  shift 2
  selected "$name" || return 0
  for ((r = 1; r <= COMP_REPS; r++)); do
    if [[ $cache == cold ]]; then drop_caches; fi
    if [[ $cache == cold && $can_drop == 0 ]]; then
      emit "$name" cold "$r" '{"ok": false, "error": "cannot drop the page cache (not root)"}'
      return 1
    fi
    if [[ $cache == write+fsync ]]; then rm -f "$WFILE" "$WFILE.hipfile-bench"; fi
    local line status=0 log="$OUT/logs/$name-$cache-$r.log"
    rm -f "$log"
    # shellcheck disable=SC2086  # CASE_ENV is a list of words
    line=$(env CUFILE_LOGFILE_PATH="$log" ${CASE_ENV:-} "$@" 2>"$OUT/stderr.txt") || status=$?
    line=${line##*$'\n'}  # the program's last line is its JSON line
    if [[ $line != \{* ]]; then
      line=$(json_error "exit status $status: " < "$OUT/stderr.txt")
      status=1
    fi
    emit "$name" "$cache" "$r" "$line"
    if [[ $cache == write+fsync ]]; then rm -f "$WFILE" "$WFILE.hipfile-bench"; fi
    if ((status != 0)); then return 1; fi
  done
}

# NVIDIA cuFile and RAPIDS KvikIO, same file, threads and I/O sizes as ours-16M-8threads.
if [[ -x $CUFILE_BENCH ]]; then
  CUFILE=("$CUFILE_BENCH" -d "$DEV" -s "$SIZE" -w 8 -i 16M -b)
else
  # Prints the reason as the row's error: configured without the CUDA toolkit's headers.
  CUFILE=(sh -c "echo 'no $CUFILE_BENCH: $BUILD was configured without the CUDA toolkit headers' >&2; exit 1" --)
fi
# KvikIO from wheels (bench/competitors/fetch-kvikio-wheels.sh) where $PYTHON has none: installed
# into a temporary folder, found through PYTHONPATH, the wheels' libcufile through
# LD_LIBRARY_PATH (KvikIO looks for it in site-packages, not in PYTHONPATH folders).
KVIKIO_ENV=()
if [[ -n ${KVIKIO_WHEELS:-} ]] && ! "$PYTHON" -c 'import kvikio' 2> /dev/null; then
  KVIKIO_SITE=$(mktemp -d /tmp/kvikio-site.XXXXXX)
  trap 'rm -rf "$KVIKIO_SITE"' EXIT
  if "$PYTHON" -m pip install -q --no-index --no-deps --target "$KVIKIO_SITE" \
       "$KVIKIO_WHEELS"/*.whl >&2; then
    KVIKIO_ENV=(env "PYTHONPATH=$KVIKIO_SITE${PYTHONPATH:+:$PYTHONPATH}"
                "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$KVIKIO_SITE/nvidia/cu13/lib")
  else
    echo "run_h200.sh: could not install $KVIKIO_WHEELS; the KvikIO rows say why" >&2
  fi
fi
KVIKIO=("${KVIKIO_ENV[@]}" "$PYTHON" "$KVIKIO_BENCH" -d "$DEV" -s "$SIZE" -w 8 -i 16M)
# Warm: buffered descriptors, so cuFile's compat mode and KvikIO's POSIX path see the page cache.
if ! run_tool cufile-16M-8threads warm "${CUFILE[@]}" -f "$FILE" --buffered "${SEQ[@]}"; then
  CASE_ENV="CUFILE_FORCE_COMPAT_MODE=true" run_tool cufile-16M-8threads-compat warm \
    "${CUFILE[@]}" -f "$FILE" --buffered "${SEQ[@]}" || true
fi
run_tool kvikio-16M-8threads warm "${KVIKIO[@]}" -f "$FILE" "${SEQ[@]}" || true
# Cold: cuFile on O_DIRECT (as gdsio, and as its GDS path needs); KvikIO one pass over the file,
# since its buffered reads would find the start of the file cached again after wrapping around.
run_tool cufile-odirect-16M-8threads cold "${CUFILE[@]}" -f "$FILE" "${SEQ[@]}" || true
run_tool kvikio-16M-8threads-1pass cold "${KVIKIO[@]}" -f "$FILE" || true
# Writes from GPU memory, buffered, fsync counted: one pass, as run_write's.
run_tool cufile-write-16M-8threads write+fsync "${CUFILE[@]}" -f "$WFILE" --buffered -I 1 --fsync ||
  true
run_tool kvikio-write-16M-8threads write+fsync "${KVIKIO[@]}" -f "$WFILE" -I 1 --fsync || true
# cuFile's logs in one file (a device run returns only a few files), each under its run's name.
shopt -s nullglob
logs=("$OUT"/logs/*.log)
if ((${#logs[@]} > 0)); then
  for f in "${logs[@]}"; do echo "== ${f##*/}"; cat "$f"; done > "$OUT/cufile-logs.txt"
fi
rm -rf "$OUT/logs" "$OUT/stderr.txt"

"$PYTHON" - "$JSONL" "$OUT/results.md" "$OUT/summary.json" <<'EOF'
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
def first_error(rs):
    e = next((r.get("error") for r in rs if not r.get("ok")), "") or ""
    return e.replace("|", "/")  # keeps the markdown table's columns
out = ["| case | cache | GiB/s (median) | p50 us | p99 us | IOPS | cores busy | cores per GiB/s | runs ok |",
       "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
summary, errors, medians = {}, {}, []
for (case, cache), rs in rows.items():
    g = med(rs, "throughput_gib_s")
    summary[f"{case}/{cache}"] = g
    err = first_error(rs)
    if g is None:
        errors[f"{case}/{cache}"] = err
    fmt = lambda v, f: (f % v) if v is not None else "-"
    nok = sum(1 for r in rs if r.get("ok"))
    medians.append({"case": case, "cache": cache, "runs": len(rs), "runs_ok": nok,
                    **{k: med(rs, k) for k in ("throughput_gib_s", "p50_latency_us", "p99_latency_us",
                                               "iops", "cpu_cores", "cores_per_gib_s")},
                    **({"error": err} if err else {})})
    out.append(f"| {case} | {cache} | {fmt(g, '%.2f')} | {fmt(med(rs, 'p50_latency_us'), '%.1f')} | "
               f"{fmt(med(rs, 'p99_latency_us'), '%.1f')} | {fmt(med(rs, 'iops'), '%.0f')} | "
               f"{fmt(med(rs, 'cpu_cores'), '%.2f')} | {fmt(med(rs, 'cores_per_gib_s'), '%.3f')} | "
               f"{nok}/{len(rs)} {err} |")
def ratio(a, *bs):
    """a / the first of bs that was measured; n/a with the reason when none was."""
    x = summary.get(a)
    for b in bs:
        y = summary.get(b)
        if x and y:
            return f"{x / y:.2f}"
    why = [f"{k.split('/')[0]}: {errors[k][:120]}" for k in (a, *bs) if errors.get(k)]
    return "n/a" + (f" ({'; '.join(why)})" if why else "")
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
        f"| write+fsync, ours / pwrite host (>= 0.9) | {ratio('ours-write-16M-8threads/write+fsync', 'pwrite-host-8threads/write+fsync')} |",
        f"| write+fsync, ours with O_DIRECT writes / pwrite host | {ratio('ours-write-16M-8threads-direct/write+fsync', 'pwrite-host-8threads/write+fsync')} |",
        f"| write+fsync, ours with O_DIRECT writes / O_DIRECT pwrite host | {ratio('ours-write-16M-8threads-direct/write+fsync', 'odirect-write-host-8threads/write+fsync')} |",
        f"| warm read, ours / NVIDIA cuFile | {ratio('ours-16M-8threads/warm', 'cufile-16M-8threads/warm', 'cufile-16M-8threads-compat/warm')} |",
        f"| warm read, ours / RAPIDS KvikIO | {ratio('ours-16M-8threads/warm', 'kvikio-16M-8threads/warm')} |",
        f"| cold read, ours / cuFile (O_DIRECT) | {ratio('ours-16M-8threads/cold', 'cufile-odirect-16M-8threads/cold')} |",
        f"| cold read, ours / KvikIO (one pass) | {ratio('ours-16M-8threads/cold', 'kvikio-16M-8threads-1pass/cold')} |",
        f"| write+fsync, ours / cuFile | {ratio('ours-write-16M-8threads/write+fsync', 'cufile-write-16M-8threads/write+fsync')} |",
        f"| write+fsync, ours / KvikIO | {ratio('ours-write-16M-8threads/write+fsync', 'kvikio-write-16M-8threads/write+fsync')} |",
        f"| write+fsync, ours with O_DIRECT writes / KvikIO | {ratio('ours-write-16M-8threads-direct/write+fsync', 'kvikio-write-16M-8threads/write+fsync')} |"]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
json.dump(medians, open(sys.argv[3], "w"), indent=1)
print("\n".join(out))
EOF
if "$PYTHON" -c 'import matplotlib' 2> /dev/null; then
  "$PYTHON" "$HERE/plot_results.py" "$JSONL" -o "$OUT/read-write.png" ||
    echo "run_h200.sh: the chart failed (the table and JSON are written)" >&2
else
  echo "run_h200.sh: $PYTHON has no matplotlib; no chart (pip install matplotlib, then" \
       "$PYTHON bench/plot_results.py $JSONL -o $OUT/read-write.png)" >&2
fi
echo "results: $JSONL $OUT/results.md $OUT/summary.json" >&2
