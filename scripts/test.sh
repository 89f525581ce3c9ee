#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the whole test suite (unit, system, example and compat tests) on a fresh build in
# build/ (configured by scripts/setup.sh, or here if it is missing), with warnings as errors.
# Extra arguments go to ctest, e.g. scripts/test.sh -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build -G Ninja -DHIPFILE_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 300 "$@"
