#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What stream-ordered operations decide at submission (docs/async.md), against the queued way and
# the synchronous path, in one run on a warm file, each row a fresh hipfile-bench -T LIMIT with
# --json (one line a row, in OUT_DIR/at-submission.txt):
#   small  4 KiB random reads run at once on idle streams (HIPFILE_ASYNC_RUN_IDLE_KB=64) or
#          queued (=0): 1 stream x 1 in flight, 16 x 1, 16 x 8, and -x 0 with 1 and 16 threads
#   latency  4 KiB random reads, 16 threads x 1 in flight paced to 50k and 150k a second, taken
#          at submission (also with HIPFILE_ASYNC_QUIET_STREAMS=16), run at once (=0) and -x 0:
#          what a caller waiting for each read sees
#   large  16 MiB reads on 16 streams x 2 in flight (hipfile-bench registers its streams with
#          every FIXED flag) with their copies from pinned windows queued at submission
#          (HIPFILE_ASYNC_COPY_AT_SUBMISSION=1) or not (=0), against -x 0 with 16 threads; and
#          async-bench, the tutorial's program, 16 streams x 256 MiB, both ways
#   cached 4, 16 and 64 KiB random reads taking their bytes at submission on hipfile-bench's
#          fixed streams (HIPFILE_ASYNC_READ_AT_SUBMISSION=1, the default) or not (=0: run at
#          once as before), 1 x 1, 16 x 1, 4 x 8 and 16 x 8, against -x 0 with 1, 4 and 16
#          threads
#   ahead  the stream's way with reads copied ahead into device memory, budgets 0, 128 MiB
#          (the default) and 512 MiB; the tutorial's program at 0, 128 MiB and 8 GiB
#   shape  16 MiB reads copied ahead (budget 512 MiB) at 2 and 4 in flight, on 8 and 32 hardware
#          queues, against -x 0 with 16 threads on the same queues
#   tokens 16 MiB reads copied ahead (budget 512 MiB) in 2 MiB chunks and in large (8 MiB) ones
#   runs   reads copied ahead, one launch a read: 16 and 4 MiB, the tutorial's program
#   parts  256 MiB reads (past hipFile's default 128 MiB budget) copied ahead in parts of 8 and
#          16 MiB (HIPFILE_ASYNC_AHEAD_PART_MB) or not (the kernel copies them from host memory),
#          16 streams x 2, against -x 0 with 16 threads; the tutorial's program at the default
#          budget both ways and at 8 GiB (every slice copied ahead whole)
#   partsteady 16 streams x 1 x 256 MiB with parts of 8, 16 and 32 MiB (budgets 128, 256 and 512
#          MiB) and whole (8 GiB), against -x 0: with RAMP=2, whether larger parts lift them
#   partsize the tutorial's program with parts of 8, 16, 32 and 64 MiB, the budget holding 16
#          regions of each; on 4 streams with 8 and 32 MiB parts and none, default budget
#   queued the stream's way alone (both of the above off): 16 streams x 2 reads of 1, 4 and
#          16 MiB from pinned windows against -x 0 with 16 threads
#   rate   4 KiB random reads at equal IOPS (--rate 150000 and 250000): taken at submission
#          (16 x 8), run at once (16 x 8) and -x 0 with 16 threads, for the cores each keeps busy;
#          the -x 5 rows also with --wait-when-full (the benchmark's per-operation wait left out)
#          and with it --event-every 8 (one event, and one wait, per 8 reads: a caller waiting
#          for batches); stage times off (since 2026-12-04)
#   pass   one pass over the file (no -T), 16 streams x 2 x 16 MiB, both ways and -x 0: cold (the
#          page cache dropped before each row; needs root) and "warm" (no drop; but the cold rows
#          read by O_DIRECT, which leaves the page cache empty: these are cold too, see
#          bench/results/h200-2026-12-03-at-submission)
#   bench/probes/at-submission-h200.sh BUILD_DIR OUT_DIR [FILE]
set -uo pipefail
BUILD=${1:?usage: at-submission-h200.sh BUILD_DIR OUT_DIR [FILE]}
OUT=${2:?}
FILE=${3:-/var/tmp/hipfile-at-submission.dat}
LIMIT=${LIMIT:-3}
B=$BUILD/tools/hipfile-bench/hipfile-bench
mkdir -p "$OUT"
"$B" -f "$FILE" -s 2G -i 64M -x 10 -w 4 > /dev/null || exit 1  # made, and in the page cache
row() {  # row NAME "VAR=VALUE ..." FLAGS...
  local name=$1 envs=$2 line
  shift 2
  local limit=(-T "$LIMIT")
  [[ -n ${RAMP:-} ]] && limit+=(--ramp "$RAMP")  # RAMP=SECONDS: uncounted first (a steady state)
  [[ -n ${ONE_PASS:-} ]] && limit=()
  [[ -n ${COLD:-} ]] && { sync; echo 3 > /proc/sys/vm/drop_caches || return; }
  line=$(env $envs timeout $((3 * LIMIT + 60)) "$B" -f "$FILE" -s 2G "${limit[@]}" \
    "$@" --json 2>> "$OUT/at-submission.err") || { echo "$name: failed" | tee -a "$OUT/at-submission.txt"; return; }
  python3 - "$name" "$line" <<'PY' | tee -a "$OUT/at-submission.txt"
import json, sys
name, d = sys.argv[1], json.loads(sys.argv[2])
st = {k: round(v["mean_us"]) for k, v in d.get("async_stages", {}).items()}
# Which way the operations went (builds since 2026-12-05): the counts that are not 0.
ways = {k: v for k, v in d.get("async_ways", {}).items() if v}
print(f'{name:28s} {d["throughput_gib_s"]:7.2f} GiB/s {d["iops"]:9.0f} IOPS p50 {d["p50_latency_us"]:7.1f} '
      f'p99 {d["p99_latency_us"]:8.1f} us cores {d.get("cpu_cores", 0):5.2f} {st if st else ""} '
      f'{("ways " + str(ways)) if ways else ""} {d.get("paths", "")}')
PY
}
tutorial() {  # tutorial NAME "VAR=VALUE ..." [STREAMS]: async-bench's tables, on a file of its own
  echo "$1: $(env $2 timeout 150 "$BUILD/bench/async-bench" /var/tmp/hipfile-tutorial.dat "${3:-16}" 256 1000 \
    2>> "$OUT/at-submission.err" | grep -E '^\| (sync|async|ratio)' | tr '\n' ' ')" |
    tee -a "$OUT/at-submission.txt"
}
cfg() { # cfg KIB: a HIPFILE_CONFIG setting max_device_cache_size_kb
  local f=$OUT/cache-$1.json
  echo "{\"properties\": {\"max_device_cache_size_kb\": $1}}" > "$f"
  echo "HIPFILE_CONFIG=$f"
}
I=HIPFILE_ASYNC_RUN_IDLE_KB
C=HIPFILE_ASYNC_COPY_AT_SUBMISSION
R=HIPFILE_ASYNC_READ_AT_SUBMISSION
for round in 1 2; do
  echo "== round $round" | tee -a "$OUT/at-submission.txt"
  for part in ${ROWS:-small large}; do
    case $part in
    small)
      row small-1x1-at-once "$I=64" -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
      row small-1x1-queued "$I=0" -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
      row small-sync-1 "$I=64" -w 1 -i 4K -I 2 -x 0
      row small-16x1-at-once "$I=64" -w 16 -i 4K -I 2 -x 5 -Q 1 --stages
      row small-16x8-at-once "$I=64" -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
      row small-16x8-queued "$I=0" -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
      row small-sync-16 "$I=64" -w 16 -i 4K -I 2 -x 0
      row small-16x8-at-once-verify "$I=64" -w 16 -i 4K -I 2 -x 5 -Q 8 -V
      ;;
    cached)
      row cached-1x1 "$R=1" -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
      row at-once-1x1 "$R=0" -w 1 -i 4K -I 2 -x 5 -Q 1 --stages
      row sync-1 "$R=1" -w 1 -i 4K -I 2 -x 0
      row cached-16x1 "$R=1" -w 16 -i 4K -I 2 -x 5 -Q 1
      row at-once-16x1 "$R=0" -w 16 -i 4K -I 2 -x 5 -Q 1
      row cached-16x8 "$R=1" -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
      row at-once-16x8 "$R=0" -w 16 -i 4K -I 2 -x 5 -Q 8 --stages
      row sync-16 "$R=1" -w 16 -i 4K -I 2 -x 0
      row cached-4x8 "$R=1" -w 4 -i 4K -I 2 -x 5 -Q 8
      row at-once-4x8 "$R=0" -w 4 -i 4K -I 2 -x 5 -Q 8
      row sync-4 "$R=1" -w 4 -i 4K -I 2 -x 0
      row cached-16x8-16K "$R=1" -w 16 -i 16K -I 2 -x 5 -Q 8
      row at-once-16x8-16K "$R=0" -w 16 -i 16K -I 2 -x 5 -Q 8
      row sync-16-16K "$R=1" -w 16 -i 16K -I 2 -x 0
      row cached-16x8-64K "$R=1" -w 16 -i 64K -I 2 -x 5 -Q 8
      row at-once-16x8-64K "$R=0" -w 16 -i 64K -I 2 -x 5 -Q 8
      row sync-16-64K "$R=1" -w 16 -i 64K -I 2 -x 0
      row cached-16x8-verify "$R=1" -w 16 -i 4K -I 2 -x 5 -Q 8 -V
      ;;
    rate)
      # The cores each way keeps busy for the same work: 16 threads of 4 KiB random reads paced
      # to the same --rate, taken at submission (16 streams x 8), run at once (=0) and -x 0.
      # Stage times off (hipfile-bench turns them on for -x 5): they cost the -x 5 rows alone.
      S=HIPFILE_ASYNC_STAGE_TIMES=0
      for r in 150000 250000; do
        row "rate-$r-cached-16x8" "$S $R=1" -w 16 -i 4K -I 2 -x 5 -Q 8 --rate "$r"
        row "rate-$r-cached-16x8-full" "$S $R=1" -w 16 -i 4K -I 2 -x 5 -Q 8 --rate "$r" --wait-when-full
        row "rate-$r-cached-16x8-ev8" "$S $R=1" -w 16 -i 4K -I 2 -x 5 -Q 8 --rate "$r" --wait-when-full --event-every 8
        row "rate-$r-at-once-16x8-full" "$S $R=0" -w 16 -i 4K -I 2 -x 5 -Q 8 --rate "$r" --wait-when-full
        row "rate-$r-at-once-16x8-ev8" "$S $R=0" -w 16 -i 4K -I 2 -x 5 -Q 8 --rate "$r" --wait-when-full --event-every 8
        row "rate-$r-sync-16" "$R=1" -w 16 -i 4K -I 2 -x 0 --rate "$r"
      done
      ;;
    latency)
      # A caller waiting for each read (16 threads x 1 in flight) at a modest rate, where many
      # streams make reads taken at submission come first (since 2026-12-04; before, few
      # submissions in progress let each run at once): the latency and cores of each way.
      for r in 50000 150000; do
        row "latency-$r-cached-16x1" "$R=1" -w 16 -i 4K -I 2 -x 5 -Q 1 --rate "$r"
        row "latency-$r-cached-16x1-quiet16" "$R=1 HIPFILE_ASYNC_QUIET_STREAMS=16" -w 16 -i 4K -I 2 \
          -x 5 -Q 1 --rate "$r"
        row "latency-$r-at-once-16x1" "$R=0" -w 16 -i 4K -I 2 -x 5 -Q 1 --rate "$r"
        row "latency-$r-sync-16" "$R=1" -w 16 -i 4K -I 2 -x 0 --rate "$r"
      done
      ;;
    large)
      row large-16x2-copy-at-submission "$C=1" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row large-16x2-queued "$C=0" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row large-sync-16 "$C=1" -w 16 -i 16M -I 0 -x 0
      row large-4x2-copy-at-submission "$C=1" -w 4 -i 16M -I 0 -x 5 -Q 2
      row large-sync-4 "$C=1" -w 4 -i 16M -I 0 -x 0
      row large-16x2-copy-at-submission-verify "$C=1" -w 16 -i 16M -I 0 -x 5 -Q 2 -V
      tutorial tutorial-copy-at-submission "$C=1"
      tutorial tutorial-queued "$C=0"
      ;;
    ahead)
      # Reads copied ahead into device memory (docs/async.md, "Reads copied ahead into device
      # memory"): the stream's way (copies at submission off, so hipfile-bench's fixed streams
      # take it, as busy streams without the flags do) with the device memory budget off (0),
      # at hipFile's default (128 MiB) and at 512 MiB, against -x 0 with 16 threads; the
      # tutorial's program (16 x 256 MiB) off, at the default and at 8 GiB.
      for size in 4M 16M; do
        row "ahead-off-16x2-$size" "$C=0 $I=0 $(cfg 0)" -w 16 -i "$size" -I 0 -x 5 -Q 2 --stages
        row "ahead-128M-16x2-$size" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 5 -Q 2 --stages
        row "ahead-512M-16x2-$size" "$C=0 $I=0 $(cfg 524288)" -w 16 -i "$size" -I 0 -x 5 -Q 2 --stages
        row "ahead-sync-16-$size" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 0
      done
      row ahead-512M-16x2-16M-verify "$C=0 $I=0 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 -V
      tutorial tutorial-ahead-off "$C=0 $(cfg 0)"
      tutorial tutorial-ahead-128M "$C=0"
      tutorial tutorial-ahead-8G "$C=0 $(cfg 8388608)"
      ;;
    shape)
      # What holds busy streams' 16 MiB reads copied ahead under sync (issue 21 item 1): more in
      # flight per stream (-Q 4, its budget 1 GiB so that every read is still copied ahead) and
      # a hardware queue per stream (CUDA_DEVICE_MAX_CONNECTIONS=32; 8 by default, two streams
      # a queue, where one's stop holds up the other's copies), each against -x 0 with 16
      # threads under the same setting.
      for q in 8 32; do
        Q="CUDA_DEVICE_MAX_CONNECTIONS=$q"
        row "shape-q$q-512M-16x2" "$Q $C=0 $I=0 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
        row "shape-q$q-1G-16x4" "$Q $C=0 $I=0 $(cfg 1048576)" -w 16 -i 16M -I 0 -x 5 -Q 4 --stages
        row "shape-q$q-sync-16" "$Q $C=0 $I=0" -w 16 -i 16M -I 0 -x 0
      done
      ;;
    tokens)
      # A read copied ahead has one token per chunk, the first copying it on from device memory
      # and the rest nothing, each still a wait, a launch and a write on the stream:
      # stream-stop-probe measured 16 streams x 16 MiB at 46.0 GiB/s with one token and 40.5
      # with eight (bench/results/h100-2026-12-05-b). Large chunks (8 MiB) give a 16 MiB read two.
      row tokens-512M-small "$C=0 $I=0 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row tokens-512M-large16 "$C=0 $I=0 HIPFILE_ASYNC_LARGE_CHUNKS_MB=16 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row tokens-sync-16 "$C=0 $I=0" -w 16 -i 16M -I 0 -x 0
      ;;
    parts)
      # Reads the budget has no room for whole copied ahead a part at a time through a region of
      # a part's size a stream (docs/async.md, "Reads copied ahead in parts"): 16 x 8 MiB fit the
      # default budget, 16 x 16 MiB do not (half the streams go without); one row checks every
      # byte.
      P=HIPFILE_ASYNC_AHEAD_PART_MB
      row parts-off-16x2-256M "$C=0 $I=0 $P=0" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row parts-8-16x2-256M "$C=0 $I=0 $P=8" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row parts-16-16x2-256M "$C=0 $I=0 $P=16" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row parts-sync-16-256M "$C=0 $I=0" -w 16 -i 256M -I 0 -x 0
      row parts-8-16x2-256M-verify "$C=0 $I=0 $P=8" -w 16 -i 256M -I 0 -x 5 -Q 2 -V
      tutorial tutorial-parts-off "$C=0 $P=0"
      tutorial tutorial-parts-8 "$C=0 $P=8"
      tutorial tutorial-parts-16 "$C=0 $P=16"
      tutorial tutorial-parts-8G "$C=0 $(cfg 8388608)"
      ;;
    partsteady)
      # Whether larger parts lift 256 MiB reads in steady state (use with RAMP=2): 16 streams x 1
      # of them with parts of 8 MiB (the default budget), 16 and 32 MiB (budgets of 256 and 512
      # MiB: a share of the part each), whole (8 GiB, parts off), against -x 0 with 16 threads.
      P=HIPFILE_ASYNC_AHEAD_PART_MB
      row ps-256M-8-128M "$C=0 $I=0 $P=8" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
      row ps-256M-16-256M "$C=0 $I=0 $P=16 $(cfg 262144)" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
      row ps-256M-32-512M "$C=0 $I=0 $P=32 $(cfg 524288)" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
      row ps-256M-whole-8G "$C=0 $I=0 $P=0 $(cfg 8388608)" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
      row ps-256M-sync-16 "$C=0 $I=0" -w 16 -i 256M -I 0 -x 0
      ;;
    partsize)
      # Whether a part's stop costs the stream (each part's copies wait for the launch that
      # copied the part before out of the stream's one region): the tutorial's program with
      # parts of 8 to 64 MiB, the budget raised to hold 16 regions of each (fewer stops a read),
      # and 8 MiB at 256 MiB (the budget alone); 4 streams at the default budget, 8 and 32 MiB.
      P=HIPFILE_ASYNC_AHEAD_PART_MB
      tutorial tp-8-128M "$C=0 $P=8"
      tutorial tp-8-256M "$C=0 $P=8 $(cfg 262144)"
      tutorial tp-16-256M "$C=0 $P=16 $(cfg 262144)"
      tutorial tp-32-512M "$C=0 $P=32 $(cfg 524288)"
      tutorial tp-64-1G "$C=0 $P=64 $(cfg 1048576)"
      tutorial tp-4s-8-128M "$C=0 $P=8" 4
      tutorial tp-4s-32-128M "$C=0 $P=32" 4
      tutorial tp-4s-off-128M "$C=0 $P=0" 4
      ;;
    runs)
      # Reads copied ahead with one launch for all their tokens (CopyTableRunAsync, 2026-12-05):
      # 16 and 4 MiB at the default budget, 16 MiB at 512 MiB, the tutorial's program at 8 GiB,
      # against -x 0 with 16 threads; one row checks every byte.
      row runs-128M-16x2-16M "$C=0 $I=0" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row runs-512M-16x2-16M "$C=0 $I=0 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 --stages
      row runs-sync-16-16M "$C=0 $I=0" -w 16 -i 16M -I 0 -x 0
      row runs-128M-16x2-4M "$C=0 $I=0" -w 16 -i 4M -I 0 -x 5 -Q 2 --stages
      row runs-sync-16-4M "$C=0 $I=0" -w 16 -i 4M -I 0 -x 0
      row runs-512M-16x2-16M-verify "$C=0 $I=0 $(cfg 524288)" -w 16 -i 16M -I 0 -x 5 -Q 2 -V
      tutorial tutorial-runs-8G "$C=0 $(cfg 8388608)"
      ;;
    slots)
      # Parts on a companion through two slots (HIPFILE_ASYNC_AHEAD_STREAM=1; docs/async.md,
      # "Reads copied ahead in parts"): the companion copies part p + 1 while the stream copies
      # part p on. 8 MiB parts need 256 MiB for 16 streams' two slots (at the default 128 MiB,
      # half the streams get one slot, on the stream), 4 MiB parts 128 MiB. Against the same
      # program with parts on the stream (the default), and 16 x 2 x 256 MiB reads against -x 0.
      P=HIPFILE_ASYNC_AHEAD_PART_MB
      S=HIPFILE_ASYNC_AHEAD_STREAM=1
      tutorial ts-stream-8 "$C=0"
      tutorial ts-stream-4 "$C=0 $P=4"
      tutorial ts-slots-8 "$C=0 $S"
      tutorial ts-slots-4 "$C=0 $S $P=4"
      tutorial ts-slots-8-256M "$C=0 $S $(cfg 262144)"
      tutorial ts-4s-slots-4 "$C=0 $S $P=4" 4
      row slots-stream-16x2-256M "$C=0 $I=0" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row slots-4-16x2-256M "$C=0 $I=0 $S $P=4" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row slots-sync-16-256M "$C=0 $I=0" -w 16 -i 256M -I 0 -x 0
      row slots-4-16x2-256M-verify "$C=0 $I=0 $S $P=4" -w 16 -i 256M -I 0 -x 5 -Q 2 -V
      ;;
    slotsab)
      # The slots rows that tell, for an A/B of two builds (kernel-ab-h200.sh): the default, parts
      # of 4 MiB through two slots on a companion at the default budget, 8 MiB at 256 MiB.
      P=HIPFILE_ASYNC_AHEAD_PART_MB
      S=HIPFILE_ASYNC_AHEAD_STREAM=1
      tutorial ts-stream-8 "$C=0"
      tutorial ts-slots-4 "$C=0 $S $P=4"
      tutorial ts-slots-8-256M "$C=0 $S $(cfg 262144)"
      row slots-4-16x2-256M "$C=0 $I=0 $S $P=4" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row slots-sync-16-256M "$C=0 $I=0" -w 16 -i 256M -I 0 -x 0
      ;;
    pace)
      # Whether the program's pacing holds busy streams back (issue 21): the same reads with 1, 2
      # and 4 in flight a stream (a stream whose next read is queued never waits for the
      # program), 256 MiB (parts, the default) and 16 MiB, against -x 0 with 16 threads.
      for size in 256M 16M; do
        for q in 1 2 4; do
          row "pace-$size-16x$q" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 5 -Q "$q" --stages
        done
        row "pace-$size-sync-16" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 0
      done
      ;;
    paceq)
      # The same with a hardware queue per stream (CUDA_DEVICE_MAX_CONNECTIONS=32; 8 by default,
      # two streams a queue): a 256 MiB read's chain of parts is long and full of waits, and a
      # stream whose queue it shares may wait behind all of it.
      Q=CUDA_DEVICE_MAX_CONNECTIONS=32
      row paceq-256M-16x1 "$Q $C=0 $I=0" -w 16 -i 256M -I 0 -x 5 -Q 1 --stages
      row paceq-256M-16x2 "$Q $C=0 $I=0" -w 16 -i 256M -I 0 -x 5 -Q 2 --stages
      row paceq-256M-sync-16 "$Q $C=0 $I=0" -w 16 -i 256M -I 0 -x 0
      tutorial tq-32 "$Q $C=0"
      tutorial tq-8 "$C=0"
      ;;
    tutorial128)
      # The tutorial's program (16 x 256 MiB) at the default budget, where its slices are copied
      # ahead in 8 MiB parts, one launch a part (docs/async.md, "Reads copied ahead in parts").
      tutorial tutorial-128M "$C=0"
      ;;
    queued)
      # Both ways decided at submission off: what the stream's way itself does, resident reads
      # of 1, 4 and 16 MiB copied from windows by the stream (one round trip through the poller
      # since b7ec0ad, two before), against -x 0 with the same threads.
      for size in 1M 4M 16M; do
        row "queued-16x2-$size" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 5 -Q 2 --stages
        row "queued-sync-16-$size" "$C=0 $I=0" -w 16 -i "$size" -I 0 -x 0
      done
      row queued-16x2-4M-verify "$C=0 $I=0" -w 16 -i 4M -I 0 -x 5 -Q 2 -V
      ;;
    pass)
      for cold in 1 ""; do
        w=$([[ -n $cold ]] && echo cold || echo warm)
        COLD=$cold ONE_PASS=1 row "pass-$w-copy-at-submission" "$C=1" -w 16 -i 16M -I 0 -x 5 -Q 2
        COLD=$cold ONE_PASS=1 row "pass-$w-queued" "$C=0" -w 16 -i 16M -I 0 -x 5 -Q 2
        COLD=$cold ONE_PASS=1 row "pass-$w-sync" "$C=1" -w 16 -i 16M -I 0 -x 0
      done
      ;;
    esac
  done
done
