# SPDX-License-Identifier: MIT
"""``Buffer`` (AMD's: a registration of memory someone else owns) and ``registered(array)``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from ctypes import c_void_p
from types import TracebackType
from typing import Any

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    _hip_error_name,
    _hip_host_register,
    _hip_host_unregister,
    _view,
    hipFileBufDeregister,
    hipFileBufRegister,
)
from hipfile.enums import OpError
from hipfile.error import HipFileError, HipFileException, check_err

__all__ = ["Buffer", "registered"]


class Buffer:
    """A registration of ``length`` bytes at ``buffer_ptr`` with hipFileBufRegister. It does not
    own the memory. ``with Buffer(ptr, n, 0) as buf:`` registers and deregisters."""

    @classmethod
    def from_ctypes_void_p(cls, ctypes_void_p: c_void_p, length: int, flags: int) -> Buffer:
        """A ``Buffer`` of a ``ctypes.c_void_p`` (``ValueError`` for a null pointer)."""
        if ctypes_void_p.value is None:
            raise ValueError("Cannot pass in a null pointer.")
        return cls(ctypes_void_p.value, length, flags)

    def __init__(self, buffer_ptr: int, length: int, flags: int) -> None:
        self._buffer_ptr = int(buffer_ptr)
        self._length = int(length)
        self._flags = int(flags)
        self._registered = False

    def __del__(self) -> None:
        try:
            self.deregister()
        except Exception:  # pylint: disable=broad-except
            print("Failed to deregister hipFile.Buffer at destruction time.", file=sys.stderr)

    def __enter__(self) -> Buffer:
        self.register()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.deregister()

    @property
    def ptr(self) -> int:
        """The memory's address."""
        return self._buffer_ptr

    @property
    def length(self) -> int:
        """Bytes registered."""
        return self._length

    @property
    def registered(self) -> bool:
        """Whether it is registered now."""
        return self._registered

    def register(self) -> None:
        """hipFileBufRegister; ``HipFileException`` on failure."""
        err = hipFileBufRegister(self._buffer_ptr, self._length, self._flags)
        if err[0] != 0:
            raise HipFileException(err[0], err[1])
        self._registered = True

    def deregister(self) -> None:
        """hipFileBufDeregister, when registered."""
        if self._registered:
            err = hipFileBufDeregister(self._buffer_ptr)
            if err[0] != 0:
                raise HipFileException(err[0], err[1])
            self._registered = False


@contextmanager
def registered(array: Any, flags: int = 0) -> Iterator[Any]:
    """Registers an array's memory for the block and yields the array.

    GPU memory is registered with hipFileBufRegister (the library then skips looking it up on
    every call). Host memory (NumPy arrays) is pinned first (hipHostRegister), so stream-ordered
    and batch I/O, which need pinned memory, accept it too. Both are undone on leaving the block.
    """
    ptr, nbytes, is_device, _ = _view(array, False)
    if nbytes == 0:
        yield array
        return
    pinned = False
    if not is_device:
        status = _hip_host_register(ptr, nbytes)
        if status != 0:
            raise HipFileError(
                int(OpError.HIP_DRIVER_ERROR),
                status, f"hipfile.registered: pinning {nbytes} bytes of host memory "
                f"failed ({_hip_error_name(status)})"
            )
        pinned = True
    try:
        check_err(hipFileBufRegister(ptr, nbytes, flags), "hipfile.registered")
        try:
            yield array
        finally:
            check_err(hipFileBufDeregister(ptr), "hipfile.registered: deregistering")
    finally:
        if pinned:
            _hip_host_unregister(ptr)
