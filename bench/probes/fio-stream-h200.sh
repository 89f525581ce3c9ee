#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's stream mode (hipfile_mode=stream) with its stream registered with the FIXED flags
# (hipfile_stream_fixed=1, the engine's default since 2026-12-07) against none (=0), beside the
# sync mode, on a GPU machine, warm, 5 s rows, two rounds (docs/fio.md, "Stream mode's flags"):
#   bench/probes/fio-stream-h200.sh PREFIX FIO FILE
# PREFIX: the installed package; FIO: the fio its engine was built for; FILE: made (4 GiB) if
# missing. ROWS (default: "flags cores"):
#   flags  sequential 16 MiB reads, 8 jobs, 2 in flight; 256 MiB reads, 16 jobs, 1 in flight;
#          random 4 KiB reads, 16 jobs x 16 in flight: rates
#   assume the flags rows' late-binding stream (hipfile_stream_fixed=0) with and without
#          HIPFILE_ASYNC_ASSUME_FIXED=1 (the process's promise), beside the sync mode
#   cores  random 4 KiB reads, 16 jobs x 16 in flight, in sync, stream (fixed, not) and batch
#          modes, and hipfile-bench -x 0 / -x 5 -Q 16 (reads at submission on and off): each
#          with the process's cores (user + system CPU time over the wall time, start included)
set -u
PREFIX=${1:?usage: fio-stream-h200.sh PREFIX FIO FILE}
FIO=${2:?}
F=${3:?}
E=$PREFIX/lib/fio/libhipfile-fio.so
H=$PREFIX/bin/hipfile-bench
[ -f "$F" ] || "$FIO" --name=fill --ioengine=psync --rw=write --bs=16m --size=4G --filename="$F" > /dev/null
cat "$F" > /dev/null
export LD_BIND_NOW=1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
# run NAME COMMAND...: the command, then its rate (fio's JSON, or hipfile-bench's last line) and
# the cores the process kept busy
run() {
  python3 - "$@" <<'PY'
import json, resource, subprocess, sys, time
name, cmd = sys.argv[1], sys.argv[2:]
t = time.time()
p = subprocess.run(cmd, capture_output=True, text=True)
w = time.time() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if "--output-format=json" in cmd:
    j = json.load(open(f"/tmp/{name}.json"))["jobs"][0]["read"]
    rate = "%.2f GiB/s %.0f IOPS" % (j["bw_bytes"] / 2**30, j["iops"])
else:
    rate = (p.stdout.strip().splitlines() or ["(no output)"])[-1][:200]
print(name, rate, "process cores %.2f over %.1f s" % ((u.ru_utime + u.ru_stime) / w, w))
PY
}
fio_row() {  # NAME OPTIONS... (FIO_ENV: VAR=VALUE words for fio's environment)
  local n=$1
  shift
  # shellcheck disable=SC2086
  run "$n" env ${FIO_ENV:-} "$FIO" --output-format=json --output="/tmp/$n.json" --ioengine=external:"$E" \
    --gpu_dev_ids=0 --filename="$F" --invalidate=0 --group_reporting=1 --thread=1 \
    --time_based=1 --runtime=5 "$@" --name="$n"
}
SEQ="--bs=16m --rw=read --numjobs=8 --size=512m --offset_increment=512m"
SEQ256="--bs=256m --rw=read --numjobs=16 --size=256m --offset_increment=256m"
R4K="--bs=4k --rw=randread --numjobs=16 --iodepth=16"
for round in 1 2; do
  echo "== round $round"
  for rows in ${ROWS:-flags cores}; do
    case $rows in
    flags)
      # shellcheck disable=SC2086
      {
        fio_row seq-sync --hipfile_mode=sync $SEQ
        for fx in 1 0; do
          fio_row seq-stream-fixed$fx --hipfile_mode=stream --iodepth=2 --hipfile_stream_fixed=$fx $SEQ
        done
        fio_row seq256-sync --hipfile_mode=sync $SEQ256
        for fx in 1 0; do
          fio_row seq256-stream-fixed$fx --hipfile_mode=stream --iodepth=1 --hipfile_stream_fixed=$fx $SEQ256
        done
      } ;;
    assume)
      # shellcheck disable=SC2086
      {
        fio_row seq-sync --hipfile_mode=sync $SEQ
        fio_row seq-stream-fixed0 --hipfile_mode=stream --iodepth=2 --hipfile_stream_fixed=0 $SEQ
        FIO_ENV=HIPFILE_ASYNC_ASSUME_FIXED=1 fio_row seq-stream-fixed0-assume \
          --hipfile_mode=stream --iodepth=2 --hipfile_stream_fixed=0 $SEQ
        fio_row seq256-sync --hipfile_mode=sync $SEQ256
        fio_row seq256-stream-fixed0 --hipfile_mode=stream --iodepth=1 --hipfile_stream_fixed=0 $SEQ256
        FIO_ENV=HIPFILE_ASYNC_ASSUME_FIXED=1 fio_row seq256-stream-fixed0-assume \
          --hipfile_mode=stream --iodepth=1 --hipfile_stream_fixed=0 $SEQ256
      } ;;
    cores)
      # shellcheck disable=SC2086
      {
        fio_row rand4k-sync --hipfile_mode=sync $R4K
        for fx in 1 0; do
          fio_row rand4k-stream-fixed$fx --hipfile_mode=stream --hipfile_stream_fixed=$fx $R4K
        done
        fio_row rand4k-batch --hipfile_mode=batch $R4K
      }
      run x0 "$H" -f "$F" -s 4G -w 16 -i 4K -I 2 -T 4 -x 0
      run x5-q16 "$H" -f "$F" -s 4G -w 16 -i 4K -I 2 -T 4 -x 5 -Q 16
      run x5-q16-noats env HIPFILE_ASYNC_READ_AT_SUBMISSION=0 "$H" -f "$F" -s 4G -w 16 -i 4K -I 2 \
        -T 4 -x 5 -Q 16 ;;
    esac
  done
done
