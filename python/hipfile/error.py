# SPDX-License-Identifier: MIT
"""Exceptions of the hipfile package.

``HipFileException`` is AMD's: ``HipFileException(hipfile_err, hip_err)``, ``str()`` giving
``"<code> - <description>[ <hip_err>]"``. This package raises its subclasses, which carry more:

- ``HipFileError``: the hipFile code (``code``, also ``hipfile_err``), its enumerator's name
  (``name``), the GPU runtime's error where one caused it (``hip_err``), and a message saying what
  was being done.
- ``HipFileOSError``: a system error (``errno``) - also an ``OSError``, so ``except OSError``
  catches it, as it catches AMD's ``OSError`` for a result of -1.
"""

from __future__ import annotations

import os

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    _hip_error_name,
    _op_error_name,
    hipFileGetOpErrorString,
)
from hipfile.enums import OpError

__all__ = ["HipFileException", "HipFileError", "HipFileOSError"]


class HipFileException(Exception):
    """A hipFile call failed: ``hipfile_err`` is the ``hipFileOpError_t``, ``hip_err`` the
    ``hipError_t`` when ``hipfile_err`` is ``OpError.HIP_DRIVER_ERROR``."""

    def __init__(self, hipfile_err: int, hip_err: int) -> None:
        # Exception's, not super()'s: in HipFileOSError the next class is OSError, whose
        # initializer would take the code for an errno.
        Exception.__init__(self, hipfile_err, hip_err)
        self._hipfile_err = int(hipfile_err)
        self._hip_err = int(hip_err)

    @property
    def hipfile_err(self) -> int:
        """The ``hipFileOpError_t`` code."""
        return self._hipfile_err

    @property
    def hip_err(self) -> int:
        """The ``hipError_t`` of a GPU runtime error (``OpError.HIP_DRIVER_ERROR``), else 0."""
        return self._hip_err

    def __str__(self) -> str:
        text = f"{self._hipfile_err} - {hipFileGetOpErrorString(self._hipfile_err)}"
        if self._hipfile_err == OpError.HIP_DRIVER_ERROR:
            text += f" {self._hip_err}"
        return text


class HipFileError(HipFileException):
    """A hipFile call failed, with the code's name and what was being done.

    Attributes: ``code`` (= ``hipfile_err``), ``name`` (e.g. ``"hipFileInvalidValue"``),
    ``hip_err``, ``errno`` (a system error's number, else ``None``), ``message``.
    """

    def __init__(self, hipfile_err: int, hip_err: int = 0, message: str = "") -> None:
        super().__init__(hipfile_err, hip_err)
        self.message = message

    @property
    def code(self) -> int:
        """The ``hipFileOpError_t`` code."""
        return self._hipfile_err

    @property
    def name(self) -> str:
        """The code's enumerator name, e.g. ``"hipFileHandleNotRegistered"``."""
        return _op_error_name(self._hipfile_err)

    def __str__(self) -> str:
        text = f"{self.name} ({self._hipfile_err}): {hipFileGetOpErrorString(self._hipfile_err)}"
        if self._hipfile_err == OpError.HIP_DRIVER_ERROR and self._hip_err:
            text += f" [{_hip_error_name(self._hip_err)} ({self._hip_err})]"
        if self.message:
            text = f"{self.message}: {text}"
        return text


class HipFileOSError(HipFileError, OSError):
    """A system error under a hipFile call: an ``OSError`` with ``errno`` and ``strerror``, and a
    ``HipFileError`` whose code is ``hipFileInternalError`` (the library's code for a system error
    without one of its own)."""

    def __init__(self, errno_value: int, message: str = "", filename: str | None = None) -> None:
        HipFileError.__init__(self, int(OpError.INTERNAL_ERROR), 0, message)
        OSError.__init__(self, errno_value, os.strerror(errno_value), filename)

    def __str__(self) -> str:
        text = f"[Errno {self.errno}] {self.strerror}"
        if self.filename is not None:
            text += f": {self.filename!r}"
        if self.message:
            text = f"{self.message}: {text}"
        return text


def check_sync(ret: int, extra: int, what: str, filename: str | None = None) -> int:
    """The result of hipFileRead/Write (or the host forms) as bytes moved, or the exception."""
    if ret >= 0:
        return ret
    if ret == -1:
        raise HipFileOSError(extra, what, filename)
    code = -ret
    if code < 5000:  # a negated hipError_t
        raise HipFileError(int(OpError.HIP_DRIVER_ERROR), code, what)
    raise HipFileError(code, extra, what)


def check_event(ret: int, what: str) -> int:
    """A stream-ordered or batch result: bytes moved, or -errno / -hipFileOpError_t."""
    if ret >= 0:
        return ret
    code = -ret
    if code < 5000:
        raise HipFileOSError(code, what)
    raise HipFileError(code, 0, what)


def check_err(err: tuple[int, int], what: str) -> None:
    """An (err, hip_err) tuple: nothing on success, else the exception."""
    code, extra = err
    if code == 0:
        return
    if code == -1:
        raise HipFileOSError(extra or 0, what)
    raise HipFileError(code, extra, what)
