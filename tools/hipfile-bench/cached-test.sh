#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-bench's "Cached:" (--json's cached_at_start) as a user types it: the share of the data
# set the page cache holds as the run starts. A data set the run's own set-up just wrote is all
# cached (1.0000, "Cached: 100.0%" in the result line); after fsync and POSIX_FADV_DONTNEED none
# of it (at most 0.01); after the first half is read back with read-ahead off, half of it.
# On tmpfs, whose pages cannot be dropped, only the first part runs and the test says SKIP.
# Usage: cached-test.sh EXPECT HIPFILE_BENCH DIR (EXPECT, the tools' output checker, is not used)
set -eu
bench=$2 dir=$3
mkdir -p "$dir"
cd "$dir"
f=cached.dat
rm -f "$f" "$f.hipfile-bench"
share() { echo "$1" | sed -n 's/.*"cached_at_start": \([0-9.a-z]*\).*/\1/p'; }
fail() { echo "cached-test: $*"; exit 1; }

out=$("$bench" -f "$f" -s 8M -i 1M --json) || fail "the first run failed: $out"
[ "$(share "$out")" = 1.0000 ] || fail "a data set just written is not all cached: $out"
line=$("$bench" -f "$f" -s 8M -i 1M) || fail "the text run failed: $line"
case $line in
  *" total_time "*" secs Cached: 100.0% Runtime: "*) ;;
  *) fail "the result line does not say 'Cached: 100.0%': $line" ;;
esac

if [ "$(stat -f -c %T .)" = tmpfs ]; then
  echo "cached-test: SKIP: $dir is on tmpfs, whose pages cannot be dropped"
  exit 0
fi
# page_cache FILE drop|half: the file's pages out of the page cache (after fsync), then for `half`
# its first half read back one page at a time with read-ahead off, so that exactly those are cached.
page_cache() {
  python3 - "$1" "$2" << 'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
if sys.argv[2] == "half":
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for at in range(0, os.fstat(fd).st_size // 2, 4096):
        os.pread(fd, 4096, at)
os.close(fd)
EOF
}
page_cache "$f" drop
out=$("$bench" -f "$f" -s 8M -i 1M --json) || fail "the run after the drop failed: $out"
awk -v s="$(share "$out")" 'BEGIN { exit !(s != "" && s <= 0.01) }' ||
  fail "dropped, the data set is still cached: $out"
page_cache "$f" half
out=$("$bench" -f "$f" -s 8M -i 1M --json) || fail "the run after reading half failed: $out"
awk -v s="$(share "$out")" 'BEGIN { exit !(s != "" && s >= 0.49 && s <= 0.51) }' ||
  fail "with the first half read back, cached_at_start is not 0.5: $out"
echo "cached-test: ok"
