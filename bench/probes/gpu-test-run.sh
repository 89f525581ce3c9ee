#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test binaries and the installed package of a build, on a GPU machine in one call (no CTest
# there: the device's copy of the tree is elsewhere, so binaries run directly). Writes a summary
# and a tarball of the logs under OUT.
#   bench/probes/gpu-test-run.sh BUILD_DIR OUT
set -uo pipefail
build=$1 out=$2
mkdir -p "$out/logs"
export HIPFILE_TEST_TMPDIR=/var/tmp
summary=$out/summary.txt
: > "$summary"
# GoogleTest's count of skipped tests ("[  SKIPPED ] N tests, listed below:"); each skipped test
# also has two lines of its own, which a count of lines would take for three.
skipped() { sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below:.*/\1/p' "$1" | grep . || echo 0; }
for t in "$build"/tests/*_tests; do
  name=$(basename "$t")
  timeout 240 "$t" > "$out/logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$out/logs/$name.log" | tr '\n' ' ') \
$(skipped "$out/logs/$name.log") skipped" >> "$summary"
done
# The installed package from a scratch prefix, LD_LIBRARY_PATH unset.
prefix=/var/tmp/hipfile-prefix
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > "$out/logs/install.log" 2>&1
unset LD_LIBRARY_PATH
{
  echo "== installed hipfile-info"
  "$prefix/bin/hipfile-info"
  echo "rc=$?"
  ex=$(echo "$prefix"/share/doc/*/examples/bin)
  for p in roundtrip-sync roundtrip-async roundtrip-async-multi-stream-registered; do
    echo "== installed $p"
    timeout 60 "$ex/$p" /var/tmp/ex-$p.in /var/tmp/ex-$p.out
    echo "rc=$?"
  done
  echo "== installed batch-roundtrip"
  timeout 60 "$ex/batch-roundtrip" /var/tmp/ex-br.in /var/tmp/ex-br.out 4195304 128 0
  echo "rc=$?"
  echo "== HIPFILE_ASYNC_STAGED=0 hipfile-info (refused at open)"
  HIPFILE_ASYNC_STAGED=0 HIPFILE_LOG_LEVEL=error "$prefix/bin/hipfile-info" --brief 2>&1 | head -5
} >> "$summary" 2>&1
tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$out/logs"
