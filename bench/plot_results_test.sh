#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/plot_results.py as a user runs it on their own hipfile-bench --json lines: readable labels
# and the runtime that measured them (--check prints what the chart would draw, without
# matplotlib), and a missing file or a bad line reported with exit status 2 and no traceback.
#
#   plot_results_test.sh PYTHON HIPFILE_BENCH WORK_DIR
set -uo pipefail
PY=$1
BENCH=$2
WORK=$3
PLOT=$(dirname "$0")/plot_results.py
rm -rf "$WORK"
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

out=$("$PY" "$PLOT" "$WORK/missing.jsonl" 2>&1); rc=$?
[[ $rc == 2 && $out == "plot_results.py: $WORK/missing.jsonl: No such file or directory" ]] ||
  fail "missing file: exit $rc: $out"
printf '{"case": "x", "ok": true}\nnot json\n' > "$WORK/bad.jsonl"
out=$("$PY" "$PLOT" "$WORK/bad.jsonl" 2>&1); rc=$?
[[ $rc == 2 && $out == "plot_results.py: $WORK/bad.jsonl:2: not a JSON line"* ]] ||
  fail "bad line: exit $rc: $out"
[[ $out != *Traceback* ]] || fail "a traceback: $out"

export HIPFILE_RUNTIME=cpu
"$BENCH" -f "$WORK/d.dat" -s 8M -i 1M -w 2 -x 0 --json > "$WORK/own.jsonl" 2>/dev/null || fail "-x 0"
"$BENCH" -f "$WORK/d.dat" -s 8M -i 4K -w 2 -x 6 -I 2 -T 1 --json >> "$WORK/own.jsonl" 2>/dev/null ||
  fail "-x 6"
out=$("$PY" "$PLOT" "$WORK/own.jsonl" --check 2>&1) || fail "--check: $out"
echo "$out"
grep -q $'^warm\thipFile (ours)\t-x 0 GPUD READ 1M x2\t1 run(s)$' <<< "$out" || fail "the -x 0 label"
grep -q $'^rand\thipFile (ours)\t-x 6 GPU_BATCH RANDREAD 4K x2 Q128\t1 run(s)$' <<< "$out" ||
  fail "the -x 6 label"
grep -q $'^runtime\tcpu$' <<< "$out" || fail "the runtime"
echo "OK  plot_results.py: labels, runtime and bad input"
