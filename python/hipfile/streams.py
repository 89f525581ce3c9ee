# SPDX-License-Identifier: MIT
"""``Stream`` (AMD's stream registration) and how a stream argument becomes a ``hipStream_t``."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    hipFileStreamDeregister,
    hipFileStreamRegister,
)
from hipfile._hipfile import supports_async as _supports_async  # pylint: disable=E0401,E0611
from hipfile.error import HipFileException

__all__ = ["Stream", "supports_async", "stream_handle"]


class Stream:
    """Registers a GPU stream with hipFileStreamRegister (``with Stream(s) as st:``).

    Registration is optional with this library (unregistered streams and the default stream are
    accepted); it lets the library prepare per-stream state once, and its flags promise fixed
    sizes or offsets (``HIPFILE_STREAM_FIXED_*``)."""

    def __init__(self, stream: Any, flags: int = 0) -> None:
        self._stream = stream_handle(stream)
        self._flags = int(flags)
        self._registered = False

    @property
    def handle(self) -> int:
        """The ``hipStream_t`` as an integer."""
        return self._stream

    @property
    def registered(self) -> bool:
        """Whether the stream is registered now."""
        return self._registered

    def register(self) -> None:
        """hipFileStreamRegister; idempotent."""
        if self._registered:
            return
        err, extra = hipFileStreamRegister(self._stream, self._flags)
        if err != 0:
            raise HipFileException(err, extra)
        self._registered = True

    def deregister(self) -> None:
        """hipFileStreamDeregister; idempotent."""
        if not self._registered:
            return
        err, extra = hipFileStreamDeregister(self._stream)
        if err != 0:
            raise HipFileException(err, extra)
        self._registered = False

    def __enter__(self) -> Stream:
        self.register()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.deregister()


def supports_async() -> bool:
    """Whether the library implements stream-ordered I/O (it does; AMD's probe, kept)."""
    return bool(_supports_async())


def stream_handle(stream: Any) -> int:
    """A ``hipStream_t`` from: ``None`` (the default stream), an int, a ``hipfile.Stream``, a
    ``torch.cuda.Stream`` (``cuda_stream``), a CuPy stream (``ptr``), or an object with
    ``__cuda_stream__`` (CUDA Python's protocol)."""
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise TypeError("hipfile: a stream cannot be a bool")
    if isinstance(stream, int):
        return stream
    if isinstance(stream, Stream):
        return stream.handle
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        value = protocol() if callable(protocol) else protocol
        return int(value[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(
        f"hipfile: expected a stream (None, an int, hipfile.Stream, torch.cuda.Stream, a CuPy "
        f"stream), got {type(stream).__qualname__}"
    )
