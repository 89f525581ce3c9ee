# SPDX-License-Identifier: MIT
"""``Driver``: hipFileDriverOpen / hipFileDriverClose, reference counted, as a context manager.

The array API needs no driver object: registering a file opens the driver implicitly.
"""

from __future__ import annotations

from types import TracebackType

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    hipFileDriverClose,
    hipFileDriverOpen,
    hipFileUseCount,
)
from hipfile.error import HipFileException

__all__ = ["Driver"]


class Driver:
    """Opens the driver on ``open()`` / ``with``, closes it on ``close()`` / leaving the block.
    Opens and closes nest: the driver stays open until each open has been closed."""

    @staticmethod
    def use_count() -> int:
        """The driver's reference count."""
        return hipFileUseCount()

    def __enter__(self) -> Driver:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def open(self) -> None:
        """hipFileDriverOpen; raises ``HipFileException`` on failure."""
        err = hipFileDriverOpen()
        if err[0] != 0:
            raise HipFileException(err[0], err[1])

    def close(self) -> None:
        """hipFileDriverClose; raises ``HipFileException`` on failure."""
        err = hipFileDriverClose()
        if err[0] != 0:
            raise HipFileException(err[0], err[1])
