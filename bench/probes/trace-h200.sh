#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Timelines of the steady state of 256 MiB busy-stream reads (issue 21: where does a part's stop
# go?), on the GPU machine:
#   bench/probes/trace-h200.sh BUILD_DIR OUT_DIR
# Builds cupti-trace.so against the machine's own CUPTI (the pip package nvidia-cuda-cupti, or
# the toolkit's extras/CUPTI), then runs each row untraced and traced (CUPTI_TRACE_OUT, LD_PRELOAD)
# and prints trace-gaps.py's summary of the traced run's steady part:
# ROWS (default: p8 p8c p32 whole sync probe-tokens1 probe-plain) picks them:
#   p8     16 streams x 1 x 256 MiB, unflagged, copied ahead in 8 MiB parts (the default budget)
#   p8-2m  the same in 2 MiB chunks (HIPFILE_ASYNC_LARGE_CHUNKS_MB=0): four tokens a part
#   p8c    the same through two 8 MiB slots on a companion stream (256 MiB budget)
#   p16    the same in 16 MiB parts (256 MiB budget)
#   p32    the same in 32 MiB parts (512 MiB budget)
#   whole  copied ahead whole (8 GiB budget, parts off)
#   sync   -x 0 with 16 threads
#   probe-tokens1 / probe-plain: stream-stop-probe, 16 streams x 8 MiB, the library's shape (a
#          copy into a region, a stop, one launch copying it on) and copies alone, no library;
#   probe-early: the library's shape with each stop's `go` stored before the stream gets there
#   grid   the run kernel's grid (HIPFILE_ASYNC_RUN_BLOCKS 32 to 4096): reads copied by it from the
#          windows (budget 0) and in 8 MiB parts, 256 MiB and 16 MiB reads, two rounds, untraced;
#          then the windows at 1056 blocks traced
#   cond   cond-copy-probe (COND=BINARY) 16 x 256 MiB, modes cond and cond-late, traced
#   kern   the run kernel against a kernel alone: reads copied by the library's kernel from the
#          windows (budget 0) at grids 32 and 1056, and copy-kernel-probe's `w4` (the library's
#          reading pattern) and `c4` from the same kind of memory (registered page-cache file
#          mappings), 16 x 256 MiB, all traced: a launch's duration each way
# Output: OUT_DIR/trace.txt (rates and summaries) and OUT_DIR/traces.tgz (the CSVs).
set -uo pipefail
BUILD=${1:?usage: trace-h200.sh BUILD_DIR OUT_DIR}
OUT=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
FILE=${FILE:-/var/tmp/hipfile-trace.dat}
mkdir -p "$OUT" "$OUT/csv"
log() { tee -a "$OUT/trace.txt"; }

CUPTI=""
for d in $(python3 -c 'import nvidia, os; [print(os.path.join(p, "cu13")) for p in nvidia.__path__]' 2>/dev/null) \
  /usr/local/cuda/extras/CUPTI; do
  [[ -f $d/include/cupti.h ]] && { CUPTI=$d; break; }
done
[[ -n $CUPTI ]] || { echo "no CUPTI with headers found" | log; exit 1; }
LIB=$(ls -d "$CUPTI"/lib* | head -1)
echo "CUPTI: $CUPTI ($(ls "$LIB" | grep -m1 'libcupti.so'))" | log
SO=/tmp/cupti-trace.so
g++ -std=c++17 -O2 -shared -fPIC -I"$CUPTI/include" -I/usr/local/cuda/include \
  "$HERE/cupti-trace.cpp" -o "$SO" -L"$LIB" -l:libcupti.so.13 -Wl,-rpath,"$LIB" 2>&1 | log
[[ -f $SO ]] || exit 1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | log

B=$BUILD/tools/hipfile-bench/hipfile-bench
"$B" -f "$FILE" -s 2G -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache
cfg() { echo "{\"properties\": {\"max_device_cache_size_kb\": $1}}" > "/tmp/cache-$1.json"; echo "HIPFILE_CONFIG=/tmp/cache-$1.json"; }
Q="HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0"
rate() { python3 "$HERE/json-row.py" "" "$1"; }
rated() {  # rated LABEL "VAR=VALUE ..." FLAGS...: one hipfile-bench run and its rate
  local label=$1 envs=$2 line
  shift 2
  line=$(env $envs timeout 60 "$B" -f "$FILE" -s 2G -T 2 --ramp 1 "$@" --json 2>>"$OUT/trace.err") &&
    echo "$label: $(rate "$line")" | log
}
bench() {  # bench NAME "VAR=VALUE ..." FLAGS...: untraced, then traced, and the timeline's summary
  local name=$1 envs=$2
  shift 2
  rated "$name untraced" "$envs" "$@"
  rated "$name traced" "$envs CUPTI_TRACE_OUT=$OUT/csv/$name.csv LD_PRELOAD=$SO" "$@"
  python3 "$HERE/trace-gaps.py" "$OUT/csv/$name.csv" --skip "${SKIP:-1.3}" --keep 1.4 $GAPS 2>&1 | log
  echo | log
}
P=$BUILD/bench/stream-stop-probe
probe() {  # probe NAME "VAR=VALUE ...": untraced, then traced, 16 streams x 8 MiB, no stop
  local name=$1 envs=$2
  echo "$name untraced: $(env $envs timeout 60 "$P" 16 8388608 2 0 2>&1 | tr '\n' ' ')" | log
  echo "$name traced:   $(env $envs CUPTI_TRACE_OUT="$OUT/csv/$name.csv" LD_PRELOAD="$SO" timeout 60 \
    "$P" 16 8388608 2 0 2>&1 | tr '\n' ' ')" | log
  python3 "$HERE/trace-gaps.py" "$OUT/csv/$name.csv" --skip 0.5 --keep 1.0 2>&1 | log
  echo | log
}
R="-w 16 -i 256M -I 0 -x 5 -Q 1 --stages"
GAPS=""  # more arguments to trace-gaps.py
for row in ${ROWS:-p8 p8c p32 whole sync probe-tokens1 probe-plain}; do
  case $row in
  p8) bench p8 "$Q HIPFILE_ASYNC_AHEAD_PART_MB=8" $R ;;
  p8-2m) bench p8-2m "$Q HIPFILE_ASYNC_AHEAD_PART_MB=8 HIPFILE_ASYNC_LARGE_CHUNKS_MB=0" $R ;;
  p8c) bench p8c "$Q HIPFILE_ASYNC_AHEAD_PART_MB=8 HIPFILE_ASYNC_AHEAD_STREAM=1 $(cfg 262144)" $R ;;
  p16) bench p16 "$Q HIPFILE_ASYNC_AHEAD_PART_MB=16 $(cfg 262144)" $R ;;
  p32) bench p32 "$Q HIPFILE_ASYNC_AHEAD_PART_MB=32 $(cfg 524288)" $R ;;
  whole) bench whole "$Q HIPFILE_ASYNC_AHEAD_PART_MB=0 $(cfg 8388608)" $R ;;
  sync) bench sync "$Q" -w 16 -i 256M -I 0 -x 0 ;;
  probe-tokens1) probe probe-tokens1 "PROBE_TOKENS=1" ;;
  probe-early) probe probe-early "PROBE_TOKENS=1 PROBE_EARLY=1" ;;
  probe-plain) probe probe-plain "" ;;
  grid)  # the run kernel's grid (HIPFILE_ASYNC_RUN_BLOCKS): reads from the windows (no budget) and
    # in parts, 16 x 256 MiB x 1 and 16 x 16 MiB x 2, two rounds, against -x 0; then one traced
    for round in 1 2; do
      echo "== grid round $round" | log
      rated sync "$Q" -w 16 -i 256M -I 0 -x 0
      rated p8-32 "$Q" $R
      rated p8-1056 "$Q HIPFILE_ASYNC_RUN_BLOCKS=1056" $R
      for blocks in 32 264 1056 4096; do
        rated win-$blocks "$Q HIPFILE_ASYNC_RUN_BLOCKS=$blocks $(cfg 0)" $R
      done
      rated 16m-sync "$Q" -w 16 -i 16M -I 0 -x 0
      rated 16m-32 "$Q" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      rated 16m-1056 "$Q HIPFILE_ASYNC_RUN_BLOCKS=1056" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      rated 16m-win-1056 "$Q HIPFILE_ASYNC_RUN_BLOCKS=1056 $(cfg 0)" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
    done
    bench win-1056 "$Q HIPFILE_ASYNC_RUN_BLOCKS=1056 $(cfg 0)" $R ;;
  cond)  # cond-copy-probe (COND=its binary): 16 x 256 MiB copies in a graph's conditional node
    for m in cond cond-late; do
      echo "cond-$m traced: $(CUPTI_TRACE_OUT="$OUT/csv/cond-$m.csv" LD_PRELOAD="$SO" timeout 60 \
        "${COND:?}" 16 268435456 2 "$m" 2>&1 | tr '\n' ' ')" | log
      python3 "$HERE/trace-gaps.py" "$OUT/csv/cond-$m.csv" --skip 0.5 --keep 1.0 2>&1 | log
      echo | log
    done ;;
  kern)  # (each launch copies a whole 256 MiB read: trace-gaps.py adds up the bytes moved)
    GAPS="--kernel-bytes 268435456"
    bench win-32 "$Q $(cfg 0)" $R
    bench win-1056 "$Q HIPFILE_ASYNC_RUN_BLOCKS=1056 $(cfg 0)" $R
    K=$BUILD/bench/copy-kernel-probe
    for grid in 32 1056; do
      for m in w4 c4; do
        name=probe-$m-$grid
        echo "$name traced: $(PROBE_SRC=file:/var/tmp CUPTI_TRACE_OUT="$OUT/csv/$name.csv" \
          LD_PRELOAD="$SO" timeout 90 "$K" "$HERE/copy-kernel-variants.ptx" 16 268435456 "$grid" 3 \
          "$m" 2>&1 | tr '\n' ' ')" | log
        python3 "$HERE/trace-gaps.py" "$OUT/csv/$name.csv" --skip 1.0 --keep 1.4 $GAPS 2>&1 | log
        echo | log
      done
    done
    GAPS="" ;;
  esac
done
tar -C "$OUT" -czf "$OUT/traces.tgz" csv && rm -rf "$OUT/csv"
