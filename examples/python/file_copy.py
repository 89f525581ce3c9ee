#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tutorial: copy a file through GPU memory with the hipfile package (docs/python.md).

AMD's API as AMD's examples use it - hipMalloc, a registered Buffer, FileHandle.read/write with
(buffer, size, file_offset, buffer_offset) - plus the package's futures to overlap them: while
block k is written out from one half of the buffer, block k+1 is read into the other. The copy
goes to a temporary name beside DST, renamed over DST only once complete and flushed, so a failed
copy leaves DST as it was.

    python3 file_copy.py SRC DST [--block-mib N] [--verify]
"""

import argparse
import filecmp
import os
import sys

import hipfile
from hipfile.hipMalloc import hipFree, hipMalloc


def copy(src: str, dst: str, block: int) -> int:
    size = os.stat(src).st_size
    tmp = f"{dst}.hipfile-copy.{os.getpid()}"
    ptr = hipMalloc(2 * block)
    try:
        with hipfile.Buffer.from_ctypes_void_p(ptr, 2 * block, 0) as buf, hipfile.FileHandle(
            src, os.O_RDONLY
        ) as fin, hipfile.FileHandle(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) as fout:
            half = [0, block]  # the two halves' offsets in the buffer
            pending_write = None
            offset = 0
            k = 0
            while offset < size:
                n = min(block, size - offset)
                got = fin.read(buf, n, offset, half[k % 2])  # AMD's form: Buffer and offsets
                if got != n:
                    raise OSError(f"{src}: read {got} bytes at {offset}, not {n} (changed?)")
                if pending_write is not None:
                    pending_write.get()  # the other half is free again
                # Written out while the next block is read into the other half.
                pending_write = fout.pwrite(buf, n, file_offset=offset, buffer_offset=half[k % 2])
                offset += n
                k += 1
            if pending_write is not None:
                pending_write.get()
            os.fsync(fout.fd)
        os.replace(tmp, dst)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        hipFree(ptr)
    return size


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--block-mib", type=int, default=64)
    p.add_argument("--verify", action="store_true")
    a = p.parse_args()
    try:
        n = copy(a.src, a.dst, a.block_mib << 20)
    except (OSError, hipfile.HipFileException) as e:
        print(f"file_copy: {e}", file=sys.stderr)
        return 1
    if a.verify and not filecmp.cmp(a.src, a.dst, shallow=False):
        print(f"file_copy: {a.dst} differs from {a.src}", file=sys.stderr)
        return 1
    print(f"OK  copied {n} bytes {a.src} -> {a.dst}{' (verified)' if a.verify else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
