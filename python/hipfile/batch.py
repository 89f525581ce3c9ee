# SPDX-License-Identifier: MIT
"""``Batch``: many reads and writes submitted at once (hipFileBatchIO*), waited for together."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611
from hipfile.enums import OpError
from hipfile.error import HipFileError, check_err, check_event

if TYPE_CHECKING:
    from hipfile.file import FileHandle

__all__ = ["Batch"]


class Batch:
    """A batch of up to ``max_entries`` entries in flight (``with hipfile.Batch(64) as b:``).

    ``submit`` queues entries on the library's workers at once (small ones go through io_uring
    together); ``wait`` returns the bytes each moved, in submission order, once all have finished,
    and raises the first failure. Leaving the ``with`` block waits for what is still running (or
    cancels it when an exception is leaving the block) and destroys the batch.

    Entries need GPU memory or pinned host memory: pin a NumPy array with
    ``hipfile.registered(array)``."""

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"hipfile.Batch: max_entries must be at least 1, got {max_entries}")
        handle, err = _c._batch_setup(max_entries)  # pylint: disable=protected-access
        check_err(err, f"hipfile.Batch({max_entries})")
        self._handle: int | None = handle
        self._max_entries = max_entries
        self._lock = threading.Lock()
        self._next = 0
        # cookie -> (order, what, objects kept alive while the entry may run)
        self._pending: dict[int, tuple[int, str, Any]] = {}
        self._results: dict[int, tuple[int, int, str]] = {}  # cookie -> (status, ret, what)
        self._destroy = _c._batch_destroy  # pylint: disable=protected-access

    @property
    def max_entries(self) -> int:
        """Entries that may be in flight at once."""
        return self._max_entries

    def __len__(self) -> int:
        """Entries submitted and not yet returned by ``wait``."""
        return len(self._pending) + len(self._results)

    def submit(
        self,
        fh: FileHandle,
        array: Any,
        size: int | None = None,
        file_offset: int = 0,
        op: str = "read",
        buffer_offset: int = 0,
    ) -> int:
        """Queues one read (``op="read"``, into ``array``) or write (``op="write"``, from it);
        returns its index in the list ``wait`` returns."""
        return self.submit_many([(fh, array, size, file_offset, op, buffer_offset)])[0]

    def submit_many(self, entries: list[tuple[Any, ...]]) -> list[int]:
        """Queues several entries in one submission: each ``(fh, array[, size[, file_offset[,
        op[, buffer_offset]]]])``. All or nothing: on an error none was queued."""
        from hipfile.file import _extent, _target  # pylint: disable=import-outside-toplevel

        if self._handle is None:
            raise RuntimeError("hipfile.Batch: the batch is destroyed")
        params = []
        keeps = []
        with self._lock:
            order = self._next
            for entry in entries:
                fh, array, size, file_offset, op, buffer_offset = (
                    tuple(entry) + (None, 0, "read", 0)[len(entry) - 2 :]
                )
                if op not in ("read", "write"):
                    raise ValueError(f"hipfile.Batch: op must be 'read' or 'write', got {op!r}")
                write = op == "write"
                what = f"batch {op} of {fh.path!s} at {file_offset}"
                handle = fh._open_handle()  # pylint: disable=protected-access
                target = _target(array, not write)
                size = _extent(target, size, buffer_offset, what)
                cookie = order + len(params) + 1
                params.append(
                    (handle, target.ptr, size, file_offset, buffer_offset, write, cookie)
                )
                keeps.append((cookie, order + len(keeps), what, (fh, target.keep, target.device)))
            err = _c._batch_submit(self._handle, params)  # pylint: disable=protected-access
            if err[0] != 0:
                host = [k for k in keeps if not k[3][2]]
                if err[0] == OpError.HIP_MEMORY_TYPE_INVALID and host:
                    raise HipFileError(
                        err[0],
                        err[1],
                        f"{host[0][2]}: batch entries need GPU memory or pinned host memory "
                        "(pin a host array with hipfile.registered(array))",
                    )
                check_err(err, f"hipfile.Batch.submit of {len(params)} entries")
            for cookie, index, what, keep in keeps:
                self._pending[cookie] = (index, what, keep)
            self._next = order + len(params)
        return [k[1] for k in keeps]

    def _collect(self, min_nr: int, timeout: float | None) -> None:
        if not self._pending:
            return
        events, err = _c._batch_status(  # pylint: disable=protected-access
            self._handle, min_nr, max(len(self._pending), 1), timeout
        )
        check_err(err, "hipfile.Batch.wait")
        for cookie, status, ret in events:
            _, what, _ = self._pending.pop(cookie)
            self._results[cookie] = (status, ret, what)

    def wait(self, timeout: float | None = None) -> list[int]:
        """Waits until every submitted entry has finished; returns the bytes each moved, in
        submission order, and forgets them. Raises the first failed entry's error (after all have
        finished), ``TimeoutError`` if ``timeout`` seconds pass first (entries keep running)."""
        if self._handle is None:
            raise RuntimeError("hipfile.Batch: the batch is destroyed")
        with self._lock:
            self._collect(len(self._pending), timeout)
            if self._pending:
                raise TimeoutError(
                    f"hipfile.Batch.wait: {len(self._pending)} entries not finished after "
                    f"{timeout} s"
                )
            results = [self._results[c] for c in sorted(self._results)]
            self._results.clear()
        out = []
        first_error: BaseException | None = None
        for status, ret, what in results:
            if status == _c._STATUS_COMPLETE:  # pylint: disable=protected-access
                out.append(ret)
                continue
            out.append(-1)
            if first_error is None:
                try:
                    check_event(ret if ret < 0 else -int(OpError.INTERNAL_ERROR), what)
                except (HipFileError, OSError) as e:
                    first_error = e
        if first_error is not None:
            raise first_error
        return out

    def cancel(self) -> None:
        """Cancels the entries not started yet, waits until none is running, and forgets every
        entry submitted so far (their results are dropped; ``wait`` returns only entries
        submitted later). Their memory is then free to reuse; the batch stays usable."""
        if self._handle is None:
            return
        check_err(_c._batch_cancel(self._handle), "hipfile.Batch.cancel")  # pylint: disable=W0212
        with self._lock:
            self._collect(len(self._pending), None)
            self._results.clear()

    def close(self) -> None:
        """Cancels what has not started, waits for what runs, destroys the batch."""
        if self._handle is not None:
            self._destroy(self._handle)
            self._handle = None
            self._pending.clear()
            self._results.clear()

    def __enter__(self) -> Batch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None and self._handle is not None and self._pending:
                with self._lock:
                    self._collect(len(self._pending), None)
        finally:
            self.close()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._destroy(handle)
            self._handle = None
