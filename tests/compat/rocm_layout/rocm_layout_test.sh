#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rocm-layout install component, used as a ROCm user would (docs/hip-runtime-subset.md):
#   1. the build installed into a scratch prefix, then its rocm-layout component;
#   2. fork_style.c compiled the way AMD's fio fork builds against ROCm (-I$ROCM_PATH/include,
#      -L$ROCM_PATH/lib -lamdhip64 -lhipfile), run with LD_LIBRARY_PATH unset;
#   3. AMD's Python helper's way to the HIP runtime, ctypes.CDLL("libamdhip64.so"), with the
#      prefix's lib in the loader's path: hipMalloc and hipFree through it.
#   4. the default install has none of those names.
#
#   rocm_layout_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
BUILD=$1
WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
prefix=$WORK/prefix
cmake --install "$BUILD" --prefix "$prefix" > /dev/null
for name in include/hip lib/libamdhip64.so; do
  if [ -e "$prefix/$name" ]; then
    echo "rocm-layout: the default install has $name"
    exit 1
  fi
done
cmake --install "$BUILD" --prefix "$prefix" --component rocm-layout > /dev/null
ROCM_PATH=$prefix
unset LD_LIBRARY_PATH
cc -std=c11 -Wall -Werror -I"$ROCM_PATH/include" "$HERE/fork_style.c" -o "$WORK/fork_style" \
  -L"$ROCM_PATH/lib" -lamdhip64 -lhipfile -Wl,-rpath,"$ROCM_PATH/lib"
HIPFILE_RUNTIME=${HIPFILE_RUNTIME:-cpu} "$WORK/fork_style" "$WORK/fork_style.bin"
LD_LIBRARY_PATH=$ROCM_PATH/lib python3 - <<'PY'
import ctypes
hip = ctypes.CDLL("libamdhip64.so")
hip.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
hip.hipFree.argtypes = [ctypes.c_void_p]
ptr = ctypes.c_void_p()
assert hip.hipMalloc(ctypes.byref(ptr), 4096) == 0 and ptr.value, "hipMalloc through libamdhip64.so"
assert hip.hipFree(ptr) == 0, "hipFree through libamdhip64.so"
print("OK  rocm-layout: ctypes.CDLL('libamdhip64.so') allocates and frees")
PY
echo "rocm-layout: ok"
