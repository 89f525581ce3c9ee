#!/bin/sh
# SPDX-License-Identifier: MIT
# verify-roundtrip.sh EXPECT BENCH FILE XFER: hipfile-bench -V on -x XFER over a fresh 16 MiB data
# set, as a user types it (EXPECT is tools/expect-exit.sh): a sequential write (every block must
# carry its own file offset's pattern), a read of what it wrote, a random write over it, and a
# read again. Each run must exit 0, and the reads must find the data set whole (they write
# nothing first, so they check what the writes wrote); the reads compare every block with the
# pattern of the offset read.
set -eu
expect=$1
bench=$2
file=$3
x=$4
rm -f "$file" "$file.hipfile-bench"
sh "$expect" 0 "^IoType: WRITE .* Runtime: " "!verify failed" \
  -- "$bench" -f "$file" -s 16M -i 1M -w 2 -x "$x" -I 1 -V
for step in "-I 0 -V" "-I 3 -V" "-I 2 -V"; do
  # shellcheck disable=SC2086  # $step is a list of flags
  sh "$expect" 0 "^IoType: [A-Z]+ .* Runtime: " "!verify failed" "!^hipfile-bench: (creating|writing)" \
    -- "$bench" -f "$file" -s 16M -i 1M -w 2 -x "$x" $step
done
echo "verify-roundtrip: -x $x wrote and read back its pattern"
