#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench -x 5 --late-binding on HIPFILE_RUNTIME=cpu-staged (a GPU's data paths): 4 KiB
# random reads 8 in flight on each of two streams. Registered FIXED (the default) no read waits to
# be staged - the library took each one's values at submission; registered without the flags
# (--late-binding) it must read them when the stream gets there, so reads queued behind others
# are staged ("async_ways", docs/stats.md), and the JSON line says "late_binding": true. FILE is
# read into the page cache first (-x 10). Every byte is checked (-V).
# Usage: late-binding-test.sh HIPFILE_BENCH FILE
set -eu
bench=$1 file=$2
run() {  # run [--late-binding]: the JSON line
  "$bench" -f "$file" -s 8M -w 2 -i 4K -I 2 -x 5 -Q 8 -T 1 -V --json "$@" ||
    { echo "hipfile-bench $* failed"; exit 1; }
}
way() {  # way JSON WAY: how many operations went WAY
  echo "$1" | sed 's/.*"async_ways": {//' | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}
"$bench" -f "$file" -s 8M -i 1M -x 10 -w 1 > /dev/null || { echo "reading $file in failed"; exit 1; }
fixed=$(run)
late=$(run --late-binding)
for out in "$fixed" "$late"; do
  case $out in *'"ok": true'*) ;; *) echo "not ok: $out"; exit 1 ;; esac
done
case $fixed in *'"late_binding": false'*) ;; *) echo "default run not fixed: $fixed"; exit 1 ;; esac
case $late in *'"late_binding": true'*) ;; *) echo "--late-binding not reported: $late"; exit 1 ;; esac
staged_fixed=$(way "$fixed" staged) staged_late=$(way "$late" staged)
echo "staged reads: $staged_fixed registered fixed, $staged_late with --late-binding"
[ "$staged_fixed" = 0 ] || { echo "fixed streams staged reads: $fixed"; exit 1; }
if [ -z "$staged_late" ] || [ "$staged_late" -eq 0 ]; then
  echo "--late-binding staged no read (values taken at submission?): $late"
  exit 1
fi
echo "late binding stages queued reads; fixed streams take them at submission"
