#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# NVIDIA's cuFile as the nvidia-cufile wheel ships it (nvidia/cu13/include/cufile.h and
# nvidia/cu13/lib/libcufile.so.0), unpacked into DEST, for the tests that check the cuFile drop-in
# against it (tests/compat/cufile_abi, tests/compat/cufile_symbols; docs/cufile.md). Nothing of it
# is built into the library or installed.
#
#   scripts/fetch-cufile-wheel.sh DEST
#
# HIPFILE_CUFILE_WHEEL=PATH uses a wheel already downloaded; otherwise `pip download` fetches
# nvidia-cufile==1.15.* for x86_64. Exits 77 with a SKIP line when the wheel cannot be had (no
# pip, no network), which the tests pass on as their own skip.
set -euo pipefail
dest=$1
header=$dest/nvidia/cu13/include/cufile.h
library=$dest/nvidia/cu13/lib/libcufile.so.0
if [ -f "$header" ] && [ -f "$library" ]; then
  exit 0
fi
mkdir -p "$dest"
wheel=${HIPFILE_CUFILE_WHEEL:-}
if [ -z "$wheel" ]; then
  if ! python3 -m pip --version > /dev/null 2>&1; then
    echo "SKIP: no pip to download the nvidia-cufile wheel (set HIPFILE_CUFILE_WHEEL to a copy)"
    exit 77
  fi
  if ! python3 -m pip download -q --no-deps --only-binary :all: \
    --platform manylinux2014_x86_64 --python-version 3.12 -d "$dest/download" \
    'nvidia-cufile==1.15.*' > "$dest/pip.log" 2>&1; then
    echo "SKIP: the nvidia-cufile wheel could not be downloaded (set HIPFILE_CUFILE_WHEEL):"
    tail -n 3 "$dest/pip.log"
    exit 77
  fi
  wheel=$(ls "$dest"/download/nvidia_cufile-*.whl | head -n 1)
elif [ ! -f "$wheel" ]; then
  echo "SKIP: HIPFILE_CUFILE_WHEEL=$wheel does not exist"
  exit 77
fi
python3 -m zipfile -e "$wheel" "$dest"
for f in "$header" "$library"; do
  if [ ! -f "$f" ]; then
    echo "fetch-cufile-wheel: $wheel has no ${f#"$dest"/}"
    exit 1
  fi
done
