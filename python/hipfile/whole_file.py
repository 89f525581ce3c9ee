# SPDX-License-Identifier: MIT
"""Whole files in one call: ``read_into(path, array)`` and ``write_from(path, array)``."""

from __future__ import annotations

import os
from typing import Any

from hipfile.file import FileHandle

__all__ = ["read_into", "write_from"]


def read_into(path: str | os.PathLike[str], array: Any, file_offset: int = 0) -> int:
    """Reads the file from ``file_offset`` into ``array`` (GPU or host memory) until the array is
    full or the file ends; returns the bytes read."""
    with FileHandle(path, "r") as fh:
        return fh.read(array, file_offset=file_offset)


def write_from(path: str | os.PathLike[str], array: Any, *, append: bool = False) -> int:
    """Writes the bytes of ``array`` to ``path``, created or truncated (``append=True``: after
    its end); returns the bytes written. A failure raises; a file written in part is then left
    as far as it got."""
    with FileHandle(path, "a" if append else "w") as fh:
        offset = fh.size() if append else 0
        return fh.write(array, file_offset=offset)
