#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real cuFile clients, unchanged, on the drop-in libcufile.so.0 (issue 22 item 2; docs/cufile.md,
# "Real clients"), in one run on the H200 through `device`: each client's bytes checked, its
# throughput on the drop-in against the same client on its own POSIX/compat path and against the
# C API (hipfile-bench -x 0) on the same file, warm (in the page cache) and cold (dropped).
#
#   bench/run_cufile_clients_h200.sh [OUT_DIR]      (default: $OUT)
#
# Run from anywhere as root (cold rows write /proc/sys/vm/drop_caches) in a tree that holds the
# gitignored .whl/ of bench/competitors/fetch-kvikio-wheels.sh (and .whl/deb/liburing-dev_*.deb,
# bench/competitors/fetch-liburing.sh); needs cmake, ninja, a C compiler, python3 with torch and
# CuPy. Writes three files: OUT_DIR/cufile-clients.md (the summary, also printed),
# cufile-clients.jsonl (one JSON line a measurement) and cufile-clients.log (every step's output).
#
# Environment: SIZE (4G), DATA (/var/tmp/hipfile-cufile-clients-$SIZE.dat: hipfile-bench's data
# set, made by the verify row when missing), WORK (/tmp/hipfile-cufile-clients: prefix, wheels,
# scratch), BUILD (WORK/build), SKIP_BUILD (1: BUILD already holds the three targets, as in the
# CPU test), ONE_CALL (1G: the call size of the one-thread C row), ROUNDTRIP (256M written and
# read back through each client), BUDGET_S (270: no step starts after that many seconds, and none
# runs past it), ROW_TIMEOUT (90 s a client), BUILD_TIMEOUT (180 s), H200_JOBS (unset: every
# core), PYTHON (python3), CC (cc). Without a GPU, HIPFILE_RUNTIME=cpu runs the C rows (the python
# ones then fail, recorded): CTest bench.run_cufile_clients_h200.cpu does, small.
#
# Steps, each under `timeout`; a failing step is recorded as a row and the run goes on:
#   build         Release, tests and examples off: hipfile, hipfile_cufile, hipfile-bench only
#   install       the top directory's install rules into WORK/prefix: lib/hipfile-cufile/
#                 libcufile.so.0 and include/hipfile-cufile/cufile.h among them (h200_install)
#   wheels        KvikIO's wheels into WORK/kvikio-site (PYTHONPATH); NVIDIA's libcufile wheel
#                 apart into WORK/nvidia-cufile-site, for the rows on NVIDIA's library only
# Rows (the python ones are bench/python/cufile-client-bench.py; see its --help):
#   c-api-verify        hipfile-bench -x 0 -V: makes the data set if missing; every byte checked
#   roundtrip.c-dropin  tests/compat/cufile_program/cufile_roundtrip.c built against the installed
#                       cufile.h and -lcufile, run in GPU memory on the drop-in (LD_LIBRARY_PATH)
#   roundtrip.c-nvidia  the same binary on NVIDIA's library (the wheel's, else the system's)
#   kvikio-dropin       kvikio.CuFile.pread of the whole file into a CuPy array, KVIKIO_COMPAT_MODE
#                       =OFF (cuFile, checked), 16 MiB tasks on 8 threads; round trip write,
#                       pread, read
#   torch-gds-dropin    torch.cuda.gds.GdsFile.load_storage of the whole file into a registered
#                       tensor (one cuFileRead); round trip save_storage, load_storage
#   kvikio-compat       KvikIO with KVIKIO_COMPAT_MODE=ON: its POSIX path, the same reads
#   c-api-16M-8thr      hipfile-bench -x 0 -i 16M -w 8 (KvikIO's shape), warm and cold
#   c-api-1G-1thr       hipfile-bench -x 0 -i 1G -w 1 (one large call at a time, torch's shape;
#                       the name follows ONE_CALL)
#   kvikio-nvidia, torch-gds-nvidia   the same clients on NVIDIA's library, warm only: what
#                       happens there (on the H200 cuFileHandleRegister refuses the file: 5027)
#   kvikio-cpp-dropin   KvikIO's C++ kvikio::FileHandle (bench/competitors/kvikio-cpp-client.cpp,
#                       built here against the libkvikio wheel's headers and the installed
#                       cufile.h), compatibility mode OFF, pread of the whole file, warm and cold,
#                       and a pwrite/pread round trip, every byte checked; libkvikio dlopens
#                       libcufile.so.0, so LD_LIBRARY_PATH alone takes the drop-in
#   kvikio-cpp-compat   the same program with compatibility mode ON: KvikIO's POSIX path
#   cufile-python-dropin  cufile-python's own tests (tests/test_cufile.py of its wheel, run as
#                       they are: 16 MiB written and read back, every byte checked) on the
#                       drop-in; it loads "libcufile.so" itself. Needs .whl/cufile-python
#                       (bench/competitors/fetch-cufile-python-wheels.sh .whl/cufile-python)
# Drop-in rows run with LD_LIBRARY_PATH=<prefix>/lib/hipfile-cufile and must map that library
# (/proc/self/maps, checked in the process); a client that loads another libcufile by itself is
# run again with the drop-in in LD_PRELOAD, and its row says so. Each python row is one process
# that times warm, then cold (the data read by `cat`-like reads first for warm; sync and
# drop_caches for cold); each hipfile-bench row is one process per cache.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=${1:-${OUT:?usage: run_cufile_clients_h200.sh OUT_DIR (or OUT set)}}
SIZE=${SIZE:-4G}
DATA=${DATA:-/var/tmp/hipfile-cufile-clients-$SIZE.dat}
WORK=${WORK:-/tmp/hipfile-cufile-clients}
ROUNDTRIP=${ROUNDTRIP:-256M}
BUDGET_S=${BUDGET_S:-270}
ROW_TIMEOUT=${ROW_TIMEOUT:-90}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-180}
PYTHON=${PYTHON:-python3}
CC=${CC:-cc}
ONE_CALL=${ONE_CALL:-1G}
BUILD=${BUILD:-$WORK/build}
PREFIX=$WORK/prefix
DROPIN=$PREFIX/lib/hipfile-cufile
KV_SITE=$WORK/kvikio-site
NV_SITE=$WORK/nvidia-cufile-site
NV_LIB=$NV_SITE/nvidia/cu13/lib
CFP_SITE=$WORK/cufile-python-site
BENCH=$BUILD/tools/hipfile-bench/hipfile-bench
CLIENT=$HERE/python/cufile-client-bench.py
REPORT=$HERE/python/cufile-clients-report.py
MD=$OUT/cufile-clients.md
JSONL=$OUT/cufile-clients.jsonl
LOG=$OUT/cufile-clients.log
ERR=$WORK/step.err
START=$SECONDS

mkdir -p "$OUT" "$WORK"
: > "$JSONL"
: > "$LOG"
cd "$ROOT" || exit 1
# shellcheck source=bench/h200-prep.sh
source "$HERE/h200-prep.sh"
export -f h200_uring h200_build h200_install h200_kvikio

say() { echo "[+$((SECONDS - START))s] $*" | tee -a "$LOG"; }
record() { "$PYTHON" "$REPORT" line "$@" >> "$JSONL"; }  # record KEY=VALUE...
left() { echo $((BUDGET_S - (SECONDS - START))); }

# run_step NAME LIMIT STDOUT CMD...: CMD under timeout (LIMIT seconds, or what the budget has
# left), its stdout into the file STDOUT ("-": the log) and its stderr into $ERR, then the log.
# Returns CMD's status (124 on timeout); a step the budget leaves no time for is not started.
run_step() {
  local name=$1 limit=$2 out=$3 rc l
  shift 3
  : > "$ERR"
  l=$(left)
  if ((l < 5)); then
    say "skipped $name: the budget of $BUDGET_S s is spent"
    return 125
  fi
  ((limit > l)) && limit=$l
  say "$name (at most ${limit} s): $*"
  [[ $out == - ]] && out=$LOG
  local cmd=("$@")
  # timeout runs programs: a function (exported above) runs in a bash of its own.
  declare -F "$1" > /dev/null && cmd=(bash -c '"$@"' _ "$@")
  timeout -k 5 "$limit" "${cmd[@]}" >> "$out" 2> "$ERR"
  rc=$?
  cat "$ERR" >> "$LOG"
  ((rc == 124 || rc == 137)) && say "$name: timed out after $limit s"
  ((rc != 0)) && say "$name: exit status $rc"
  return "$rc"
}

# failure RC: why a step gave no result, from its exit status and the end of its stderr.
failure() {
  case $1 in
    125) echo "not started: the budget of $BUDGET_S s was spent"; return ;;
    124 | 137) echo -n "timed out" ;;
    *) echo -n "exit status $1" ;;
  esac
  echo ": $(tail -c 300 "$ERR" | tr '\n' ' ')"
}

# step NAME LIMIT CMD...: a set-up step; a failure becomes a row of its own.
step() {
  local rc
  run_step "$1" "$2" - "${@:3}"
  rc=$?
  ((rc != 0)) && record row="step $1" ok=false rc="$rc" error="$(failure "$rc")"
  return "$rc"
}

# cache_state CACHE: puts the data set in the page cache (warm, read by cat, never by the client)
# or out of it (cold); prints a note when it could not.
cache_state() {
  if [[ $1 == warm ]]; then
    timeout 60 cat "$DATA" > /dev/null || echo "the data set could not be read into the page cache"
  elif ! timeout 60 bash -c 'sync && echo 3 > /proc/sys/vm/drop_caches' 2> /dev/null; then
    echo "page cache not dropped (not root?)"
  fi
}

# --- hipfile-bench rows ---------------------------------------------------------------------
bench_row() {  # bench_row ROW CACHE ARGS...: one hipfile-bench process on the data set
  local row=$1 cache=$2 note="" line rc limit=$ROW_TIMEOUT
  shift 2
  rm -f "$WORK/row.out"
  [[ $cache == - ]] || note=$(cache_state "$cache")
  [[ $row == c-api-verify ]] && limit=150  # it may have to write the data set first
  run_step "$row $cache" "$limit" "$WORK/row.out" \
    "$BENCH" -f "$DATA" -s "$SIZE" -x 0 --json "$@" < /dev/null
  rc=$?
  line=$(grep '^{' "$WORK/row.out" | tail -1)
  rm -f "$WORK/row.out"
  if [[ $line == \{* ]]; then
    record row="$row" cache="$cache" tool=hipfile-bench r="$line" note="hipfile-bench -x 0 $* $note"
  else
    record row="$row" cache="$cache" ok=false rc="$rc" \
      error="no result line, $(failure "$rc")"
  fi
}

# --- the C program --------------------------------------------------------------------------
roundtrip_c_row() {  # roundtrip_c_row ROW LIBDIR|-: the reference program on the library in LIBDIR
  local row=$1 libdir=$2 rc out lib fields=()
  # LD_DEBUG=libs says which file the loader initialised: the library the program ran on.
  local env=(env -C "$WORK" LD_DEBUG=libs "LD_DEBUG_OUTPUT=$WORK/ld-debug" HIPFILE_LOG_LEVEL=info)
  [[ $libdir == - ]] || env+=("LD_LIBRARY_PATH=$libdir")
  rm -f "$WORK/row.out" "$WORK"/ld-debug.*
  run_step "$row" 60 "$WORK/row.out" "${env[@]}" "$WORK/cufile_roundtrip" "$WORK/roundtrip.bin"
  rc=$?
  out=$(tail -1 "$WORK/row.out" 2> /dev/null)
  lib=$(cat "$WORK"/ld-debug.* 2> /dev/null | grep -o 'calling init: [^ ]*libcufile[^ ]*' | head -1 |
        cut -d' ' -f3)
  rm -f "$WORK/row.out" "$WORK/roundtrip.bin" "$WORK"/ld-debug.*
  fields=(ok=false check_ok=false)
  ((rc == 0)) && fields[0]=ok=true
  [[ $out == OK* ]] && fields[1]=check_ok=true
  ((rc == 0)) || fields+=("error=$(failure "$rc")")
  grep -q "answered by hipfile's drop-in" "$ERR" && fields+=(dropin_log=true)
  record row="$row" cache=- rc="$rc" libcufile="${lib:-}" "${fields[@]}" \
    note="4 MiB written and read back: ${out:0:160}"
}

# --- the python clients ---------------------------------------------------------------------
# client_row ROW LIBRARY ARGS...: cufile-client-bench.py ARGS on the drop-in (LIBRARY dropin) or
# on whatever NVIDIA library the client finds (nvidia: the wheel's first on LD_LIBRARY_PATH), in
# at most CLIENT_LIMIT seconds (default ROW_TIMEOUT).
client_row() {
  local row=$1 library=$2 rc preload=false env own="[]"
  shift 2
  env=(env -C "$WORK" "PYTHONPATH=$KV_SITE${PYTHONPATH:+:$PYTHONPATH}")
  rm -f "$WORK/row.out"
  local args=(--row "$row" -f "$DATA" -s "$SIZE" "$@")
  if [[ $library == dropin ]]; then
    env+=("LD_LIBRARY_PATH=$DROPIN" HIPFILE_LOG_LEVEL=info)
    args+=(--expect-libcufile "$DROPIN")
  elif [[ -d $NV_LIB ]]; then
    env+=("LD_LIBRARY_PATH=$NV_LIB")
  fi
  run_step "$row" "${CLIENT_LIMIT:-$ROW_TIMEOUT}" "$WORK/row.out" "${env[@]}" "$PYTHON" "$CLIENT" \
    "${args[@]}"
  rc=$?
  if ((rc == 3)) && [[ $library == dropin ]]; then
    say "$row: the client mapped another libcufile by itself; again with the drop-in preloaded"
    cat "$WORK/row.out" >> "$LOG"
    own=$(grep -o '"libcufile": \[[^]]*\]' "$WORK/row.out" | head -1 | cut -d: -f2-)
    rm -f "$WORK/row.out"
    preload=true
    run_step "$row (LD_PRELOAD)" "${CLIENT_LIMIT:-$ROW_TIMEOUT}" "$WORK/row.out" "${env[@]}" \
      "LD_PRELOAD=$DROPIN/libcufile.so.0" "$PYTHON" "$CLIENT" "${args[@]}"
    rc=$?
  fi
  if grep -q '^{' "$WORK/row.out"; then
    "$PYTHON" "$REPORT" tag library="$library" preload="$preload" own_libcufile="${own:-[]}" \
      rc="$rc" \
      dropin_log="$(grep -q "answered by hipfile's drop-in" "$ERR" && echo true || echo false)" \
      < "$WORK/row.out" >> "$JSONL"
  else
    record row="$row" library="$library" ok=false rc="$rc" \
      error="no result line, $(failure "$rc")"
  fi
  rm -f "$WORK/row.out"
}

# --- KvikIO's C++ FileHandle and cufile-python ----------------------------------------------
# kvikio_cpp_row ROW LIBDIR MODE: the C++ client, warm then cold, on the libcufile in LIBDIR.
kvikio_cpp_row() {
  local row=$1 libdir=$2 mode=$3 cache rc note dropin
  local libs=$libdir:$KV_SITE/libkvikio/lib64:$KV_SITE/rapids_logger/lib64
  for cache in warm cold; do
    note=$(cache_state "$cache")
    rm -f "$WORK/row.out"
    run_step "$row $cache" "$ROW_TIMEOUT" "$WORK/row.out" env -C "$WORK" "LD_LIBRARY_PATH=$libs" \
      HIPFILE_LOG_LEVEL=info "$WORK/kvikio-cpp-client" "$DATA" "$(numfmt --from=iec "$SIZE")" \
      "$WORK/kvikio-cpp.scratch" "$mode" < /dev/null
    rc=$?
    dropin=false
    grep -q "answered by hipfile's drop-in" "$ERR" && dropin=true
    if grep -q '^{' "$WORK/row.out"; then
      # The round trip runs in each process; the cold one's is the same measurement again.
      grep '^{' "$WORK/row.out" | { [[ $cache == warm ]] && cat || grep -v roundtrip; } |
        "$PYTHON" "$REPORT" tag row="$row" cache="$cache" client=kvikio-cpp rc="$rc" \
          dropin_log="$dropin" libcufile="$libdir" note="compat mode $mode $note" >> "$JSONL"
    else
      record row="$row" cache="$cache" ok=false rc="$rc" error="no result line, $(failure "$rc")"
    fi
  done
  rm -f "$WORK/row.out"
}

# cufile_python_row ROW LIBDIR: cufile-python's own tests, unchanged, on the libcufile in LIBDIR
# (16 MiB buffers: the tests check each byte in a Python loop).
cufile_python_row() {
  local row=$1 libdir=$2 rc dropin=false passed
  rm -f "$WORK/row.out"
  run_step "$row" "${CLIENT_LIMIT:-$ROW_TIMEOUT}" "$WORK/row.out" env -C "$WORK" \
    "LD_LIBRARY_PATH=$libdir" "PYTHONPATH=$CFP_SITE:$KV_SITE" HIPFILE_LOG_LEVEL=info \
    TEST_CUFILE_BUF_SIZE=16 \
    "TEST_CUFILE_WORK_DIR=$WORK" "$PYTHON" -c '
import sys, traceback
import tests.test_cufile as t
failed = 0
for name in sorted(n for n in dir(t) if n.startswith("test_")):
    try:
        getattr(t, name)()
        print("PASS", name)
    except Exception:
        failed += 1
        print("FAIL", name, traceback.format_exc().splitlines()[-1])
import ctypes, os
print("maps:", sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcufile" in l}))
sys.exit(1 if failed else 0)' < /dev/null
  rc=$?
  grep -q "answered by hipfile's drop-in" "$ERR" && dropin=true
  passed=$(grep -c '^PASS' "$WORK/row.out" 2> /dev/null)
  local maps rate
  maps=$(grep -o "^maps: .*" "$WORK/row.out" | cut -d' ' -f2- | tr "'" '"')
  rate=$(grep -o 'READ (w/o open/register) [^(]*(\([0-9.]*\)GB/s' "$WORK/row.out" | head -1 |
         grep -o '([0-9.]*' | tr -d '(')
  record row="$row" cache=- ok="$( ((rc == 0)) && echo true || echo false)" rc="$rc" \
    check_ok="$( ((rc == 0)) && echo true || echo false)" dropin_log="$dropin" \
    libcufile="${maps:-[]}" \
    note="its tests: $passed passed; $(grep '^FAIL' "$WORK/row.out" | head -2 | tr '\n' ' ')read ${rate:-?} GiB/s (16 MiB, its own timing)"
  cat "$WORK/row.out" >> "$LOG"
  rm -f "$WORK/row.out"
}

# --- the run --------------------------------------------------------------------------------
{
  echo "# run_cufile_clients_h200.sh, $(date -u +%FT%TZ)," \
    "$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo 'no git')"
  uname -r
  timeout 20 nvidia-smi -L 2> /dev/null || echo "nvidia-smi: none"
  "$PYTHON" -c 'import sys; print("python", sys.version.split()[0])'
  timeout 30 "$PYTHON" -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1 |
    tail -1
  timeout 30 "$PYTHON" -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
  echo "libcufile on the loader's path:" \
    "$(ldconfig -p 2> /dev/null | grep -o '/[^ ]*libcufile\.so\.0$' | tr '\n' ' ')"
  mkdir -p "$(dirname "$DATA")" && echo "data set: $DATA on $(stat -f -c %T "$(dirname "$DATA")")," \
    "$(df -h --output=avail "$(dirname "$DATA")" | tail -1 | tr -d ' ') free"
} > "$WORK/machine.txt" 2>&1
cat "$WORK/machine.txt" >> "$LOG"

# The helpers keep their output in a log of their own (BUILD.log, ...): its end joins ours.
if [[ ${SKIP_BUILD:-0} == 1 ]]; then
  say "build: skipped (SKIP_BUILD=1), $BUILD used as it is"
else
  step build "$BUILD_TIMEOUT" h200_build "$BUILD" hipfile hipfile_cufile hipfile-bench ||
    { echo "--- $BUILD.log, last 30 lines"; tail -30 "$BUILD.log"; } >> "$LOG" 2>&1
fi
step install 60 h200_install "$BUILD" "$PREFIX" ||
  { echo "--- $PREFIX.log, last 30 lines"; tail -30 "$PREFIX.log"; } >> "$LOG" 2>&1
step wheels 90 h200_kvikio "$KV_SITE" "$NV_SITE" ||
  { echo "--- $KV_SITE.log, last 30 lines"; tail -30 "$KV_SITE.log"; } >> "$LOG" 2>&1
[[ -f $DROPIN/libcufile.so.0 ]] || say "no drop-in at $DROPIN: the drop-in rows will fail"

bench_row c-api-verify - -i 16M -w 8 -V

if step compile-roundtrip.c 60 "$CC" -std=c11 -D_GNU_SOURCE -O2 -I"$PREFIX/include/hipfile-cufile" \
  tests/compat/cufile_program/cufile_roundtrip.c -o "$WORK/cufile_roundtrip" \
  -L"$DROPIN" -lcufile -ldl; then
  roundtrip_c_row roundtrip.c-dropin "$DROPIN"
  nv=-  # without the wheel, whichever libcufile the loader finds
  [[ -d $NV_LIB ]] && nv=$NV_LIB
  roundtrip_c_row roundtrip.c-nvidia "$nv"
fi

client_row kvikio-dropin dropin --client kvikio --kvikio-compat OFF --roundtrip "$ROUNDTRIP"
client_row torch-gds-dropin dropin --client torch-gds --roundtrip "$ROUNDTRIP"
client_row kvikio-compat nvidia --client kvikio --kvikio-compat ON --roundtrip 0
for cache in warm cold; do
  bench_row c-api-16M-8thr "$cache" -i 16M -w 8
  bench_row "c-api-$ONE_CALL-1thr" "$cache" -i "$ONE_CALL" -w 1
done
# Expected to fail at the first registration: a shorter limit, in case NVIDIA's library waits.
CLIENT_LIMIT=45 client_row kvikio-nvidia nvidia --client kvikio --kvikio-compat OFF --caches warm \
  --roundtrip 0
CLIENT_LIMIT=45 client_row torch-gds-nvidia nvidia --client torch-gds --caches warm --roundtrip 0

# KvikIO's C++ API, built here against the wheel's headers and the drop-in's installed cufile.h.
if [[ ! -d $KV_SITE/libkvikio/include ]]; then
  say "no KvikIO headers in $KV_SITE: the C++ rows are left out"
elif step compile-kvikio-cpp 90 g++ -std=c++17 -O2 -DKVIKIO_CUFILE_FOUND -DKVIKIO_LIBCURL_FOUND \
  -DKVIKIO_CUFILE_VERSION_API_FOUND -isystem "$KV_SITE/libkvikio/include" \
  -I"$PREFIX/include/hipfile-cufile" -I"${CUDA_HOME:-/usr/local/cuda}/include" \
  "$HERE/competitors/kvikio-cpp-client.cpp" -o "$WORK/kvikio-cpp-client" \
  -L"$KV_SITE/libkvikio/lib64" -lkvikio -L"${CUDA_HOME:-/usr/local/cuda}/lib64/stubs" -lcuda \
  -Wl,--allow-shlib-undefined; then
  kvikio_cpp_row kvikio-cpp-dropin "$DROPIN" off
  kvikio_cpp_row kvikio-cpp-compat "$NV_LIB" on
fi
if ls .whl/cufile-python/cufile_python-*.whl > /dev/null 2>&1 &&
  step wheels-cufile-python 90 "$PYTHON" -m pip install -q --no-index --no-deps --target \
    "$CFP_SITE" .whl/cufile-python/*.whl; then
  cufile_python_row cufile-python-dropin "$DROPIN"
  CLIENT_LIMIT=45 cufile_python_row cufile-python-nvidia "$NV_LIB"
else
  say "no .whl/cufile-python: bench/competitors/fetch-cufile-python-wheels.sh .whl/cufile-python"
fi

if [[ -s $WORK/cufile.log ]]; then  # NVIDIA's library writes its log in the working directory
  { echo "--- NVIDIA's cufile.log (last 40 lines)"; tail -40 "$WORK/cufile.log"; } >> "$LOG"
fi
{
  echo "# cuFile clients on the drop-in: $(date -u +%F)," \
    "$(timeout 20 nvidia-smi -L 2> /dev/null | head -1 | cut -d'(' -f1)"
  echo
  echo "bench/run_cufile_clients_h200.sh: $SIZE of $DATA, GB/s = 10^9 bytes a second, warm = in"
  echo "the page cache, cold = dropped first. Raw lines in cufile-clients.jsonl, every step in"
  echo "cufile-clients.log. Run took $((SECONDS - START)) s."
  echo
  echo '```'
  cat "$WORK/machine.txt"
  echo '```'
  echo
  "$PYTHON" "$REPORT" summary "$JSONL"
} > "$MD" 2>> "$LOG"
cat "$MD"
say "done in $((SECONDS - START)) s"
