#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 39: a Release build of this tree on the device (its 16 cores; cmake and ninja from the
# image's torch venv), liburing linked statically from the carried headers and liburing.a as on
# the CPU machine, the fio engine against the carried fio 3.33 source; installed into
# /var/tmp/p39. TESTS=ON also builds the test binaries. Reuses build-dev/ on a warm machine.
set -u
c=$PWD/.carry/f39
export PATH=$c/bin:$PATH
s=$SECONDS
if [ ! -f build-dev/build.ninja ]; then
  cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS="${TESTS:-OFF}" \
    -DHIPFILE_BUILD_EXAMPLES=ON -DHIPFILE_PYTHON=OFF -DHIPFILE_FIO_SOURCE_DIR="$c/fio-3.33" \
    -DHIPFILE_LIBURING_INCLUDE_DIR="$c/uring/include" \
    -DHIPFILE_LIBURING_STATIC_LIBRARY="$c/uring/lib/liburing.a" > "$OUT/cfg.log" 2>&1 ||
    { echo "configure failed"; tail -30 "$OUT/cfg.log"; exit 1; }
fi
grep -E "io_uring|fio engine" "$OUT/cfg.log" 2>/dev/null
cmake --build build-dev -j 16 > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -B2 -A12 "error" "$OUT/build.log" | head -60; exit 1; }
cmake --install build-dev --prefix /var/tmp/p39 > /dev/null 2>&1 || { echo "install failed"; exit 1; }
ls /var/tmp/p39/lib/fio/libhipfile-fio.so /var/tmp/p39/bin/hipfile-bench
echo "built and installed in $((SECONDS - s)) s"
