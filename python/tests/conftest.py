# SPDX-License-Identifier: MIT
"""Fixtures of the package's tests. They run against the installed package (python/tests/run.sh
installs it into a fresh virtual environment), on whatever runtime the library picks: the CPU
runtime without a GPU (HIPFILE_RUNTIME=cpu-staged runs a GPU's data paths on it), CUDA on a GPU
machine, where test_gpu.py adds torch and CuPy."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest


@pytest.fixture
def data_file(tmp_path: pathlib.Path) -> tuple[pathlib.Path, np.ndarray]:
    """A 1 MiB file of random bytes, and those bytes."""
    rng = np.random.default_rng(1234)
    data = rng.integers(0, 256, size=1 << 20, dtype=np.uint8)
    path = tmp_path / "data.bin"
    path.write_bytes(data.tobytes())
    return path, data


@pytest.fixture
def device_buffer():
    """GPU memory from hipMalloc (host memory on the CPU runtime), freed after the test."""
    from hipfile.hipMalloc import hipFree, hipMalloc

    ptrs = []

    def alloc(size: int) -> int:
        p = hipMalloc(size)
        ptrs.append(p)
        return p.value

    yield alloc
    for p in ptrs:
        hipFree(p)


def device_to_numpy(ptr: int, size: int) -> np.ndarray:
    """A copy of GPU memory in a NumPy array."""
    from hipfile.hipMalloc import hipMemcpy

    out = np.empty(size, dtype=np.uint8)
    hipMemcpy(out.ctypes.data, ptr, size)
    return out


def numpy_to_device(array: np.ndarray, ptr: int) -> None:
    """Copies a NumPy array's bytes to GPU memory."""
    from hipfile.hipMalloc import hipMemcpy

    hipMemcpy(ptr, array.ctypes.data, array.nbytes)


def runtime() -> str:
    """The runtime the library chose."""
    import hipfile

    return hipfile.runtime()[0]


os.environ.setdefault("HIPFILE_LOG_LEVEL", "error")
