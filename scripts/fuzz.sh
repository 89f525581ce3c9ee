#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target over the C API (tests/fuzz/api_fuzzer.cc) with clang into build-fuzz/
# and runs it for FUZZ_SECONDS (default 60), starting from the committed corpus tests/fuzz/corpus,
# which is only read: new inputs go to build-fuzz/corpus. Prints the number of inputs executed.
# A crash, a sanitizer report, a broken invariant or a hang (FUZZ_TIMEOUT seconds for one input,
# default 60) fails the script; the input is saved as build-fuzz/crash-* (or timeout-*, oom-*) and
# replays with build-fuzz/tests/fuzz/api_fuzzer "$PWD/FILE" (an absolute path: the harness works
# in a temporary folder of its own, so that files the input names land there).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}

cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIPFILE_FUZZ=ON -DHIPFILE_WERROR=ON \
  -DHIPFILE_BUILD_TESTS=OFF -DHIPFILE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-fuzz --target api_fuzzer

mkdir -p build-fuzz/corpus
log=build-fuzz/fuzz.log
# -close_fd_mask=2 silences the library's log lines; libFuzzer's own output, sanitizer reports and
# the harness's invariant messages still come through.
status=0
# Absolute paths: the harness works in a folder of its own (it changes directory at start).
root=$PWD
build-fuzz/tests/fuzz/api_fuzzer -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-60}" \
  -max_len=1024 -len_control=20 -close_fd_mask=2 -print_final_stats=1 \
  -artifact_prefix="$root/build-fuzz/" "$root/build-fuzz/corpus" "$root/tests/fuzz/corpus" \
  >"$log" 2>&1 || status=$?
if ((status != 0)); then
  grep -v -e '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' -e 'NEW_FUNC' "$log" | tail -n 80
  echo "fuzz: FAILED (exit $status); full log in $log" >&2
  exit "$status"
fi
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
grep -e '^stat::' "$log"
echo "fuzz executions: $executions in $seconds s (corpus tests/fuzz/corpus + build-fuzz/corpus)"
