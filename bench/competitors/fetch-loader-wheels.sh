#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Downloads the safetensors loaders that bench/run_loader_h200.sh compares with ours, for a
# machine without internet access (the H200): LOADER_WHEELS=DEST makes that script install them
# into a folder of its own with pip --no-index --no-deps --target.
#
#   bench/competitors/fetch-loader-wheels.sh DEST [PYTHON_VERSION]
#
# fastsafetensors 0.5, runai-model-streamer 0.17 and InstantTensor 0.2, without their
# dependencies (torch, NumPy, safetensors: those already installed there). PYTHON_VERSION is the
# target's (default 3.12: Ubuntu 24.04).
set -euo pipefail

DEST=${1:?usage: fetch-loader-wheels.sh DEST [PYTHON_VERSION]}
PYVER=${2:-3.12}
mkdir -p "$DEST"
"${PYTHON:-python3}" -m pip download --no-deps --only-binary=:all: --python-version "$PYVER" \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform linux_x86_64 -d "$DEST" \
  'fastsafetensors==0.5.*' 'runai-model-streamer==0.17.*' 'instanttensor==0.2.*'
ls -l "$DEST"
