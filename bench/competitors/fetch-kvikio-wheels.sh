#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Downloads RAPIDS KvikIO's wheels for a machine without internet access (the H200), so that
# bench/run_h200.sh can measure KvikIO there: KVIKIO_WHEELS=DEST makes it install them into a
# temporary folder with pip --no-index when $PYTHON cannot import kvikio.
#
#   bench/competitors/fetch-kvikio-wheels.sh DEST [PYTHON_VERSION]
#
# Only KvikIO and the small packages it needs that a PyTorch + CuPy environment lacks
# (libkvikio, rapids-logger, cuda-pathfinder, and NVIDIA's libcufile wheel, the same 1.15 as
# CUDA 13.0's) are fetched, without their dependencies: CuPy and NumPy are those already
# installed there. About 5 MiB. PYTHON_VERSION is the target's (default 3.12: Ubuntu 24.04).
set -euo pipefail

DEST=${1:?usage: fetch-kvikio-wheels.sh DEST [PYTHON_VERSION]}
PYVER=${2:-3.12}
mkdir -p "$DEST"
"${PYTHON:-python3}" -m pip download --no-deps --only-binary=:all: --python-version "$PYVER" \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$DEST" \
  'kvikio-cu13==26.10.*' 'libkvikio-cu13==26.10.*' 'rapids-logger==0.3.*' cuda-pathfinder \
  'nvidia-cufile==1.15.*'
ls -l "$DEST"
