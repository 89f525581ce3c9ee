#!/bin/sh
# SPDX-License-Identifier: MIT
# flipped-byte.sh EXPECT FIO ENGINE MODE DIR: fio writes 1 MiB with crc32c headers through the
# engine (no read-back), one byte of the file is changed, then a verifying read in MODE must fail
# and name the block: proof that verify= checks the bytes the engine brought back.
set -eu
expect=$1 fio=$2 engine=$3 mode=$4 dir=$5
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
unset LD_LIBRARY_PATH
common="--ioengine=external:$engine --hipfile_mode=$mode --filename=data.bin --size=1M --bs=4k
  --iodepth=4 --verify=crc32c"
# shellcheck disable=SC2086
sh "$expect" 0 "^w: \(groupid=0, jobs=1\): err= 0" -- "$fio" --name=w $common --rw=write \
  --do_verify=0
printf 'X' | dd of=data.bin bs=1 seek=300000 conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
sh "$expect" 1 "crc32c: verify failed at file data.bin offset 299008, length 4096" \
  -- "$fio" --name=r $common --rw=read --verify_fatal=1
echo "flipped-byte: $mode reported the flipped byte"
