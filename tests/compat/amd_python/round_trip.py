# SPDX-License-Identifier: MIT
"""A round trip through AMD's hipfile package (its own API, unchanged) on this library.

Writes 1 MiB of random bytes from a registered buffer to a file, reads them back into the zeroed
buffer, and checks both the buffer and the file. The buffer comes from hipMalloc, which this
library exports (its HIP subset); on the CPU runtime device memory is host memory, so the bytes
are checked through ctypes. Prints one OK line.

With --amd-hipmalloc the buffer comes from AMD's own helper, hipfile.hipMalloc, which loads the
HIP runtime as ctypes.CDLL("libamdhip64.so"): the prefix's rocm-layout install component names
libhipfile.so.0 so, and the prefix's lib must be in the loader's path.
"""

import ctypes
import os
import sys
import tempfile

import hipfile
from hipfile import Buffer, Driver, FileHandle, HipFileException

SIZE = 1 << 20


def allocate(amd_helper: bool):
    """A SIZE-byte device buffer and the function that frees it."""
    if amd_helper:
        from hipfile import hipMalloc as helper  # AMD's module: loads libamdhip64.so

        ptr = helper.hipMalloc(SIZE)
        return ptr, helper.hipFree
    # Already loaded by hipfile's extension (by its run path): this finds that copy.
    lib = ctypes.CDLL("libhipfile.so.0")
    lib.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.hipFree.argtypes = [ctypes.c_void_p]
    ptr = ctypes.c_void_p()
    if lib.hipMalloc(ctypes.byref(ptr), SIZE) != 0:
        raise RuntimeError("hipMalloc failed")
    return ptr, lib.hipFree


def main() -> int:
    amd_helper = "--amd-hipmalloc" in sys.argv[1:]
    ptr, free = allocate(amd_helper)
    data = os.urandom(SIZE)
    ctypes.memmove(ptr, data, SIZE)
    path = os.path.join(tempfile.mkdtemp(prefix="hipfile-amd-py."), "round-trip.bin")
    try:
        with Driver() as driver:
            assert driver.use_count() >= 1
            with Buffer.from_ctypes_void_p(ptr, SIZE, 0) as buf:
                with FileHandle(path, os.O_RDWR | os.O_CREAT) as fh:
                    wrote = fh.write(buf, SIZE, 0, 0)
                    ctypes.memset(ptr, 0, SIZE)
                    read = fh.read(buf, SIZE, 0, 0)
        if (wrote, read) != (SIZE, SIZE):
            print(f"moved {wrote} and {read} bytes, not {SIZE}", file=sys.stderr)
            return 1
        if ctypes.string_at(ptr, SIZE) != data:
            print("the bytes read back differ from those written", file=sys.stderr)
            return 1
        with open(path, "rb") as f:
            if f.read() != data:
                print("the file differs from what was written", file=sys.stderr)
                return 1
        # Errors keep AMD's conventions: a bad handle raises HipFileException.
        try:
            FileHandle(os.path.join(os.path.dirname(path), "missing", "x"), os.O_RDONLY).open()
            print("opening a missing file did not raise", file=sys.stderr)
            return 1
        except (OSError, HipFileException):
            pass
    finally:
        free(ptr)
        if os.path.exists(path):
            os.remove(path)
    via = " (buffer from hipfile.hipMalloc)" if amd_helper else ""
    print(f"OK  AMD's hipfile {hipfile.get_version()} round trip of {SIZE} bytes{via}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
