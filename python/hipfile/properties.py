# SPDX-License-Identifier: MIT
"""``get_version`` and ``driver_get_properties``."""

from __future__ import annotations

from hipfile._hipfile import (  # pylint: disable=E0401,E0611
    hipFileDriverGetProperties,
    hipFileGetVersion,
)
from hipfile.error import HipFileException

__all__ = ["get_version", "driver_get_properties"]


def driver_get_properties() -> dict[str, int]:
    """hipFileDriverGetProperties as a dictionary (``max_batch_io_count``, ...; sizes in KiB)."""
    props, err = hipFileDriverGetProperties()
    if err[0] != 0:
        raise HipFileException(err[0], err[1])
    return props


def get_version() -> tuple[int, int, int]:
    """The library's ``(major, minor, patch)``."""
    version, err = hipFileGetVersion()
    if err[0] != 0:
        raise HipFileException(err[0], err[1])
    return version
