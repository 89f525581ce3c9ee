#!/bin/sh
# SPDX-License-Identifier: MIT
# verify-roundtrip.sh BENCH FILE XFER: hipfile-bench -V on -x XFER over a fresh 16 MiB data set,
# as a user types it: a sequential write (every block must carry its own file offset's pattern),
# a read of what it wrote, a random write over it, and a read again. Each run must exit 0; the
# reads compare every block with the pattern of the offset read.
set -eu
bench=$1
file=$2
x=$3
rm -f "$file" "$file.hipfile-bench"
run() {
  echo "+ hipfile-bench -f $file -s 16M -i 1M -w 2 -x $x $*"
  "$bench" -f "$file" -s 16M -i 1M -w 2 -x "$x" "$@"
}
run -I 1 -V
run -I 0 -V
run -I 3 -V
run -I 2 -V
echo "verify-roundtrip: -x $x wrote and read back its pattern"
