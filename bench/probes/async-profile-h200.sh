#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the host time of small stream-ordered reads goes (issue 21): 4 KiB random reads through
# hipfile-bench -x 5 on a warm file, one in flight a stream.
#   1x1     one stream: the stages of one operation with nothing else running (--stages)
#   16x1    16 streams: the stages, then the same under `perf record -g` (a flat profile by
#           library and symbol, and by thread name) while threadprof.py samples the system
#           call each thread is in
#   sync16  -x 0 with 16 threads under perf too, the synchronous path's profile for comparison
# With PROFILES=rate instead: 16 threads paced to --rate 250000 (docs/tools.md), where the ways
# keep different numbers of cores busy for the same reads, each under perf: taken at submission
# (16 streams x 8, --wait-when-full, an event every 8 reads), run at once (=0, the same), and
# -x 0, stage times off; sampled with DWARF call graphs (which unwind through libcuda, where frame
# pointers do not) at 499 Hz, reported with each function's time and its callees' (children).
# Needs a perf that runs there (bench/probes/pack-perf.sh packs this machine's).
#   bench/probes/async-profile-h200.sh BUILD_DIR PERF OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: async-profile-h200.sh BUILD_DIR PERF OUT_DIR [FILE]}
PERF=${2:?}
OUT=${3:?}
FILE=${4:-/var/tmp/hipfile-profile.dat}
here=$(dirname "$(readlink -f "$0")")
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s 1G -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache
small=(-f "$FILE" -s 1G -i 4K -I 2 -x 5 -Q 1 --stages)

echo "== 1x1" > "$OUT/async-profile.txt"
"$B" "${small[@]}" -w 1 -T 3 >> "$OUT/async-profile.txt" 2>&1
echo "== 16x1" >> "$OUT/async-profile.txt"
"$B" "${small[@]}" -w 16 -T 3 >> "$OUT/async-profile.txt" 2>&1

profile() {  # profile NAME HIPFILE-BENCH-FLAGS...
  local name=$1
  shift
  local graph=(-F 1999 -g)
  [[ ${CALLGRAPH:-} == dwarf ]] && graph=(-F 499 --call-graph dwarf,8192)
  "$PERF" record -q "${graph[@]}" -o "/var/tmp/$name.perf" -- "$B" "$@" > "$OUT/$name-bench.txt" 2>&1 &
  local rec=$!
  sleep 1.5
  local pid
  pid=$(pgrep -n -f "hipfile-bench -f $FILE")
  [[ -n $pid ]] && python3 "$here/threadprof.py" "$pid" 2 > "$OUT/$name-threads.txt" 2>&1
  wait "$rec"
  {
    echo "== by library"
    "$PERF" report -i "/var/tmp/$name.perf" --no-children --sort dso --stdio -g none 2>&1 |
      grep -v '^#' | grep -v '^$' | head -20
    echo "== by thread and library"
    "$PERF" report -i "/var/tmp/$name.perf" --no-children --sort comm,dso --stdio -g none 2>&1 |
      grep -v '^#' | grep -v '^$' | head -30
    echo "== by symbol"
    "$PERF" report -i "/var/tmp/$name.perf" --no-children --sort dso,sym --stdio -g none 2>&1 |
      grep -v '^#' | grep -v '^$' | head -80
    if [[ ${CALLGRAPH:-} == dwarf ]]; then
      echo "== with callees (children), by symbol"
      "$PERF" report -i "/var/tmp/$name.perf" --children --sort dso,sym --stdio -g none \
        --percent-limit 0.7 2>&1 | grep -v '^#' | grep -v '^$' | head -150
      echo "== callers of the top symbols"
      "$PERF" report -i "/var/tmp/$name.perf" --no-children --sort dso,sym --stdio \
        -g caller,0.5,callee,function,percent --percent-limit 2.5 2>&1 | grep -v '^$' | head -400
    else
      echo "== callers of the top symbols (libhipfile and the kernel)"
      "$PERF" report -i "/var/tmp/$name.perf" --no-children --sort sym --stdio -g caller,0.5,callee \
        --percent-limit 2 2>&1 | grep -v '^$' | head -250
    fi
  } > "$OUT/$name-perf.txt"
}
case ${PROFILES:-small} in
small)
  profile async16x1 "${small[@]}" -w 16 -T 4
  profile sync16 -f "$FILE" -s 1G -i 4K -I 2 -x 0 -w 16 -T 4
  ;;
rate)
  paced=(-f "$FILE" -s 1G -i 4K -I 2 -w 16 -T 4 --rate 250000)
  batch=(-x 5 -Q 8 --wait-when-full --event-every 8)
  export HIPFILE_ASYNC_STAGE_TIMES=0
  HIPFILE_ASYNC_READ_AT_SUBMISSION=1 profile rate-cached-16x8-ev8 "${paced[@]}" "${batch[@]}"
  HIPFILE_ASYNC_READ_AT_SUBMISSION=0 profile rate-at-once-16x8-ev8 "${paced[@]}" "${batch[@]}"
  profile rate-sync16 "${paced[@]}" -x 0
  ;;
esac
