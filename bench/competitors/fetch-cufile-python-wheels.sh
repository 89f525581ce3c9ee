#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Downloads the wheels of cufile-python (a ctypes wrapper of libcufile.so, with its own tests)
# and of NVIDIA's cuda-bindings, which those tests use for device memory, for a machine without
# internet access (the H200): bench/run_cufile_clients_h200.sh installs them apart from KvikIO's
# when DEST is .whl/cufile-python.
#
#   bench/competitors/fetch-cufile-python-wheels.sh DEST [PYTHON_VERSION]    (default 3.12)
set -euo pipefail

DEST=${1:?usage: fetch-cufile-python-wheels.sh DEST [PYTHON_VERSION]}
PYVER=${2:-3.12}
mkdir -p "$DEST"
"${PYTHON:-python3}" -m pip download --no-deps --only-binary=:all: --python-version "$PYVER" \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$DEST" 'cufile-python==0.2.*' 'cuda-bindings==13.*'
ls -l "$DEST"
