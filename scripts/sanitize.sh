#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the library and its tests with sanitizers and runs the unit, system and stress tests on
# the CPU runtime:
#   scripts/sanitize.sh address   ASan + UBSan, in build-asan/
#   scripts/sanitize.sh thread    TSan, in build-tsan/
#   scripts/sanitize.sh [all]     both
# The first sanitizer report ends the test process with a failure, which fails the script. The
# format check and the installed-package test are left out (nothing for a sanitizer to see; the
# latter is not defined in sanitizer builds). Extra arguments go to ctest, e.g. -R Batch.
# HIPFILE_STRESS_SECONDS sets the stress test's length (5 s here by default).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
(($#)) && shift
case "$mode" in
  address | thread | all) ;;
  *)
    echo "usage: $0 [address|thread|all] [ctest arguments]" >&2
    exit 2
    ;;
esac
jobs=$(nproc)
export HIPFILE_STRESS_SECONDS=${HIPFILE_STRESS_SECONDS:-5}
export HIPFILE_RUNTIME=${HIPFILE_RUNTIME:-cpu}
# -fno-sanitize-recover=all (CMakeLists.txt) makes UBSan stop at its first report; these make
# ASan and TSan stop at theirs, with a non-zero exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}halt_on_error=1:detect_leaks=1:strict_init_order=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}halt_on_error=1:exitcode=66:second_deadlock_stack=1

# -O1 and line tables only (-g1: a report's stack still names each function, file and line)
# rather than RelWithDebInfo's -O2 -g: the sanitizers' documented level, and half the compile
# time (a reliability test under ASan+UBSan: 61 s at -O2 -g, 29 s at -O1 -g1), which is most of
# CI's time (docs/reliability.md).
opt="-O1 -g1 -DNDEBUG"

run() {
  local dir=$1 sanitizers=$2
  shift 2
  local start=$SECONDS
  # (set -e does not reach into a function called left of ||: each step says how it failed.)
  summary+=("sanitize $sanitizers: build FAILED")
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIPFILE_WERROR=ON \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
    -DHIPFILE_SANITIZE="$sanitizers" >/dev/null || return
  cmake --build "$dir" -j "$jobs" || return
  unset 'summary[-1]'
  local built=$SECONDS status=0
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 600 \
    -L 'unit|system|stress' -E '^(format|compat)\.' "$@" || status=$?
  local verdict=clean
  if ((status != 0)); then
    verdict=FAILED
    # CI keeps only the end of the log, where the other sanitizer's run would bury this one's
    # failures: name them in the summary, and run them again at the end (rerun_failed).
    local failed_log="$dir/Testing/Temporary/LastTestsFailed.log"
    [[ -s $failed_log ]] && verdict+=" ($(cut -d: -f2 "$failed_log" | paste -sd' '))"
    rerun+=("$dir")
  fi
  summary+=("sanitize $sanitizers: build $((built - start)) s, tests $((SECONDS - built)) s, $verdict")
  return "$status"
}

# Runs the failed tests of each failed run again, with their output, so that it ends the log; the
# verdict stands whatever they do now (a failure that does not come again is still a failure).
rerun_failed() {
  local dir
  for dir in "${rerun[@]}"; do
    echo "=== $dir: the failed tests again, with their output"
    ctest --test-dir "$dir" --output-on-failure --timeout 600 --rerun-failed || true
  done
}

# Both suites run even when the first fails; the script fails if either did.
summary=()
rerun=()
failed=0
if [[ $mode == address || $mode == all ]]; then run build-asan address,undefined "$@" || failed=1; fi
if [[ $mode == thread || $mode == all ]]; then run build-tsan thread "$@" || failed=1; fi
rerun_failed
printf '%s\n' "${summary[@]}"
exit "$failed"
