# SPDX-License-Identifier: MIT
"""hipfile: file I/O straight into and out of GPU memory, for NumPy, PyTorch and CuPy.

AMD's API (``Driver``, ``FileHandle``, ``Buffer``, ``Stream``, ``HipFileException`` and the
low-level ``hipfile._hipfile`` wrappers) unchanged, and arrays on top of it::

    import hipfile, torch
    t = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
    with hipfile.open("weights.bin", "r") as f:
        f.read(t)                       # bytes read
        fut = f.pread(t, file_offset=0) # a future; fut.get()

See docs/python.md.
"""

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    VERSION_MAJOR as _VERSION_MAJOR,
    VERSION_MINOR as _VERSION_MINOR,
    VERSION_PATCH as _VERSION_PATCH,
)
from hipfile._hipfile import AsyncIOHandle  # pylint: disable=E0401,E0611
from hipfile.batch import Batch
from hipfile.buffer import Buffer, registered
from hipfile.driver import Driver
from hipfile.enums import FileHandleType, OpError
from hipfile.error import HipFileError, HipFileException, HipFileOSError
from hipfile.file import FileHandle, Stream, open, supports_async  # pylint: disable=W0622
from hipfile.futures import IOFuture
from hipfile.observe import (
    get_num_threads,
    get_parameter,
    parameters,
    runtime,
    set_num_threads,
    set_parameter,
    stats,
)
from hipfile.properties import driver_get_properties, get_version
from hipfile.whole_file import read_into, write_from

__all__ = [
    "__version__",
    # AMD's
    "Driver",
    "FileHandle",
    "Stream",
    "supports_async",
    "Buffer",
    "HipFileException",
    "FileHandleType",
    "OpError",
    "driver_get_properties",
    "get_version",
    # this package's
    "AsyncIOHandle",
    "Batch",
    "HipFileError",
    "HipFileOSError",
    "IOFuture",
    "open",
    "read_into",
    "write_from",
    "registered",
    "stats",
    "runtime",
    "get_parameter",
    "set_parameter",
    "parameters",
    "set_num_threads",
    "get_num_threads",
]
__version__ = f"{_VERSION_MAJOR}.{_VERSION_MINOR}.{_VERSION_PATCH}"
