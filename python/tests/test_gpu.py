# SPDX-License-Identifier: MIT
"""torch and CuPy on a GPU: device tensors, streams, futures, batches. Skipped (and reported as
skipped) where neither is installed or no GPU is there."""

from __future__ import annotations

import numpy as np
import pytest

import hipfile


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    if hipfile.runtime()[0] != "cuda":
        pytest.skip(f"the library runs on {hipfile.runtime()[0]}, not CUDA")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("CuPy sees no GPU")
    if hipfile.runtime()[0] != "cuda":
        pytest.skip(f"the library runs on {hipfile.runtime()[0]}, not CUDA")
    return cupy


def test_torch_tensors_sync_futures_streams(data_file, tmp_path):
    torch = _torch()
    path, data = data_file
    t = torch.zeros(data.nbytes, dtype=torch.uint8, device="cuda")
    with hipfile.open(path) as f:
        assert f.read(t) == data.nbytes
        assert np.array_equal(t.cpu().numpy(), data)
        t.zero_()
        futs = [f.pread(t[i : i + 65536], file_offset=i) for i in range(0, data.nbytes, 65536)]
        assert sum(x.get() for x in futs) == data.nbytes
        assert np.array_equal(t.cpu().numpy(), data)
        s = torch.cuda.Stream()
        t2 = torch.zeros(4096, dtype=torch.float32, device="cuda")
        io = f.read_async(t2, stream=s)
        s.synchronize()
        assert io.bytes_done == t2.numel() * 4
        assert t2.cpu().numpy().tobytes() == data[: 16384].tobytes()
        io = f.read_async(t2, stream=torch.cuda.current_stream())
        torch.cuda.current_stream().synchronize()
        assert io.bytes_done == 16384
    p = torch.nn.Parameter(torch.ones(1000, device="cuda"))  # requires grad
    dst = tmp_path / "param.bin"
    assert hipfile.write_from(dst, p) == 4000
    with hipfile.open(dst) as f:
        assert f.read(p) == 4000
    with hipfile.open(path) as f:
        with pytest.raises(ValueError, match="not contiguous"):
            f.read(torch.zeros(10, 10, device="cuda").t())


def test_torch_batch_and_pinned(data_file):
    torch = _torch()
    path, data = data_file
    dev = torch.zeros(1 << 16, dtype=torch.uint8, device="cuda")
    pinned = torch.zeros(1 << 16, dtype=torch.uint8).pin_memory()
    with hipfile.open(path) as f, hipfile.Batch(32) as b:
        for i in range(16):
            b.submit(f, dev, 4096, file_offset=4096 * i, buffer_offset=4096 * i)
        b.submit(f, pinned, 1 << 16, 0)
        assert b.wait() == [4096] * 16 + [1 << 16]
    assert np.array_equal(dev.cpu().numpy(), data[: 1 << 16])
    assert np.array_equal(pinned.numpy(), data[: 1 << 16])


def test_cupy_arrays_and_streams(data_file, tmp_path):
    cupy = _cupy()
    path, data = data_file
    a = cupy.zeros(data.nbytes, dtype=cupy.uint8)
    with hipfile.open(path) as f:
        assert f.read(a) == data.nbytes
        assert np.array_equal(cupy.asnumpy(a), data)
        s = cupy.cuda.Stream(non_blocking=True)
        b = cupy.zeros(1 << 16, dtype=cupy.uint8)
        io = f.read_async(b, stream=s, file_offset=100)
        s.synchronize()
        assert io.bytes_done == 1 << 16
        assert np.array_equal(cupy.asnumpy(b), data[100 : 100 + (1 << 16)])
        with pytest.raises(ValueError, match="not contiguous"):
            f.read(a[::2])
    dst = tmp_path / "cupy.bin"
    assert hipfile.write_from(dst, a) == data.nbytes
    assert dst.read_bytes() == data.tobytes()
