#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package as a user gets it (CTest python.package, label python):
#   1. `pip install SRC` into a fresh virtual environment holding only NumPy, pytest, and the
#      `safetensors` package and ml_dtypes that test_safetensors.py compares with (the build
#      requirements, scikit-build-core and nanobind, come through pip's build isolation);
#   2. pytest over python/tests from outside the tree, LD_LIBRARY_PATH unset, on the runtime the
#      library picks and on cpu-staged (a GPU's data paths on the CPU runtime);
#   3. tests/compat/amd_python/round_trip.py, written for AMD's package, run unchanged with this
#      one installed in its place (its buffer from ctypes and from hipfile.hipMalloc);
#   4. an sdist built from SRC (PyPA's `build`), installed into a second fresh environment, and
#      the round trip run there.
# Needs PyPI: without it the test is skipped (exit 77).
#
#   run.sh SRC WORK
set -euo pipefail
SRC=$(cd "$1" && pwd)
WORK=$2
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
unset LD_LIBRARY_PATH PYTHONPATH

pip_or_skip() {  # pip_or_skip PYTHON LOG ARGS...: pip install, exit 77 when PyPI is unreachable
  local py=$1 log=$2
  shift 2
  if ! "$py" -m pip install -q "$@" > "$log" 2>&1; then
    if grep -qiE "connection|resolve|network|unreachable|timed out|No matching distribution" \
        "$log"; then
      echo "SKIP: PyPI is not reachable"
      exit 77
    fi
    cat "$log"
    exit 1
  fi
}

rm -rf "$WORK/venv" "$WORK/venv-sdist" "$WORK/dist" "$WORK/run"
python3 -m venv "$WORK/venv"
py=$WORK/venv/bin/python
pip_or_skip "$py" "$WORK/pip-deps.log" numpy pytest build safetensors ml_dtypes
# build-dir persists between runs: CMake rebuilds only what changed.
pip_or_skip "$py" "$WORK/pip-install.log" "$SRC" -C build-dir="$WORK/build"

mkdir -p "$WORK/run"
cd "$WORK/run"  # outside the tree: `import hipfile` is the installed package
"$py" -c 'import hipfile, sys; print("hipfile", hipfile.__version__, "from", hipfile.__file__, "runtime", hipfile.runtime()[0])'
"$py" -c 'import hipfile; assert "site-packages" in hipfile.__file__, hipfile.__file__'
"$py" -m pytest -q -rs -p no:cacheprovider "$SRC/python/tests"
HIPFILE_RUNTIME=cpu-staged "$py" -m pytest -q -rs -p no:cacheprovider "$SRC/python/tests"
"$py" "$SRC/tests/compat/amd_python/round_trip.py"
"$py" "$SRC/tests/compat/amd_python/round_trip.py" --amd-hipmalloc

"$py" -m build --sdist --outdir "$WORK/dist" "$SRC" > "$WORK/sdist.log" 2>&1 ||
  { cat "$WORK/sdist.log"; exit 1; }
sdist=$(ls "$WORK"/dist/hipfile-*.tar.gz)
python3 -m venv "$WORK/venv-sdist"
pip_or_skip "$WORK/venv-sdist/bin/python" "$WORK/pip-sdist.log" numpy "$sdist"
"$WORK/venv-sdist/bin/python" "$SRC/tests/compat/amd_python/round_trip.py"
echo "OK: the package from the tree and from $(basename "$sdist")"
