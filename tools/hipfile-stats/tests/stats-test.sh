#!/bin/sh
# SPDX-License-Identifier: MIT
# stats-test.sh TOOL KNOWN_IO DIR CASE [PYTHON]: hipfile-stats as a user types it, against known-io
# (I/O of known sizes; it writes what they add up to). CASE:
#   json     hipfile-stats --json PROGRAM: totals and per-path sums match what the program did,
#            its stream-ordered operations are counted once each by way ("async_ways"), and its
#            waits for the library's copies are there ("copy_waits": some on cpu-staged, none
#            on cpu, where nothing is staged)
#   wrapper  the same through sh -c: the program's library finds the region the tool handed down
#   attach   -p PID -i while it waits (its own totals), -p PID until it exits (its final totals),
#            the region's mode (0600), nothing left under /dev/shm after
#   watch    --watch prints rate lines while it runs, then the report
#   none     -p of a process without the library, and of no process: exit 1, one line
#   tables   --json's "gpus" and "latency" hold each transfer in its size bucket and backend, and
#            add up to the totals (check-tables.py, run by PYTHON); the text report has them too,
#            its stream-ordered operations by way and, where transfers were staged, its copy waits
#   level0   a program at HIPFILE_STATS_LEVEL=0 publishes level 0 and zeros: -p PID -i reports
#            them (exit 0), as does hipfile-stats PROGRAM
# Prints "stats-test: ok" at the end when every check passed.
set -u
tool=$1 known=$2 dir=$3 case=$4 python=${5:-python3}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "stats-test: $case: $*" >&2; exit 1; }

# key=value from the expect file (line 1: totals; line 2: after --wait)
want() { tr ' ' '\n' < "$dir/expect" | sed -n "s/^$1=//p"; }
# a top-level number of a --json object
top() { sed 's/, "paths".*//' "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }
# the sum over paths of one of their numbers
paths_sum() { sed 's/.*"paths": //' "$1" | grep -o "\"$2\": [0-9]*" | awk '{s += $2} END {print s + 0}'; }
path() { sed "s/.*\"$2\": {\"read_bytes\": \([0-9]*\), \"write_bytes\": \([0-9]*\).*/\1 \2/" "$1"; }
# the sum over "async_ways"' ways of read_ops or write_ops
ways_sum() { sed 's/.*"async_ways": //' "$1" | grep -o "\"$2\": [0-9]*" | awk '{s += $2} END {print s + 0}'; }

check_json() {  # FILE READ_BYTES WRITE_BYTES [READ_OPS WRITE_OPS [ASYNC_READ_OPS ASYNC_WRITE_OPS]]
  json=$1
  [ "$(wc -l < "$json")" -eq 1 ] || fail "--json printed $(wc -l < "$json") lines, not one object"
  [ "$(top "$json" read_bytes)" = "$2" ] || fail "read_bytes $(top "$json" read_bytes), did $2"
  [ "$(top "$json" write_bytes)" = "$3" ] || fail "write_bytes $(top "$json" write_bytes), did $3"
  if [ $# -ge 5 ]; then
    [ "$(top "$json" read_ops)" = "$4" ] || fail "read_ops $(top "$json" read_ops), did $4"
    [ "$(top "$json" write_ops)" = "$5" ] || fail "write_ops $(top "$json" write_ops), did $5"
  fi
  if [ $# -ge 7 ]; then
    grep -q '"async_ways": {"run_at_once": {' "$json" || fail "no async_ways"
    [ "$(ways_sum "$json" read_ops)" = "$6" ] || fail "async_ways' read_ops $(ways_sum "$json" read_ops), did $6"
    [ "$(ways_sum "$json" write_ops)" = "$7" ] || fail "async_ways' write_ops $(ways_sum "$json" write_ops), did $7"
  fi
  [ "$(top "$json" errors)" = 0 ] || fail "errors $(top "$json" errors)"
  [ "$(paths_sum "$json" read_bytes)" = "$(top "$json" read_bytes)" ] || fail "paths' read_bytes"
  [ "$(paths_sum "$json" write_bytes)" = "$(top "$json" write_bytes)" ] || fail "paths' write_bytes"
  ops=$(($(top "$json" read_ops) + $(top "$json" write_ops)))
  [ "$(paths_sum "$json" ops)" = "$ops" ] || fail "paths' ops $(paths_sum "$json" ops), not $ops"
  # the waits for the library's copies: none where nothing is staged
  waits=$(sed -n 's/.*"copy_waits": {"waits": \([0-9]*\), "slept": [0-9]*, "poll_ms": [0-9.]*, "sleep_ms": [0-9.]*}}$/\1/p' "$json")
  [ -n "$waits" ] || fail "no copy_waits at the end: $(cat "$json")"
  [ "$2$3" = 00 ] && { [ "$waits" = 0 ] || fail "copy waits $waits at level 0"; return; }
  case "${HIPFILE_RUNTIME:-cpu}" in
    cpu)
      [ "$(path "$json" host)" = "$2 $3" ] || fail "on cpu every byte is host's: $(cat "$json")"
      [ "$waits" = 0 ] || fail "copy waits $waits on cpu, where nothing is staged" ;;
    cpu-staged)  # a GPU's paths: aligned 1 MiB writes by O_DIRECT, 4 KiB reads buffered (small)
      set -- $(path "$json" direct)
      [ "$2" -gt 0 ] || fail "no direct write bytes on cpu-staged: $(cat "$json")"
      set -- $(path "$json" buffered)
      [ "$1" -gt 0 ] || fail "no buffered read bytes on cpu-staged: $(cat "$json")"
      [ "$waits" -gt 0 ] || fail "no copy waits on cpu-staged, whose transfers are staged" ;;
  esac
}

wait_for() {  # FILE PATTERN: up to 30 s
  i=0
  until grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le 300 ] || fail "no '$2' in $1 after 30 s"
    sleep 0.1
  done
}

case $case in
json | wrapper)
  if [ "$case" = json ]; then
    "$tool" --json "$known" "$dir/io.dat" "$dir/expect" > "$dir/out.json"
  else
    "$tool" --json sh -c '"$@"' sh "$known" "$dir/io.dat" "$dir/expect" > "$dir/out.json"
  fi
  rc=$?
  cat "$dir/out.json"
  [ $rc -eq 0 ] || fail "exit status $rc"
  check_json "$dir/out.json" "$(want read_bytes)" "$(want write_bytes)" "$(want read_ops)" \
    "$(want write_ops)" "$(want async_read_ops)" "$(want async_write_ops)"
  ;;
attach)
  mkfifo "$dir/go" || exit 1
  "$known" "$dir/io.dat" "$dir/expect" --wait < "$dir/go" > "$dir/program.out" &
  pid=$!
  exec 3> "$dir/go"
  wait_for "$dir/program.out" '^ready$'
  mode=
  for fd in /proc/$pid/fd/*; do
    case $(readlink "$fd") in /memfd:hipfile-stats*) mode=$(stat -L -c %a "$fd") ;; esac
  done
  [ "$mode" = 600 ] || fail "the region's mode is '$mode', not 600"
  "$tool" -p "$pid" -i --json > "$dir/now.json" || fail "-p $pid -i exited $?"
  cat "$dir/now.json"
  check_json "$dir/now.json" "$(want read_bytes)" "$(want write_bytes)" "$(want read_ops)" \
    "$(want write_ops)" "$(want async_read_ops)" "$(want async_write_ops)"
  "$tool" -p "$pid" --json > "$dir/final.json" &
  tpid=$!
  # Once the tool has the region mapped, the program may go.
  wait_for /proc/$tpid/maps 'memfd:hipfile-stats'
  echo go >&3
  exec 3>&-
  wait $pid || fail "known-io exited $?"
  wait $tpid || fail "-p $pid exited $?"
  cat "$dir/final.json"
  check_json "$dir/final.json" "$(want after_wait_read_bytes)" "$(want after_wait_write_bytes)"
  ls /dev/shm 2>/dev/null | grep -q hipfile && fail "a file is left under /dev/shm"
  ;;
watch)
  mkfifo "$dir/go" || exit 1
  "$tool" --watch 0.1 "$known" "$dir/io.dat" "$dir/expect" --wait < "$dir/go" > "$dir/out" 2>&1 &
  tpid=$!
  exec 3> "$dir/go"
  wait_for "$dir/out" '^ready$'
  sleep 0.5
  echo go >&3
  exec 3>&-
  wait $tpid || fail "exit status $?"
  cat "$dir/out"
  grep -Eq '^[0-9]+\.[0-9] s: read [0-9.]+ GiB/s [0-9]+ IOPS, write [0-9.]+ GiB/s [0-9]+ IOPS' \
    "$dir/out" || fail "no rate line"
  grep -q '^AIS-STATS Version: 1$' "$dir/out" || fail "no report after the rates"
  ;;
none)
  sleep 30 &
  pid=$!
  "$tool" -p "$pid" -i > "$dir/out" 2> "$dir/err"
  rc=$?
  kill $pid
  cat "$dir/err"
  [ $rc -eq 1 ] || fail "-p of a process without the library exited $rc"
  grep -q "^hipfile-stats: -p $pid: no statistics: it publishes none" "$dir/err" || fail "message"
  [ ! -s "$dir/out" ] || fail "printed a report"
  "$tool" -p 1073741822 -i 2> "$dir/err"
  rc=$?
  cat "$dir/err"
  [ $rc -eq 1 ] || fail "-p of no process exited $rc"
  grep -q '^hipfile-stats: -p 1073741822: no such process$' "$dir/err" || fail "message"
  ;;
tables)
  "$tool" --json "$known" "$dir/io.dat" "$dir/expect" > "$dir/out.json" || fail "exit status $?"
  cat "$dir/out.json"
  "$python" "$(dirname "$0")/check-tables.py" "$dir/out.json" "$dir/expect" \
    "${HIPFILE_RUNTIME:-cpu}" || fail "the tables"
  "$tool" -o "$dir/out.txt" "$known" "$dir/io.dat" "$dir/expect" || fail "exit status $?"
  # The program's stream-ordered reads are staged on cpu-staged; on cpu they run in host
  # functions on their stream (or at once); it makes no stream-ordered write.
  host_fn='^  host_function +0 +0$'
  [ "${HIPFILE_RUNTIME:-cpu}" = cpu ] && host_fn='^  host_function +[0-9]+ +0$'
  for line in '^GPU 0:$' '^IO Size Histogram$' '^IO Bandwidth Histogram$' \
    '^IO Latency Histogram$' '^IO Errors Histogram$' '^Fallback Write Unaligned Count: [01]$' \
    '^1024-2048 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' '^65536-\.\.\. +0 +0 +0 +0$' \
    '^Latency Histogram \(us\) +Read Count +Write Count$' '^GPU 0 uuid: [0-9a-f-]{36}$' \
    '^Stream-ordered operations:$' '^  Way +Reads +Writes$' "$host_fn" \
    '^  staged: [0-9]+ in large chunks, [0-9]+ queued alone, [0-9]+ waited for a block; reads copied ahead [0-9]+ \([0-9]+ used, [0-9]+ on a companion stream, [0-9]+ in parts\), not [0-9]+ \([0-9]+ not all in pinned windows, [0-9]+ no room\); [0-9]+ reads copied in one launch; [0-9]+ not in parts, by the device.s measure$'; do
    grep -Eq "$line" "$dir/out.txt" || fail "no line '$line' in the report"
  done
  # The waits for the library's copies: a line on cpu-staged, none on cpu (nothing staged).
  waits='^Copy waits: [1-9][0-9]*, [0-9]+ slept \([0-9.]+%\); polled [0-9.]+ ms, asleep [0-9.]+ ms$'
  if [ "${HIPFILE_RUNTIME:-cpu}" = cpu ]; then
    ! grep -q '^Copy waits' "$dir/out.txt" || fail "a copy waits line on cpu"
  else
    grep -Eq "$waits" "$dir/out.txt" || fail "no line '$waits' in the report"
  fi
  # The latency rows add up to the transfers.
  rows=$(sed -n '/^Latency Histogram/,/^GPU 0 uuid/p' "$dir/out.txt" | awk 'NF == 3 && $1 ~ /^[0-9]/ {s += $2 + $3} END {print s + 0}')
  [ "$rows" = $(($(want read_ops) + $(want write_ops))) ] || fail "latency rows add up to $rows"
  # The way rows add up to the stream-ordered operations.
  rows=$(sed -n '/^Stream-ordered operations:/,/^  staged:/p' "$dir/out.txt" | awk 'NF == 3 && $2 ~ /^[0-9]+$/ {s += $2 + $3} END {print s + 0}')
  [ "$rows" = $(($(want async_read_ops) + $(want async_write_ops))) ] || fail "way rows add up to $rows"
  ;;
level0)
  mkfifo "$dir/go" || exit 1
  HIPFILE_STATS_LEVEL=0 "$known" "$dir/io.dat" "$dir/expect" --wait < "$dir/go" > "$dir/program.out" &
  pid=$!
  exec 3> "$dir/go"
  wait_for "$dir/program.out" '^ready$'
  "$tool" -p "$pid" -i > "$dir/now.txt" 2> "$dir/err" || fail "-p $pid -i of a level-0 process exited $?"
  echo go >&3
  exec 3>&-
  wait $pid || fail "known-io exited $?"
  cat "$dir/now.txt" "$dir/err"
  grep -q '^HipFile Stats Level: 0$' "$dir/now.txt" || fail "no 'HipFile Stats Level: 0'"
  grep -q '^Total Fastpath Read Size (B): 0$' "$dir/now.txt" || fail "read bytes counted at level 0"
  grep -q '^File Handle Registrations: 0$' "$dir/now.txt" || fail "registrations counted at level 0"
  grep -q '^GPU ' "$dir/now.txt" && fail "a GPU in use at level 0"
  HIPFILE_STATS_LEVEL=0 "$tool" --json "$known" "$dir/io.dat" "$dir/expect" > "$dir/out.json" \
    2> "$dir/err" || fail "exit status $?"
  cat "$dir/out.json" "$dir/err"
  grep -q 'published no statistics' "$dir/err" && fail "level 0 reported as no statistics"
  check_json "$dir/out.json" 0 0 0 0 0 0
  grep -q '^Stream-ordered operations:$' "$dir/now.txt" && fail "stream-ordered operations counted at level 0"
  grep -q '"gpus": \[\]' "$dir/out.json" || fail "a GPU in use at level 0"
  ;;
*) fail "unknown case" ;;
esac
echo "stats-test: ok"
