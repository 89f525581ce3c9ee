# SPDX-License-Identifier: MIT
"""FileHandle.read / write with arrays: NumPy (the buffer protocol and DLPack), objects with
__cuda_array_interface__, GPU memory; sizes, offsets and the errors a user can make."""

from __future__ import annotations

import os

import numpy as np
import pytest

import hipfile

from conftest import device_to_numpy, numpy_to_device


def test_numpy_round_trip_with_default_size(data_file, tmp_path):
    path, data = data_file
    out = np.zeros_like(data)
    with hipfile.open(path) as f:
        assert f.read(out) == data.nbytes
    assert (out == data).all()
    dst = tmp_path / "copy.bin"
    with hipfile.open(dst, "w") as f:
        assert f.write(out) == data.nbytes
    assert dst.read_bytes() == data.tobytes()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex64])
def test_sizes_are_bytes_whatever_the_dtype(data_file, dtype):
    path, data = data_file
    out = np.zeros(1000, dtype=dtype)
    with hipfile.open(path) as f:
        assert f.read(out) == out.nbytes
    assert out.tobytes() == data[: out.nbytes].tobytes()


def test_multidimensional_contiguous_arrays(data_file):
    path, data = data_file
    out = np.zeros((16, 32, 8), dtype=np.float32)
    with hipfile.open(path) as f:
        assert f.read(out, file_offset=12) == out.nbytes
    assert out.tobytes() == data[12 : 12 + out.nbytes].tobytes()


def test_size_and_offsets(data_file):
    path, data = data_file
    out = np.zeros(10000, dtype=np.uint8)
    with hipfile.open(path) as f:
        assert f.read(out, 3000, file_offset=77, buffer_offset=5000) == 3000
        assert f.read(out, size=0) == 0
    assert (out[5000:8000] == data[77:3077]).all()
    assert not out[:5000].any() and not out[8000:].any()


def test_short_read_at_the_end_of_the_file(data_file):
    path, data = data_file
    out = np.zeros(4096, dtype=np.uint8)
    with hipfile.open(path) as f:
        assert f.read(out, file_offset=data.nbytes - 100) == 100
        assert f.read(out, file_offset=data.nbytes) == 0
    assert (out[:100] == data[-100:]).all()


def test_unaligned_host_memory(data_file):
    path, data = data_file
    storage = np.zeros(70000, dtype=np.uint8)
    view = storage[3:65539]  # contiguous, off every alignment
    with hipfile.open(path) as f:
        assert f.read(view, file_offset=4096) == 65536
    assert (view == data[4096 : 4096 + 65536]).all()


def test_buffer_protocol_objects(data_file, tmp_path):
    path, data = data_file
    ba = bytearray(5000)
    with hipfile.open(path) as f:
        assert f.read(ba) == 5000
        assert f.read(memoryview(ba)[1000:2000], file_offset=1) == 1000
    assert bytes(ba[:1000]) == data[:1000].tobytes()
    assert bytes(ba[1000:2000]) == data[1:1001].tobytes()
    dst = tmp_path / "b.bin"
    with hipfile.open(dst, "w") as f:
        assert f.write(b"hello, file") == 11  # read-only bytes are fine to write from
    assert dst.read_bytes() == b"hello, file"


def test_read_only_arrays_are_refused_for_reads_only(data_file, tmp_path):
    path, _ = data_file
    ro = np.zeros(100, dtype=np.uint8)
    ro.flags.writeable = False
    with hipfile.open(path) as f:
        with pytest.raises(ValueError, match="read-only"):
            f.read(ro)
        with pytest.raises(ValueError, match="read-only"):
            f.read(b"immutable")
    with hipfile.open(tmp_path / "ro.bin", "w") as f:
        assert f.write(ro) == 100


def test_non_contiguous_arrays_are_refused(data_file):
    path, _ = data_file
    a = np.zeros((100, 100), dtype=np.uint8)
    with hipfile.open(path) as f:
        for bad in (a[::2], a[:, 1], a.T):
            with pytest.raises(ValueError, match="not contiguous"):
                f.read(bad)
        assert f.read(a[3]) == 100  # a row is contiguous
        assert f.read(a[:, :].reshape(-1)) == 10000


def test_what_is_no_array_is_a_type_error(data_file):
    path, _ = data_file
    with hipfile.open(path) as f:
        for bad in ("text", 1.5, None, [1, 2, 3], object()):
            with pytest.raises(TypeError):
                f.read(bad)


def test_ranges_outside_the_array(data_file):
    path, _ = data_file
    out = np.zeros(100, dtype=np.uint8)
    with hipfile.open(path) as f:
        with pytest.raises(ValueError, match="do not fit"):
            f.read(out, 101)
        with pytest.raises(ValueError, match="do not fit"):
            f.read(out, 50, buffer_offset=60)
        with pytest.raises(ValueError, match="past"):
            f.read(out, buffer_offset=101)
        with pytest.raises(ValueError, match="negative"):
            f.read(out, buffer_offset=-1)
        with pytest.raises(ValueError, match="negative"):
            f.read(out, -5)


def test_negative_file_offset_is_an_oserror(data_file):
    path, _ = data_file
    out = np.zeros(100, dtype=np.uint8)
    with hipfile.open(path) as f:
        with pytest.raises(OSError) as info:
            f.read(out, file_offset=-1)
    assert info.value.errno == 22


def test_zero_size_arrays(data_file):
    path, _ = data_file
    with hipfile.open(path) as f:
        assert f.read(np.zeros(0, dtype=np.float32)) == 0
        assert f.read(np.zeros((0, 4))) == 0


class CudaArray:
    """A minimal __cuda_array_interface__ producer over hipMalloc memory (Numba's shape)."""

    def __init__(self, ptr: int, shape, typestr: str, strides=None, readonly=False) -> None:
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (ptr, readonly),
            "strides": strides,
            "version": 3,
        }


def test_cuda_array_interface(data_file, device_buffer, tmp_path):
    path, data = data_file
    ptr = device_buffer(8192)
    arr = CudaArray(ptr, (1024,), "<f8")
    with hipfile.open(path) as f:
        assert f.read(arr, file_offset=8) == 8192
    assert (device_to_numpy(ptr, 8192) == data[8:8200]).all()
    with hipfile.open(path) as f:
        with pytest.raises(ValueError, match="read-only"):
            f.read(CudaArray(ptr, (1024,), "<f8", readonly=True))
        with pytest.raises(ValueError, match="not contiguous"):
            f.read(CudaArray(ptr, (512,), "<f8", strides=(16,)))
        assert f.read(CudaArray(ptr, (4, 256), "<f8", strides=(2048, 8))) == 8192
    dst = tmp_path / "cai.bin"
    with hipfile.open(dst, "w") as f:
        assert f.write(CudaArray(ptr, (1024,), "<f8", readonly=True)) == 8192


def test_device_memory_by_pointer_and_array(device_buffer, data_file):
    path, data = data_file
    ptr = device_buffer(1 << 20)
    numpy_to_device(np.zeros(1 << 20, dtype=np.uint8), ptr)
    with hipfile.open(path) as f:
        assert f.read(ptr, 1 << 20, 0, 0) == 1 << 20
    assert (device_to_numpy(ptr, 1 << 20) == data).all()


def test_registered_arrays(data_file, device_buffer):
    path, data = data_file
    out = np.zeros(1 << 16, dtype=np.uint8)
    with hipfile.registered(out) as arr, hipfile.open(path) as f:
        assert arr is out
        assert f.read(out) == out.nbytes
    assert (out == data[: out.nbytes]).all()
    ptr = device_buffer(4096)
    with hipfile.registered(CudaArray(ptr, (4096,), "|u1")), hipfile.open(path) as f:
        assert f.read(ptr, 4096, 0, 0) == 4096
    # registered again after leaving: the registration was undone
    with hipfile.registered(out):
        pass


def test_closed_file_handles_refuse_io(data_file):
    path, _ = data_file
    f = hipfile.open(path)
    f.close()
    with pytest.raises(RuntimeError, match="not open"):
        f.read(np.zeros(10, dtype=np.uint8))


def test_modes(tmp_path):
    p = tmp_path / "m.bin"
    with hipfile.open(p, "w") as f:
        f.write(np.arange(10, dtype=np.uint8))
    with hipfile.open(p, "a") as f:
        assert f.size() == 10
    with pytest.raises(FileExistsError):
        hipfile.open(p, "x")
    with pytest.raises(ValueError, match="unknown mode"):
        hipfile.FileHandle(p, "q")
    with pytest.raises(FileNotFoundError):
        hipfile.open(tmp_path / "missing")
    with hipfile.FileHandle(p, os.O_RDONLY) as f:
        assert f.flags == os.O_RDONLY and not f.closed
    assert f.closed
