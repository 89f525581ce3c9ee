#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Our include/cufile/cufile.h against NVIDIA's (the nvidia-cufile wheel): facts.py lists every
# enumerator, value macro, struct size, alignment, member offset and size, and function type of
# ours; nvidia_side.cc and ours_side.cc evaluate that list each against its header (they cannot
# share a translation unit: the names are the same), main.cc compares them and names each
# difference. Skipped (77) when the wheel cannot be had.
#
#   cufile_abi_test.sh SOURCE_DIR WORK_DIR CXX
set -euo pipefail
src=$1
work=$2
cxx=$3
here=$src/tests/compat/cufile_abi
mkdir -p "$work"
"$src/scripts/fetch-cufile-wheel.sh" "$work/wheel" || exit $?
nvidia=$work/wheel/nvidia/cu13/include
python3 "$here/facts.py" "$src/include/cufile/cufile.h" "$nvidia/cufile.h" "$work/facts.inc"
flags=(-std=c++17 -Wall -Wextra -Werror -I"$work" -I"$here")
"$cxx" "${flags[@]}" -I"$here/stub" -I"$nvidia" -c "$here/nvidia_side.cc" -o "$work/nvidia_side.o"
"$cxx" "${flags[@]}" -I"$src/include" -c "$here/ours_side.cc" -o "$work/ours_side.o"
"$cxx" "${flags[@]}" "$here/main.cc" "$work/nvidia_side.o" "$work/ours_side.o" -o "$work/cufile_abi"
"$work/cufile_abi"
