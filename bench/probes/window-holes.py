#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which 64 MiB windows of a file are not wholly in the page cache (mincore), and how many MiB
each lacks; with `punch`, first drops 4 MiB from the middle of windows 3, 9, 17, 25 and 30
(posix_fadvise DONTNEED; the file must be written back). Used for docs/async.md's measurement
of windows a few pages short.

    window-holes.py FILE check|punch
"""
import ctypes
import os
import sys

WINDOW = 64 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")


def short_windows(fd, size):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
    base = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    if base in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    pages = (size + PAGE - 1) // PAGE
    vec = (ctypes.c_ubyte * pages)()
    try:
        if libc.mincore(base, size, vec) != 0:
            raise OSError(ctypes.get_errno(), "mincore")
    finally:
        libc.munmap(base, size)
    short = []
    for w in range((size + WINDOW - 1) // WINDOW):
        lo, hi = w * WINDOW // PAGE, min(pages, (w + 1) * WINDOW // PAGE)
        missing = sum(1 for i in range(lo, hi) if not vec[i] & 1)
        if missing:
            short.append((w, round(missing * PAGE / (1 << 20), 1)))
    return short


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("check", "punch"):
        sys.exit(__doc__)
    fd = os.open(sys.argv[1], os.O_RDONLY)
    size = os.fstat(fd).st_size
    if sys.argv[2] == "punch":
        for w in (3, 9, 17, 25, 30):
            if w * WINDOW + (24 << 20) <= size:
                os.posix_fadvise(fd, w * WINDOW + (20 << 20), 4 << 20, os.POSIX_FADV_DONTNEED)
    print(f"{sys.argv[2]}: windows not wholly resident (window, MiB missing): "
          f"{short_windows(fd, size)}")


if __name__ == "__main__":
    main()
