#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# AMD's Python bindings (the `hipfile` sdist on PyPI, built with Cython against hipfile.h) built
# against this library's installed package and run, as docs/python.md tells a user to:
#   1. install the build into a scratch prefix;
#   2. a fresh virtual environment with scikit-build-core and Cython;
#   3. AMD's sdist (AMD_HIPFILE_VERSION) built with ROCM_PATH at the prefix, its HIP header
#      directory pointed at the prefix's compat headers and the prefix's lib as run path;
#   4. a round trip through a registered buffer (round_trip.py) with LD_LIBRARY_PATH unset;
#   5. the prefix's rocm-layout component installed, the same round trip with the buffer from
#      AMD's hipfile.hipMalloc helper, which loads libamdhip64.so by name (the prefix's lib in
#      LD_LIBRARY_PATH, as ROCm's is in the loader's path).
# Needs PyPI: without it the test is skipped (exit 77).
#
#   amd_python_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
BUILD=$1
WORK=$2
VERSION=${AMD_HIPFILE_VERSION:-0.4.0.dev0}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
prefix=$WORK/prefix
cmake --install "$BUILD" --prefix "$prefix" > /dev/null
python3 -m venv "$WORK/venv"
py=$WORK/venv/bin/python
export PATH=$WORK/venv/bin:$PATH  # AMD's CMakeLists finds `cython` on the PATH
if ! "$py" -m pip install -q scikit-build-core cython > "$WORK/pip.log" 2>&1; then
  if grep -qiE "connection|resolve|network|unreachable|timed out" "$WORK/pip.log"; then
    echo "SKIP: PyPI is not reachable"; exit 77
  fi
  cat "$WORK/pip.log"; exit 1
fi
"$py" -m pip download -q --no-deps --no-binary :all: --no-build-isolation -d "$WORK/sdist" \
  "hipfile==$VERSION" > "$WORK/download.log" 2>&1 || { cat "$WORK/download.log"; exit 1; }
unset LD_LIBRARY_PATH
ROCM_PATH=$prefix "$py" -m pip install -q --no-build-isolation "$WORK"/sdist/hipfile-*.tar.gz \
  -C cmake.define.HIP_INCLUDE_DIR="$prefix/include/hipfile/compat" \
  -C cmake.define.CMAKE_INSTALL_RPATH="$prefix/lib" > "$WORK/build.log" 2>&1 ||
  { cat "$WORK/build.log"; exit 1; }
cd "$WORK"
HIPFILE_RUNTIME=${HIPFILE_RUNTIME:-cpu} "$py" "$HERE/round_trip.py"
cmake --install "$BUILD" --prefix "$prefix" --component rocm-layout > /dev/null
LD_LIBRARY_PATH=$prefix/lib HIPFILE_RUNTIME=${HIPFILE_RUNTIME:-cpu} "$py" "$HERE/round_trip.py" \
  --amd-hipmalloc
