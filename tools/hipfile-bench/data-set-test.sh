#!/bin/sh
# SPDX-License-Identifier: MIT
# data-set-test.sh EXPECT BENCH DIR: how hipfile-bench makes and keeps its data set, run as a user
# types it (EXPECT is tools/expect-exit.sh): it says what it creates and how big, writes the
# marker next to the file, writes nothing when the data set is there, notes when a write without
# -V replaced the pattern and writes it again before a -V read, writes only the missing part of a
# larger data set, says what a write run creates, takes -D DIR, names the runtime and the paths the bytes took (text and --json), and
# shows progress on a terminal (where script(1) gives one).
set -eu
expect=$1
bench=$2
dir=$3
mkdir -p "$dir"
cd "$dir"
rm -rf own.dat own.dat.hipfile-bench new.dat new.dat.hipfile-bench tty.dat tty.dat.hipfile-bench d
marker() {
  if ! grep -E -q "^hipfile-bench data set 1: dev=[0-9]+ ino=[0-9]+ size=$2 mtime=[0-9]+\.[0-9]+ pattern=$3\$" "$1.hipfile-bench"; then
    echo "data-set-test: $1.hipfile-bench does not say size=$2 pattern=$3:" >&2
    cat "$1.hipfile-bench" >&2
    exit 1
  fi
}
sh "$expect" 0 "^hipfile-bench: creating the data set own.dat: 4 MiB of its pattern \(marker own.dat.hipfile-bench\)$" \
  "^IoType: READ .* Runtime: cpu Paths: host 100.0%$" -- "$bench" -f own.dat -s 4M
marker own.dat 4194304 4194304
sh "$expect" 0 "!^hipfile-bench: (creating|writing)" "^IoType: READ" -- "$bench" -f own.dat -s 4M -V
sh "$expect" 0 "^IoType: WRITE" -- "$bench" -f own.dat -s 4M -I 1
marker own.dat 4194304 0
sh "$expect" 0 "^hipfile-bench: writing the data set own.dat: 4 MiB of its pattern \(marker own.dat.hipfile-bench\)$" \
  "^IoType: READ" -- "$bench" -f own.dat -s 4M -V
marker own.dat 4194304 4194304
sh "$expect" 0 "^hipfile-bench: writing the data set's pattern into own.dat, bytes 4194304 to 6291456 \(2 MiB; marker own.dat.hipfile-bench\)$" \
  -- "$bench" -f own.dat -s 6M -V
marker own.dat 6291456 6291456
sh "$expect" 0 "^hipfile-bench: creating new.dat for the write run \(up to 2 MiB; marker new.dat.hipfile-bench\)$" \
  -- "$bench" -f new.dat -s 2M -I 1 -V -w 2
marker new.dat 2097152 2097152
sh "$expect" 0 '"verified": true, "runtime": "cpu", "paths": \{"page_cache": 0, "direct": 0, "buffered": 0, "io_uring": 0, "host": [1-9][0-9]*\}, "fallbacks": \{\}, "copy_waits": \{"waits": 0, "slept": 0, "poll_ms": 0.000, "sleep_ms": 0.000\}, "ok": true' \
  -- "$bench" -f new.dat -s 2M -V --json
mkdir d
sh "$expect" 0 "^hipfile-bench: creating the data set d/hipfile-bench.dat: 1 MiB of its pattern" -- "$bench" -D d -s 1M
marker d/hipfile-bench.dat 1048576 1048576
if command -v script > /dev/null; then
  script -q -e -c "'$bench' -f tty.dat -s 16M" /dev/null > tty.log
  if ! grep -q "tty.dat: 16 of 16 MiB" tty.log; then
    echo "data-set-test: no progress on a terminal:" >&2
    cat tty.log >&2
    exit 1
  fi
fi
echo "data-set-test: ok"
