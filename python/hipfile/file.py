# SPDX-License-Identifier: MIT
"""``FileHandle``: a file registered with the library; reads into and writes from arrays.

AMD's API is kept as it is: ``FileHandle(path, flags, mode, handle_type)``, opened by ``open()``
or ``with``, ``read/write(buffer, size, file_offset, buffer_offset)`` with a ``Buffer`` or a
pointer, ``read_async/write_async(..., stream)`` returning an ``AsyncIOHandle``. On top of it the
same methods take arrays - NumPy, torch, CuPy, anything with ``__dlpack__``,
``__cuda_array_interface__`` or the buffer protocol, in GPU or host memory - with ``size``
defaulting to the array's bytes; ``pread``/``pwrite`` return futures; ``hipfile.open(path, "r")``
opens one in a step. Sizes and offsets are in bytes.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import weakref
from types import TracebackType
from typing import Any

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611
from hipfile._hipfile import AsyncIOHandle  # pylint: disable=E0401,E0611
from hipfile.buffer import Buffer
from hipfile.enums import FileHandleType, OpError
from hipfile.error import HipFileError, HipFileException, check_err, check_sync
from hipfile.futures import IOFuture
from hipfile.streams import Stream, stream_handle, supports_async

__all__ = ["FileHandle", "Stream", "supports_async", "open"]

_READ_DEVICE, _WRITE_DEVICE, _READ_HOST, _WRITE_HOST = 0, 1, 2, 3

_MODES = {
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "w+": os.O_RDWR | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT,
    "a+": os.O_RDWR | os.O_CREAT,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "x+": os.O_RDWR | os.O_CREAT | os.O_EXCL,
}


def _flags_of(flags: int | str) -> int:
    if isinstance(flags, str):
        mode = flags.replace("b", "")
        if mode not in _MODES:
            raise ValueError(
                f"hipfile: unknown mode {flags!r} (one of {', '.join(sorted(_MODES))}, or os.O_* "
                "flags)"
            )
        return _MODES[mode] | getattr(os, "O_CLOEXEC", 0)
    return int(flags)


class _Target:
    """Where a transfer's bytes are: a pointer, how many bytes follow it, and which call moves
    them."""

    __slots__ = ("ptr", "nbytes", "device", "keep")

    def __init__(self, ptr: int, nbytes: int | None, device: bool, keep: Any) -> None:
        self.ptr = ptr
        self.nbytes = nbytes  # None: unknown (a bare pointer)
        self.device = device
        self.keep = keep


def _target(buffer: Any, writable: bool) -> _Target:
    if isinstance(buffer, Buffer):
        return _Target(buffer.ptr, buffer.length, True, buffer)
    if isinstance(buffer, int) and not isinstance(buffer, bool):
        return _Target(buffer, None, True, None)
    ptr, nbytes, is_device, _ = _c._view(buffer, writable)  # pylint: disable=protected-access
    return _Target(ptr, nbytes, is_device, buffer)


def _extent(target: _Target, size: int | None, buffer_offset: int, what: str) -> int:
    if buffer_offset < 0:
        raise ValueError(f"{what}: buffer_offset {buffer_offset} is negative")
    if size is None:
        if target.nbytes is None:
            raise TypeError(f"{what}: size is needed with a pointer")
        size = target.nbytes - buffer_offset
        if size < 0:
            raise ValueError(
                f"{what}: buffer_offset {buffer_offset} is past the array's {target.nbytes} bytes"
            )
    if size < 0:
        raise ValueError(f"{what}: size {size} is negative")
    if target.nbytes is not None and buffer_offset + size > target.nbytes:
        raise ValueError(
            f"{what}: {size} bytes at buffer_offset {buffer_offset} do not fit the array's "
            f"{target.nbytes} bytes"
        )
    return size


class FileHandle:
    """A file opened and registered with the library (``with FileHandle(path, "r") as f``)."""

    DEFAULT_MODE = stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH  # 0o644

    def __init__(
        self,
        path: str | os.PathLike[str],
        flags: int | str,
        mode: int = DEFAULT_MODE,
        handle_type: FileHandleType = FileHandleType.OPAQUE_FD,
    ) -> None:
        """Nothing is opened until ``open()`` or ``with``. ``flags`` are ``os.open``'s flags, or
        a mode string: ``"r"``, ``"r+"``, ``"w"``, ``"w+"``, ``"a"``, ``"a+"``, ``"x"``, ``"x+"``."""
        self._fd: int | None = None
        self._flags = _flags_of(flags)
        self._handle: int | None = None
        self._handle_type: FileHandleType | None = None
        self._mode = mode
        self._path = path
        self._lock = threading.Lock()
        self._futures: weakref.WeakSet[IOFuture] = weakref.WeakSet()
        self.handle_type = handle_type

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            print("Failed to deregister hipFile.FileHandle at destruction time.", file=sys.stderr)

    def __enter__(self) -> FileHandle:
        """Opens the file (unless ``hipfile.open`` already did) for the block."""
        if self._handle is None:
            self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self._handle is not None else "closed"
        return f"<hipfile.FileHandle {os.fspath(self._path)!r} {state}>"

    @property
    def flags(self) -> int:
        """The ``os.open`` flags."""
        return self._flags

    @property
    def handle(self) -> int | None:
        """The library's handle, or ``None`` while closed."""
        return self._handle

    @property
    def fd(self) -> int | None:
        """The file descriptor, or ``None`` while closed."""
        return self._fd

    @property
    def closed(self) -> bool:
        """Whether the file is closed."""
        return self._handle is None

    @property
    def handle_type(self) -> FileHandleType | None:
        """The handle type registered."""
        return self._handle_type

    @handle_type.setter
    def handle_type(self, handle_type: FileHandleType) -> None:
        if self._handle is not None:
            raise RuntimeError("Cannot modify handle_type while FileHandle is open")
        if handle_type not in FileHandleType.__members__.values():
            raise ValueError(f"'{handle_type}' is not a member of enum FileHandleType")
        if handle_type == FileHandleType.OPAQUE_WIN32:
            raise NotImplementedError("FileHandle does not currently support Win32 Handles")
        self._handle_type = FileHandleType(handle_type)

    @property
    def mode(self) -> int:
        """Permission bits for a file created."""
        return self._mode

    @property
    def path(self) -> str | os.PathLike[str]:
        """The file's path."""
        return self._path

    def open(self) -> None:
        """Opens the file and registers it (the driver opens implicitly)."""
        if self._handle is not None:
            raise RuntimeError("The FileHandle is already open.")
        self._fd = os.open(self._path, self._flags, self._mode)
        handle, err = _c.hipFileHandleRegister(self._fd, int(self._handle_type or 1))
        if err[0] != 0:
            os.close(self._fd)
            self._fd = None
            raise HipFileException(err[0], err[1])
        self._handle = handle

    def close(self) -> None:
        """Waits for this file's futures, deregisters it and closes the descriptor. Safe to call
        more than once."""
        for future in list(self._futures):
            future.wait()
        if self._handle is not None:
            _c.hipFileHandleDeregister(self._handle)
            self._handle = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open_handle(self) -> int:
        if self._handle is None:
            raise RuntimeError("The FileHandle is not open.")
        return self._handle

    def size(self) -> int:
        """The file's size in bytes."""
        if self._fd is None:
            return os.stat(self._path).st_size
        return os.fstat(self._fd).st_size

    # ---- synchronous ------------------------------------------------------------------------

    def _sync(
        self, write: bool, buffer: Any, size: int | None, file_offset: int, buffer_offset: int
    ) -> int:
        what = f"{'write' if write else 'read'} of {os.fspath(self._path)!r}"
        handle = self._open_handle()
        target = _target(buffer, not write)
        size = _extent(target, size, buffer_offset, what)
        if target.device:
            call = _c.hipFileWrite if write else _c.hipFileRead
            ret, extra = call(handle, target.ptr, size, file_offset, buffer_offset)
        else:
            call = _c._write_host if write else _c._read_host  # pylint: disable=protected-access
            ret, extra = call(handle, target.ptr + buffer_offset, size, file_offset)
        return check_sync(ret, extra, what)

    def read(
        self, buffer: Any, size: int | None = None, file_offset: int = 0, buffer_offset: int = 0
    ) -> int:
        """Reads ``size`` bytes at ``file_offset`` into ``buffer`` at ``buffer_offset``; returns
        the bytes read (fewer at the end of the file).

        ``buffer``: an array (GPU or host memory; ``size`` defaults to its bytes from
        ``buffer_offset``), a ``Buffer``, or a pointer (then ``size`` is needed). Raises
        ``ValueError`` for a read-only or non-contiguous array or a range outside it,
        ``HipFileOSError`` (an ``OSError``) for a system error, ``HipFileError`` for the
        library's."""
        return self._sync(False, buffer, size, file_offset, buffer_offset)

    def write(
        self, buffer: Any, size: int | None = None, file_offset: int = 0, buffer_offset: int = 0
    ) -> int:
        """Writes ``size`` bytes of ``buffer`` from ``buffer_offset`` to the file at
        ``file_offset``; returns the bytes written. ``buffer`` as for ``read`` (read-only arrays
        are fine)."""
        return self._sync(True, buffer, size, file_offset, buffer_offset)

    # ---- futures ----------------------------------------------------------------------------

    def _submit(
        self, write: bool, buffer: Any, size: int | None, file_offset: int, buffer_offset: int
    ) -> IOFuture:
        what = f"{'pwrite' if write else 'pread'} of {os.fspath(self._path)!r}"
        handle = self._open_handle()
        target = _target(buffer, not write)
        size = _extent(target, size, buffer_offset, what)
        if file_offset < 0:
            raise ValueError(f"{what}: file_offset {file_offset} is negative")
        if target.device:
            op = _WRITE_DEVICE if write else _READ_DEVICE
        else:
            op = _WRITE_HOST if write else _READ_HOST
        pending = _c._submit(  # pylint: disable=protected-access
            op, handle, target.ptr, size, file_offset, buffer_offset, (self, target.keep)
        )
        future = IOFuture(pending, what)
        self._futures.add(future)
        return future

    def pread(
        self, buffer: Any, size: int | None = None, file_offset: int = 0, buffer_offset: int = 0
    ) -> IOFuture:
        """``read`` off the calling thread: returns an ``IOFuture`` whose ``get()`` gives the
        bytes read. Up to ``hipfile.set_num_threads()`` calls run at once."""
        return self._submit(False, buffer, size, file_offset, buffer_offset)

    def pwrite(
        self, buffer: Any, size: int | None = None, file_offset: int = 0, buffer_offset: int = 0
    ) -> IOFuture:
        """``write`` off the calling thread; an ``IOFuture`` of the bytes written."""
        return self._submit(True, buffer, size, file_offset, buffer_offset)

    # ---- stream-ordered ---------------------------------------------------------------------

    def _async(
        self,
        write: bool,
        buffer: Any,
        size: int | None,
        file_offset: int,
        buffer_offset: int,
        stream: Any,
    ) -> AsyncIOHandle:
        what = f"{'write_async' if write else 'read_async'} of {os.fspath(self._path)!r}"
        handle = self._open_handle()
        target = _target(buffer, not write)
        size = _extent(target, size, buffer_offset, what)
        io = AsyncIOHandle(size, file_offset, buffer_offset)
        io._keep = target.keep  # pylint: disable=protected-access
        # The values are this call's arguments, so they are fixed at submission whatever the
        # stream's registration: the library may bind the operation, and start it, now.
        submit = _c.hipFileExtWriteAsyncFixed if write else _c.hipFileExtReadAsyncFixed
        err, extra = submit(handle, target.ptr, io, stream_handle(stream))
        if err != 0:
            if target.keep is not None and not target.device and err == OpError.HIP_MEMORY_TYPE_INVALID:
                raise HipFileError(
                    err,
                    extra,
                    f"{what}: stream-ordered I/O needs GPU memory or pinned host memory "
                    "(pin a host array with hipfile.registered(array))",
                )
            if err == -1:
                check_err((err, extra), what)
            raise HipFileError(err, extra, what)
        return io

    def read_async(
        self,
        buffer: Any,
        size: int | None = None,
        file_offset: int = 0,
        buffer_offset: int = 0,
        stream: Any = None,
    ) -> AsyncIOHandle:
        """Queues a read on ``stream`` (a ``torch.cuda.Stream``, a CuPy stream, a
        ``hipfile.Stream``, an int; ``None``: the default stream) and returns at once. The
        returned ``AsyncIOHandle`` keeps the array alive; its ``bytes_done`` is valid once the
        stream has passed the read (after ``stream.synchronize()`` or an event). The size and
        offsets are taken now (``hipFileExtReadAsyncFixed``): changing the handle's afterwards
        changes nothing, as on a stream registered with the ``HIPFILE_STREAM_FIXED_*`` flags;
        ``hipfile._hipfile.hipFileReadAsync`` keeps hipFile's reading of them when the stream
        gets there."""
        return self._async(False, buffer, size, file_offset, buffer_offset, stream)

    def write_async(
        self,
        buffer: Any,
        size: int | None = None,
        file_offset: int = 0,
        buffer_offset: int = 0,
        stream: Any = None,
    ) -> AsyncIOHandle:
        """Queues a write on ``stream``; as ``read_async``."""
        return self._async(True, buffer, size, file_offset, buffer_offset, stream)


def open(  # pylint: disable=redefined-builtin
    path: str | os.PathLike[str], mode: str | int = "r", perms: int = FileHandle.DEFAULT_MODE
) -> FileHandle:
    """A ``FileHandle`` opened and registered now: ``with hipfile.open(path, "w") as f:``."""
    fh = FileHandle(path, mode, perms)
    fh.open()
    return fh
