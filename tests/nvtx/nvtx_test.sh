#!/bin/sh
# SPDX-License-Identifier: MIT
# nvtx_test.sh PROGRAM FAKE_INJECTION DIR: the library's NVTX ranges as a profiler sees them.
#   1. HIPFILE_PROFILE_NVTX=true: the fake injection library (what Nsight Systems would be) must
#      see a range per API call after the first hipFileDriverOpen (which turns tracing on) -
#      hipFileHandleRegister, hipFileWrite, hipFileRead, hipFileDriverClose... - with the
#      engine's stages inside them, every push popped.
#   2. Tracing off (the default): no range at all, though the injection library is named.
set -eu
program=$1 fake=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir"
out=$dir/ranges.txt
HIPFILE_PROFILE_NVTX=true NVTX_INJECTION64_PATH=$fake FAKE_NVTX_OUT=$out \
  "$program" "$dir/data.bin"
for want in "push hipFileHandleRegister" "push hipFileWrite" "push hipFileDriverClose" \
  "push hipFile engine write" "push hipFileRead" "push hipFile engine read"; do
  grep -qx "$want" "$out" || { echo "nvtx-test: no '$want' in:"; cat "$out"; exit 1; }
done
pushes=$(grep -c '^push ' "$out")
pops=$(grep -c '^pop$' "$out")
[ "$pushes" = "$pops" ] || { echo "nvtx-test: $pushes pushes, $pops pops"; cat "$out"; exit 1; }
# The engine's range is inside the call's: the line after "push hipFileRead" opens it.
grep -A1 -x "push hipFileRead" "$out" | grep -qx "push hipFile engine read" ||
  { echo "nvtx-test: the engine's read is not inside hipFileRead:"; cat "$out"; exit 1; }
rm -f "$out"
NVTX_INJECTION64_PATH=$fake FAKE_NVTX_OUT=$out "$program" "$dir/data.bin"
if [ -s "$out" ]; then
  echo "nvtx-test: ranges with tracing off:"
  cat "$out"
  exit 1
fi
echo "nvtx-test: ok ($pushes ranges, all closed)"
