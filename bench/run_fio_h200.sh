#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio with this library's engine (libhipfile-fio.so) against AMD's baseline, rocm_io=posix
# (pread/pwrite into pinned host memory and a GPU copy), in one run on one GPU (docs/fio.md):
#   0. the verify jobs on the GPU: write-read-verify.fio's jobs in sync, stream and batch modes,
#      through O_DIRECT and through the page cache; every row must end "ok";
#   1. sequential 16 MiB reads, 8 threads each reading its eighth of FILE (tools/fio/jobs/
#      seq-read.fio): warm (FILE in the page cache, steady state over RUNTIME seconds) and cold
#      (one pass after the page cache is dropped), buffered (direct=0) and O_DIRECT (direct=1);
#      Then stream mode warm, 2 in flight a job, with the FIXED stream flags (the default) and
#      without (hipfile_stream_fixed=0);
#   2. random 4 KiB reads, 16 threads, iodepth 16, warm (tools/fio/jobs/rand-read-4k.fio):
#      sync, stream and batch modes against posix; stream mode without the FIXED flags.
#
#   bench/run_fio_h200.sh PREFIX FIO FILE OUT_DIR
#
# PREFIX is the installed package (PREFIX/lib/fio/libhipfile-fio.so, PREFIX/share/doc/hipfile/fio),
# FIO the fio the engine was built for. Environment: SIZE (8G), RUNTIME (8). Cold rows drop the page
# cache (root only; skipped otherwise). Warm rows set invalidate=0: fio drops a job's file from
# the page cache before the job by default. OUT_DIR gets each row's job file, fio's JSON and
# summary.txt.
set -uo pipefail
PREFIX=$1
FIO=$2
FILE=$3
OUT=$4
SIZE=${SIZE:-8G}
RUNTIME=${RUNTIME:-8}
ENGINE=$PREFIX/lib/fio/libhipfile-fio.so
JOBS=$PREFIX/share/doc/hipfile/fio
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
export HIPFILE_FIO_ENGINE=$ENGINE FIO_FILE=$FILE FIO_RUNTIME=$RUNTIME LD_BIND_NOW=1
slice=$(($(numfmt --from=iec "$SIZE") / 8))
export FIO_SLICE=$slice

drop() { sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null; }
bw() { # FILE.json: read GiB/s, IOPS, mean latency (submission to completion) in microseconds
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["read"]; \
print("%.2f GiB/s  %.0f IOPS  lat %.1f us" % (j["bw_bytes"]/2**30, j["iops"], j["lat_ns"]["mean"]/1e3))' "$1"
}

echo "== 0. verify jobs on the GPU" | tee -a "$SUMMARY"
for mode in sync stream batch; do
  for direct in 1 0; do
    log=$OUT/verify-$mode-direct$direct.log
    if "$FIO" --ioengine=external:"$ENGINE" --hipfile_mode="$mode" --iodepth=8 --direct="$direct" \
        --filename="$FILE.verify" --size=64M --bsrange=4k-1m --verify=md5 --verify_fatal=1 --verify_state_save=0 \
        --name=write --rw=randwrite --name=read --stonewall --rw=randread > "$log" 2>&1 &&
        ! grep -q "verify failed" "$log"; then
      echo "verify $mode direct=$direct: ok" | tee -a "$SUMMARY"
    else
      echo "verify $mode direct=$direct: FAILED (see $log)" | tee -a "$SUMMARY"
      tail -5 "$log"
    fi
  done
done
rm -f "$FILE.verify"

echo "== preparing $FILE ($SIZE)" >&2
"$FIO" --name=fill --ioengine=psync --rw=write --bs=16m --size="$SIZE" --filename="$FILE" \
  --end_fsync=1 > /dev/null || exit 1

# The installed job file with KEY=VALUE lines set at the end of its [global] section (after
# ioengine=, which an engine's options must follow): fio takes an engine's options on its command
# line only when --ioengine comes before them there, not with a job file.
variant() { # JOBFILE KEY=VALUE...
  local job=$1
  shift
  awk -v sets="$*" 'BEGIN { n = split(sets, kv, " "); for (i = 1; i <= n; i++) {
      split(kv[i], p, "="); val[p[1]] = kv[i]; order[i] = p[1] } }
    /^\[/ && !/^\[global\]/ && !done { for (i = 1; i <= n; i++) print val[order[i]]; done = 1 }
    { split($0, p, "="); if (!(p[1] in val)) print }' "$JOBS/$job"
}
row() { # NAME JOBFILE [KEY=VALUE...]
  local name=$1 job=$2
  shift 2
  variant "$job" "$@" > "$OUT/$name.fio"
  "$FIO" --output-format=json --output="$OUT/$name.json" "$OUT/$name.fio" > "$OUT/$name.log" 2>&1 ||
    { echo "$name: fio failed" | tee -a "$SUMMARY"; tail -3 "$OUT/$name.log"; return; }
  echo "$name: $(bw "$OUT/$name.json")" | tee -a "$SUMMARY"
}

echo "== 1. sequential 16 MiB reads, 8 threads; warm rows: steady state over ${RUNTIME}s" |
  tee -a "$SUMMARY"
cat "$FILE" > /dev/null
for io in hipfile posix; do
  row seq-warm-$io seq-read.fio rocm_io=$io time_based=1 runtime="$RUNTIME" invalidate=0
done
# Stream mode, 2 in flight a job: its stream registered with the FIXED flags (the default), and
# without them (hipfile_stream_fixed=0: the library reads the values when the stream gets there).
for fixed in 1 0; do
  row seq-warm-stream-fixed$fixed seq-read.fio hipfile_mode=stream iodepth=2 \
    hipfile_stream_fixed=$fixed time_based=1 runtime="$RUNTIME" invalidate=0
done
if [ "$(id -u)" = 0 ]; then
  for direct in 0 1; do
    for io in hipfile posix; do
      drop
      row seq-cold-direct$direct-$io seq-read.fio rocm_io=$io direct=$direct
    done
  done
else
  echo "cold rows skipped: dropping the page cache needs root" | tee -a "$SUMMARY"
fi

echo "== 2. random 4 KiB reads, 16 threads, iodepth 16, warm, ${RUNTIME}s each" |
  tee -a "$SUMMARY"
cat "$FILE" > /dev/null
for mode in sync stream batch; do
  row rand4k-$mode rand-read-4k.fio hipfile_mode=$mode invalidate=0
done
row rand4k-stream-fixed0 rand-read-4k.fio hipfile_mode=stream hipfile_stream_fixed=0 invalidate=0
row rand4k-posix rand-read-4k.fio rocm_io=posix invalidate=0
echo "== done" >&2
