#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CTest bench.loader-bench: the loader benchmark's parts that need no GPU and no torch
# (bench/python/loader-bench-test.py) in a virtual environment holding NumPy, safetensors and
# ml_dtypes from PyPI (made once in WORK, skipped with exit 77 where PyPI cannot be reached),
# and its shell scripts through bash -n and, where installed, shellcheck.
#
#   loader_bench_test.sh PYTHON3 WORK
set -euo pipefail
PYTHON=$1
WORK=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$WORK"
py=$WORK/venv/bin/python
if ! "$py" -c 'import numpy, safetensors, ml_dtypes' 2> /dev/null; then
  rm -rf "$WORK/venv"
  "$PYTHON" -m venv "$WORK/venv"
  if ! "$py" -m pip install -q numpy safetensors ml_dtypes > "$WORK/pip.log" 2>&1; then
    if grep -qiE "connection|resolve|network|unreachable|timed out|No matching distribution" \
        "$WORK/pip.log"; then
      echo "SKIP: PyPI is not reachable"
      exit 77
    fi
    cat "$WORK/pip.log"
    exit 1
  fi
fi
scripts=("$HERE/run_loader_h200.sh" "$HERE/competitors/fetch-loader-wheels.sh" "$0")
for s in "${scripts[@]}"; do
  bash -n "$s" || echo "FAIL: bash -n $s"
done
if command -v shellcheck > /dev/null; then
  shellcheck "${scripts[@]}" || echo "FAIL: shellcheck"
fi
"$py" "$HERE/python/loader-bench-test.py" "$WORK/test"
