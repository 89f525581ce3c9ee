#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The drop-in's exported symbols against NVIDIA's libcufile.so.0 (the nvidia-cufile wheel), by
# `nm -D --defined-only`: the C API of each (names not starting with an underscore: NVIDIA's
# library also exports the C++ runtime it links statically). Prints what the drop-in lacks,
# fails unless allowed_missing.txt names each with a reason, and fails on anything the drop-in
# exports that NVIDIA's does not. Skipped (77) when the wheel cannot be had.
#
#   cufile_symbols_test.sh SOURCE_DIR LIBCUFILE WORK_DIR
set -euo pipefail
src=$1
ours=$2
work=$3
here=$src/tests/compat/cufile_symbols
mkdir -p "$work"
"$src/scripts/fetch-cufile-wheel.sh" "$work/wheel" || exit $?
theirs=$work/wheel/nvidia/cu13/lib/libcufile.so.0
c_api() { nm -D --defined-only "$1" | awk '$3 !~ /^_/ {sub(/@.*/, "", $3); print $3}' | sort -u; }
c_api "$theirs" > "$work/theirs.txt"
c_api "$ours" > "$work/ours.txt"
grep -v '^#' "$here/allowed_missing.txt" | awk 'NF {print $1}' | sort -u > "$work/allowed.txt"
comm -23 "$work/theirs.txt" "$work/ours.txt" > "$work/missing.txt"
comm -13 "$work/theirs.txt" "$work/ours.txt" > "$work/extra.txt"
status=0
echo "cufile-symbols: NVIDIA's exports $(wc -l < "$work/theirs.txt"), the drop-in $(wc -l < "$work/ours.txt")"
while read -r name; do
  reason=$(awk -v n="$name" '$1 == n {$1 = ""; sub(/^ +/, ""); print}' "$here/allowed_missing.txt")
  if [ -n "$reason" ]; then
    echo "missing (allowed)  $name: $reason"
  else
    echo "MISSING  $name: not exported and not in allowed_missing.txt"
    status=1
  fi
done < "$work/missing.txt"
while read -r name; do
  echo "STALE  $name: exported, yet allowed_missing.txt lists it"
  status=1
done < <(comm -12 "$work/allowed.txt" "$work/ours.txt")
while read -r name; do
  echo "EXTRA  $name: exported by the drop-in, not by NVIDIA's library"
  status=1
done < "$work/extra.txt"
if [ "$status" -eq 0 ]; then
  echo "cufile-symbols: ok, $(comm -12 "$work/theirs.txt" "$work/ours.txt" | wc -l) shared," \
    "$(wc -l < "$work/missing.txt") missing, each with its reason"
fi
exit "$status"
