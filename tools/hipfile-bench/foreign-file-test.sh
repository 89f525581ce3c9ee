#!/bin/sh
# SPDX-License-Identifier: MIT
# foreign-file-test.sh EXPECT BENCH DIR: hipfile-bench never writes a file it did not make unless
# --overwrite says so, run as a user types it (EXPECT is tools/expect-exit.sh). In DIR, a file of
# other bytes is refused by a write run and by a read run that would have to extend it (status 2,
# one line; its bytes stay the same and no marker appears), is read as it is, is reported by -V
# as not the data set, and becomes the data set with --overwrite; a data set that another
# program changed is refused again.
set -eu
expect=$1
bench=$2
dir=$3
mkdir -p "$dir"
cd "$dir"
rm -f foreign.dat foreign.dat.hipfile-bench foreign.orig
yes 'not hipfile-bench data: keep these bytes' | head -c 1048576 > foreign.dat
cp foreign.dat foreign.orig
unchanged() {
  cmp foreign.dat foreign.orig
  if [ -e foreign.dat.hipfile-bench ]; then
    echo "foreign-file-test: a marker appeared" >&2
    exit 1
  fi
}
not_ours="^hipfile-bench: foreign.dat is not hipfile-bench's data set \(no marker foreign.dat.hipfile-bench\) and a write run would overwrite it; --overwrite allows that$"
sh "$expect" 2 "$not_ours" -- "$bench" -f foreign.dat -s 1M -I 1
unchanged
sh "$expect" 2 "$not_ours" -- "$bench" -f foreign.dat -s 1M -I 3 -x 5 -V
unchanged
sh "$expect" 2 "^hipfile-bench: foreign.dat holds 1 MiB, less than the data set's 2 MiB, and is not hipfile-bench's data set \(no marker foreign.dat.hipfile-bench\); --overwrite lets it write the rest$" \
  -- "$bench" -f foreign.dat -s 2M -I 0
unchanged
sh "$expect" 0 "^IoType: READ XferType: GPUD .* Runtime: cpu" -- "$bench" -f foreign.dat -s 1M
unchanged
sh "$expect" 1 "^hipfile-bench: verify failed at file offset 0$" \
  "^hipfile-bench: foreign.dat is not hipfile-bench's data set \(no marker foreign.dat.hipfile-bench\), so its bytes need not be the pattern -V checks$" \
  -- "$bench" -f foreign.dat -s 1M -V
unchanged
sh "$expect" 0 "^hipfile-bench: --overwrite: foreign.dat becomes hipfile-bench's data set" "^IoType: WRITE" \
  -- "$bench" -f foreign.dat -s 1M -I 1 -V --overwrite
sh "$expect" 0 "!^hipfile-bench: (creating|writing)" "^IoType: READ" -- "$bench" -f foreign.dat -s 1M -V
# Its own now: a write run needs no --overwrite.
sh "$expect" 0 "^IoType: WRITE" -- "$bench" -f foreign.dat -s 1M -I 1 -V
# Another program appends a byte: not its data set any more.
printf x >> foreign.dat
cp foreign.dat foreign.orig
sh "$expect" 2 "^hipfile-bench: foreign.dat is not hipfile-bench's data set \(it changed since hipfile-bench last wrote it, says foreign.dat.hipfile-bench\)" \
  -- "$bench" -f foreign.dat -s 1M -I 1
cmp foreign.dat foreign.orig
echo "foreign-file-test: ok"
