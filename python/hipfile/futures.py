# SPDX-License-Identifier: MIT
"""``IOFuture``: the result of ``FileHandle.pread`` / ``pwrite``."""

from __future__ import annotations

from typing import Any

from hipfile.error import check_sync

__all__ = ["IOFuture"]


class IOFuture:
    """One read or write running on the package's threads (one library call each).

    ``get()`` waits and returns the bytes moved, or raises what the call failed with. The
    array and the file stay referenced until the call has finished; dropping the future waits
    for it."""

    def __init__(self, pending: Any, what: str) -> None:
        self._pending = pending
        self._what = what
        self._result: int | None = None

    def done(self) -> bool:
        """Whether the call has finished."""
        return bool(self._pending.done())

    def wait(self, timeout: float | None = None) -> bool:
        """Waits up to ``timeout`` seconds (forever for ``None``); True when it finished."""
        return bool(self._pending.wait(timeout))

    def get(self, timeout: float | None = None) -> int:
        """The bytes moved; raises ``TimeoutError`` when ``timeout`` passes first, and the
        call's error (``HipFileOSError``, ``HipFileError``) when it failed."""
        if self._result is None:
            if not self._pending.wait(timeout):
                raise TimeoutError(f"{self._what}: not finished after {timeout} s")
            ret, extra = self._pending.result()
            self._result = check_sync(ret, extra, self._what)
        return self._result

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<hipfile.IOFuture {self._what} {state}>"

