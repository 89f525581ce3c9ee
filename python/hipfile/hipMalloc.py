# SPDX-License-Identifier: MIT
# pylint: disable=invalid-name
"""AMD's provisional GPU memory helper: ``hipMalloc(size) -> ctypes.c_void_p`` and
``hipFree(ptr)``, here from the HIP runtime subset the library exports (on CUDA, cudaMalloc in
the device's primary context; on the CPU runtime, host memory standing in for the GPU's)."""

from __future__ import annotations

import ctypes

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611
from hipfile._hipfile import _hip_free, _hip_malloc  # pylint: disable=E0401,E0611

__all__ = [
    "hipMalloc",
    "hipFree",
    "hipMemcpy",
    "hipStreamCreate",
    "hipStreamSynchronize",
    "hipStreamDestroy",
]


def hipMalloc(size_bytes: int) -> ctypes.c_void_p:
    """Allocates ``size_bytes`` of GPU memory; ``RuntimeError`` on failure."""
    ptr, status = _hip_malloc(size_bytes)
    if status != 0:
        raise RuntimeError(f"hipMalloc failed ({status})")
    return ctypes.c_void_p(ptr)


def hipFree(ptr: ctypes.c_void_p) -> None:
    """Frees memory from ``hipMalloc``; ``RuntimeError`` on failure."""
    value = ptr.value if isinstance(ptr, ctypes.c_void_p) else ptr
    status = _hip_free(value or 0)
    if status != 0:
        raise RuntimeError(f"hipFree failed ({status})")


# Beyond AMD's helper: enough of a GPU runtime for the package's examples and tests without
# torch or CuPy (their streams and arrays work as well).


def hipMemcpy(dst: int, src: int, size: int) -> None:
    """Copies ``size`` bytes between any two pointers (hipMemcpyDefault)."""
    status = _c._hip_memcpy(dst, src, size)  # pylint: disable=protected-access
    if status != 0:
        raise RuntimeError(f"hipMemcpy failed ({status})")


def hipStreamCreate() -> int:
    """A new stream, as an integer ``hipStream_t``."""
    stream, status = _c._hip_stream_create()  # pylint: disable=protected-access
    if status != 0:
        raise RuntimeError(f"hipStreamCreate failed ({status})")
    return stream


def hipStreamSynchronize(stream: int) -> None:
    """Waits until ``stream`` has run everything queued on it."""
    status = _c._hip_stream_synchronize(stream)  # pylint: disable=protected-access
    if status != 0:
        raise RuntimeError(f"hipStreamSynchronize failed ({status})")


def hipStreamDestroy(stream: int) -> None:
    """Destroys a stream from ``hipStreamCreate``."""
    status = _c._hip_stream_destroy(stream)  # pylint: disable=protected-access
    if status != 0:
        raise RuntimeError(f"hipStreamDestroy failed ({status})")
