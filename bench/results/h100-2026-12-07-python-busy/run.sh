#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 36: the Python package built on the GPU machine, its suite on CUDA, and
# busy-stream-bench (read_async fixed at the call against the late-binding low-level call).
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
python3 --version
python3 -m pip install --no-build-isolation --no-index --no-deps --target /tmp/site . \
  -C build-dir=/tmp/bpy > "$OUT/pip.log" 2>&1 || { tail -30 "$OUT/pip.log"; exit 1; }
(cd /tmp && PYTHONPATH=/tmp/site timeout 300 python3 -m pytest -q -rs -p no:cacheprovider \
  "$OLDPWD/python/tests" > "$OUT/pytest.log" 2>&1; echo "pytest rc=$?"; tail -5 "$OUT/pytest.log")
PYTHONPATH=/tmp/site timeout 200 python3 bench/python/busy-stream-bench.py /var/tmp/busy.dat \
  --rounds 3 2>&1 | tee "$OUT/busy-stream.txt"
