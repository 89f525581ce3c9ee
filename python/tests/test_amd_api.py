# SPDX-License-Identifier: MIT
"""AMD's hipfile API (hipfile-spec.md §6) as code written for AMD's package uses it."""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np
import pytest

import hipfile
from hipfile import _hipfile
from hipfile.hipMalloc import hipStreamCreate, hipStreamDestroy, hipStreamSynchronize

from conftest import device_to_numpy, numpy_to_device, runtime


def test_names_of_amds_package_are_here():
    for name in (
        "Driver",
        "FileHandle",
        "Stream",
        "supports_async",
        "Buffer",
        "HipFileException",
        "FileHandleType",
        "OpError",
        "driver_get_properties",
        "get_version",
        "__version__",
    ):
        assert name in hipfile.__all__
        assert hasattr(hipfile, name)
    for name in (
        "hipFileDriverOpen",
        "hipFileDriverClose",
        "hipFileUseCount",
        "hipFileGetVersion",
        "hipFileHandleRegister",
        "hipFileHandleDeregister",
        "hipFileBufRegister",
        "hipFileBufDeregister",
        "hipFileRead",
        "hipFileWrite",
        "hipFileReadAsync",
        "hipFileWriteAsync",
        "hipFileStreamRegister",
        "hipFileStreamDeregister",
        "hipFileDriverGetProperties",
        "hipFileGetOpErrorString",
        "AsyncIOHandle",
        "is_hipfile_err",
        "hipfile_errstr",
        "is_hip_drv_err",
        "hip_drv_err",
        "supports_async",
        "VERSION_MAJOR",
        "BASE_ERR",
    ):
        assert hasattr(_hipfile, name), name


def test_version_matches_the_library():
    assert hipfile.get_version() == (0, 5, 0)
    assert hipfile.__version__ == "0.5.0"
    (version, err) = _hipfile.hipFileGetVersion()
    assert version == (0, 5, 0) and err == (0, 0)


def test_enums_carry_the_c_values():
    assert hipfile.OpError.SUCCESS == 0
    assert hipfile.OpError.INVALID_VALUE == 5022
    assert hipfile.OpError.HANDLE_NOT_REGISTERED == 5027
    assert hipfile.FileHandleType.OPAQUE_FD == 1
    assert len(hipfile.OpError) == 38


def test_error_helpers():
    assert _hipfile.is_hipfile_err(-5022) and not _hipfile.is_hipfile_err(-5)
    assert _hipfile.hipfile_errstr(-5022) == _hipfile.hipFileGetOpErrorString(5022) != ""
    assert _hipfile.is_hip_drv_err((5011, 3)) and _hipfile.hip_drv_err((5011, 3)) == 3


def test_hipfile_exception_is_amds():
    e = hipfile.HipFileException(hipfile.OpError.INVALID_VALUE, 7)
    assert e.hipfile_err == 5022 and e.hip_err == 7
    assert str(e).startswith("5022 - ")
    assert _hipfile.hipFileGetOpErrorString(5022) in str(e)
    assert str(hipfile.HipFileException(hipfile.OpError.HIP_DRIVER_ERROR, 3)).endswith(" 3")


def test_driver_opens_and_closes_counted():
    before = hipfile.Driver.use_count()
    with hipfile.Driver():
        assert hipfile.Driver.use_count() == before + 1
        with hipfile.Driver() as inner:
            assert hipfile.Driver.use_count() == before + 2
            assert isinstance(inner, hipfile.Driver)
    assert hipfile.Driver.use_count() == before


def test_driver_properties():
    with hipfile.Driver():
        props = hipfile.driver_get_properties()
    assert set(props) >= {
        "nvfs_major_version",
        "max_batch_io_count",
        "max_device_pinned_mem_size",
        "max_batch_io_timeout_msecs",
    }
    assert props["max_batch_io_count"] > 0


def test_supports_async():
    assert hipfile.supports_async() is True


def test_round_trip_through_a_registered_buffer(tmp_path, device_buffer):
    size = 1 << 20
    data = np.random.default_rng(5).integers(0, 256, size, dtype=np.uint8)
    src = tmp_path / "src.bin"
    src.write_bytes(data.tobytes())
    dst = tmp_path / "dst.bin"
    ptr = device_buffer(size)
    with hipfile.Driver():
        with hipfile.Buffer.from_ctypes_void_p(ctypes.c_void_p(ptr), size, 0) as buf:
            assert buf.registered
            with hipfile.FileHandle(src, os.O_RDONLY) as fh:
                assert fh.read(buf, size, 0, 0) == size
            with hipfile.FileHandle(dst, os.O_CREAT | os.O_WRONLY) as fh:
                assert fh.write(buf, size, 0, 0) == size
        assert not buf.registered
    assert dst.read_bytes() == data.tobytes()


def test_copy_waits_count_staged_transfers(data_file, device_buffer):
    """A read into GPU memory staged through the library's pinned buffers waits for its copy
    (hipfile.stats()["copy_waits"], hipFileExtGetCopyWaitStats): counted on the runtimes that
    stage (CUDA, cpu-staged), not on the CPU runtime, whose GPU memory is host memory."""
    path, data = data_file
    ptr = device_buffer(data.nbytes)
    before = hipfile.stats()["copy_waits"]
    assert set(before) == {"waits", "slept", "poll_ns", "sleep_ns"}
    with hipfile.FileHandle(path, os.O_RDONLY) as fh:
        assert fh.read(ptr, data.nbytes, 0, 0) == data.nbytes
    after = hipfile.stats()["copy_waits"]
    assert (device_to_numpy(ptr, data.nbytes) == data).all()
    waits = after["waits"] - before["waits"]
    if runtime() == "cpu":
        assert after == before, "a wait where nothing is staged"
    else:
        assert waits >= 1
        assert 0 <= after["slept"] - before["slept"] <= waits
        assert after["poll_ns"] > before["poll_ns"]


def test_pointer_form_with_offsets(data_file, device_buffer):
    path, data = data_file
    ptr = device_buffer(8192)
    with hipfile.FileHandle(path, os.O_RDONLY) as fh:
        assert fh.read(ptr, 4096, 100, 4096) == 4096
    assert (device_to_numpy(ptr + 4096, 4096) == data[100:4196]).all()


def test_buffer_refuses_a_null_pointer():
    with pytest.raises(ValueError):
        hipfile.Buffer.from_ctypes_void_p(ctypes.c_void_p(None), 10, 0)


def test_system_errors_are_oserror(data_file, device_buffer):
    path, _ = data_file
    ptr = device_buffer(4096)
    with hipfile.FileHandle(path, os.O_RDONLY) as fh:
        with pytest.raises(OSError) as info:
            fh.write(ptr, 4096, 0, 0)
    assert info.value.errno == 9  # EBADF: opened read-only


def test_library_errors_are_hipfile_exceptions(data_file):
    path, _ = data_file
    pageable = np.zeros(4096, dtype=np.uint8)
    with hipfile.FileHandle(path, os.O_RDONLY) as fh:
        with pytest.raises(hipfile.HipFileException) as info:
            fh.read(pageable.ctypes.data, 4096, 0, 0)  # a pointer: AMD's rules, pageable refused
    assert info.value.hipfile_err == hipfile.OpError.HIP_MEMORY_TYPE_INVALID


def test_filehandle_state_rules(tmp_path):
    fh = hipfile.FileHandle(tmp_path / "f", os.O_CREAT | os.O_RDWR)
    with pytest.raises(RuntimeError):
        fh.read(0, 1, 0, 0)
    fh.open()
    with pytest.raises(RuntimeError):
        fh.open()
    with pytest.raises(RuntimeError):
        fh.handle_type = hipfile.FileHandleType.OPAQUE_FD
    fh.close()
    fh.close()
    with pytest.raises(NotImplementedError):
        fh.handle_type = hipfile.FileHandleType.OPAQUE_WIN32
    with pytest.raises(ValueError):
        fh.handle_type = 42


def test_registration_failure_closes_the_descriptor(tmp_path):
    fh = hipfile.FileHandle(tmp_path / "f", os.O_CREAT | os.O_RDWR)
    fh.handle_type = hipfile.FileHandleType.USERSPACE_FS  # no fs_ops: refused
    with pytest.raises(hipfile.HipFileException):
        fh.open()
    assert fh.handle is None and fh.fd is None


def test_stream_ordered_pointer_form(data_file, device_buffer, tmp_path):
    path, data = data_file
    size = data.nbytes
    ptr = device_buffer(size)
    stream = hipStreamCreate()
    ways = ("run_at_once", "read_at_submission", "copied_at_submission", "staged", "worker",
            "host_function")
    before = hipfile.stats()["async_ways"]
    try:
        with hipfile.Stream(stream) as st, hipfile.FileHandle(path, os.O_RDONLY) as fh:
            assert st.registered
            st.register()  # idempotent
            io = fh.read_async(ptr, size, 0, 0, st.handle)
            hipStreamSynchronize(stream)
            assert io.bytes_done == size
        assert not st.registered
        out = tmp_path / "out.bin"
        with hipfile.FileHandle(out, os.O_CREAT | os.O_WRONLY) as fh:
            io = fh.write_async(ptr, size, 0, 0, stream)
            hipStreamSynchronize(stream)
            assert io.bytes_done == size
        assert out.read_bytes() == data.tobytes()
        # Each operation counted once, by direction, under one way (hipFileExtGetAsyncWayStats).
        after = hipfile.stats()["async_ways"]
        assert set(after) == set(ways) | {"large_chunks", "chains_alone", "staging_waits",
                                          "copied_ahead", "used_ahead", "ahead_on_companion",
                                          "one_launch", "ahead_in_parts", "ahead_not_pinned",
                                          "ahead_no_room", "ahead_windows_chosen"}
        for key in ("read_ops", "write_ops"):
            assert sum(after[w][key] - before[w][key] for w in ways) == 1, key
    finally:
        hipStreamDestroy(stream)


def test_read_async_takes_its_values_at_the_call(tmp_path, device_buffer):
    """read_async binds size and offsets when called (hipFileExtReadAsyncFixed): a handle changed
    while the read waits behind a long one on its stream changes nothing."""
    big = 32 << 20
    data = np.random.default_rng(7).integers(0, 256, size=big, dtype=np.uint8)
    path = tmp_path / "big.bin"
    path.write_bytes(data.tobytes())
    ptr = device_buffer(big + 2 * 4096)
    stream = hipStreamCreate()
    try:
        with hipfile.FileHandle(path, os.O_RDONLY) as fh:
            first = fh.read_async(ptr, big, 0, 0, stream)  # keeps the stream busy a while
            fixed = fh.read_async(ptr + big, 4096, 8192, 0, stream)
            fixed.size, fixed.file_offset, fixed.buffer_offset = 1, 0, 4096
            hipStreamSynchronize(stream)
            assert first.bytes_done == big
            assert fixed.bytes_done == 4096
        got = device_to_numpy(ptr, big + 2 * 4096)
        assert np.array_equal(got[:big], data)
        assert np.array_equal(got[big:big + 4096], data[8192:8192 + 4096])
    finally:
        hipStreamDestroy(stream)


def test_stream_ordered_on_per_thread_default_streams(data_file, device_buffer):
    """hipStreamPerThread, (hipStream_t)2 as an int: each thread's own default stream."""
    path, data = data_file
    half = data.nbytes // 2
    ptr = device_buffer(data.nbytes)
    per_thread = 2
    done = {}

    def read(index: int) -> None:
        with hipfile.FileHandle(path, os.O_RDONLY) as fh:
            io = fh.read_async(ptr + index * half, half, index * half, 0, per_thread)
            hipStreamSynchronize(per_thread)
            done[index] = io.bytes_done

    threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert done == {0: half, 1: half}
    assert np.array_equal(device_to_numpy(ptr, data.nbytes), data)


def test_async_io_handle_fields():
    io = _hipfile.AsyncIOHandle(10, 20, 30)
    assert (io.size, io.file_offset, io.buffer_offset, io.bytes_done) == (10, 20, 30, 0)
    io.size = 11
    assert io.size == 11
    with pytest.raises(AttributeError):
        io.bytes_done = 5


def test_low_level_tuple_returns(data_file, device_buffer):
    path, data = data_file
    fd = os.open(path, os.O_RDONLY)
    try:
        handle, err = _hipfile.hipFileHandleRegister(fd, 1)
        assert err == (0, 0) and handle != 0
        ptr = device_buffer(4096)
        assert _hipfile.hipFileBufRegister(ptr, 4096) == (0, 0)
        assert _hipfile.hipFileBufRegister(ptr, 4096)[0] == hipfile.OpError.MEMORY_ALREADY_REGISTERED
        assert _hipfile.hipFileRead(handle, ptr, 4096, 0, 0) == (4096, 0)
        assert (device_to_numpy(ptr, 4096) == data[:4096]).all()
        assert _hipfile.hipFileRead(handle, ptr, 4096, -1, 0) == (-1, 22)
        assert _hipfile.hipFileBufDeregister(ptr) == (0, 0)
        _hipfile.hipFileHandleDeregister(handle)
        ret, _ = _hipfile.hipFileRead(handle, ptr, 4096, 0, 0)
        assert ret == -hipfile.OpError.HANDLE_NOT_REGISTERED
    finally:
        os.close(fd)


def test_amd_hipmalloc_helper(tmp_path):
    from hipfile.hipMalloc import hipFree, hipMalloc

    p = hipMalloc(4096)
    assert isinstance(p, ctypes.c_void_p) and p.value
    numpy_to_device(np.full(4096, 7, dtype=np.uint8), p.value)
    assert (device_to_numpy(p.value, 4096) == 7).all()
    hipFree(p)
