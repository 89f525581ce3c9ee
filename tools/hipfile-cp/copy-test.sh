#!/bin/sh
# SPDX-License-Identifier: MIT
# copy-test.sh EXPECT HIPFILE_CP DIR: hipfile-cp as a user types it, in DIR (on the runtime the
# environment names). Every case checks that no temporary file is left beside the destination.
set -eu
expect=$1 cp=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
no_temp() {
  if ls -a . out 2> /dev/null | grep -q 'hipfile-cp-'; then
    echo "copy-test: a temporary file was left: $(ls -a . out | grep hipfile-cp-)"
    exit 1
  fi
}
same() {
  cmp "$1" "$2" || { echo "copy-test: $2 differs from $1"; exit 1; }
}
head -c 5243003 /dev/urandom > src.bin

# A copy, verified; the summary names the size, the rate and the paths of reads and writes.
sh "$expect" 0 "^hipfile-cp: src.bin -> dst.bin: 5.00 MiB in [0-9.]+ s, [0-9.]+ GiB/s; read: [a-z_]+ [0-9.]+%.*; write: [a-z_]+ [0-9.]+%.*; verified$" \
  -- "$cp" --verify -b 1M src.bin dst.bin
same src.bin dst.bin
no_temp
# Into a directory; over an existing file; an empty file; -q says nothing.
mkdir out
sh "$expect" 0 "^hipfile-cp: src.bin -> out/src.bin: " -- "$cp" src.bin out
same src.bin out/src.bin
echo old > old.bin
sh "$expect" 0 "!." -- "$cp" -q src.bin old.bin
same src.bin old.bin
: > empty.bin
sh "$expect" 0 "^hipfile-cp: empty.bin -> empty-copy.bin: 0 B in " -- "$cp" empty.bin empty-copy.bin
same empty.bin empty-copy.bin
no_temp
# Refusals: exit 2 for arguments, 1 for what cannot be copied; nothing is written.
EXPECT_NO_FILE=never.bin sh "$expect" 2 "^hipfile-cp: unknown flag '--bogus'" -- "$cp" --bogus src.bin never.bin
EXPECT_NO_FILE=never.bin sh "$expect" 2 "^hipfile-cp: -b '4Q': not a size" -- "$cp" -b 4Q src.bin never.bin
EXPECT_NO_FILE=never.bin sh "$expect" 2 "^hipfile-cp: give SRC and DST" -- "$cp" src.bin
EXPECT_NO_FILE=never.bin sh "$expect" 1 "^hipfile-cp: cannot open missing.bin: No such file or directory$" \
  -- "$cp" missing.bin never.bin
EXPECT_NO_FILE=never.bin sh "$expect" 1 "^hipfile-cp: out is not a regular file$" -- "$cp" out never.bin
sh "$expect" 1 "^hipfile-cp: src.bin and ./src.bin are the same file$" -- "$cp" src.bin .
same src.bin dst.bin
no_temp
# Stopped by a signal: a sparse 8 GiB source in 4 KiB blocks takes far longer than the wait, so
# SIGINT arrives mid-copy; DST keeps its old bytes and the temporary file is gone.
truncate -s 8G sparse.bin
cp src.bin keep.bin
set +e
"$cp" -q -b 4K sparse.bin keep.bin 2> signal.err &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
set -e
if [ "$rc" != 130 ] || ! grep -q "^hipfile-cp: stopped by signal 2; keep.bin was not changed$" signal.err; then
  echo "copy-test: SIGINT mid-copy gave exit $rc and: $(cat signal.err)"
  exit 1
fi
same src.bin keep.bin
no_temp
echo "copy-test: ok"
