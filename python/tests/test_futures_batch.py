# SPDX-License-Identifier: MIT
"""pread / pwrite futures, Batch, and whole-file helpers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import hipfile


def test_futures_read_and_write(data_file, tmp_path):
    path, data = data_file
    out = np.zeros_like(data)
    chunk = 1 << 16
    with hipfile.open(path) as f:
        futures = [
            f.pread(out, chunk, file_offset=off, buffer_offset=off)
            for off in range(0, data.nbytes, chunk)
        ]
        assert sum(fut.get() for fut in futures) == data.nbytes
        assert all(fut.done() for fut in futures)
    assert (out == data).all()
    dst = tmp_path / "w.bin"
    with hipfile.open(dst, "w") as f:
        futs = [f.pwrite(out[i : i + chunk], file_offset=i) for i in range(0, out.nbytes, chunk)]
        assert [x.get() for x in futs] == [chunk] * (out.nbytes // chunk)
    assert dst.read_bytes() == data.tobytes()


def test_future_errors_raise_on_get(data_file):
    path, _ = data_file
    with hipfile.open(path) as f:
        fut = f.pwrite(np.zeros(10, dtype=np.uint8))  # opened read-only
        with pytest.raises(OSError) as info:
            fut.get()
        assert info.value.errno == 9
        with pytest.raises(OSError):
            fut.get()  # again: the same answer


def test_futures_are_waited_for_when_dropped_or_closed(data_file):
    path, data = data_file
    f = hipfile.open(path)
    out = np.zeros_like(data)
    f.pread(out)  # the future is dropped at once: dropping waits, the array stays alive
    fut = f.pread(out)
    f.close()  # waits for outstanding futures first
    assert fut.done() and fut.get() == data.nbytes


def test_number_of_threads():
    before = hipfile.get_num_threads()
    hipfile.set_num_threads(3)
    assert hipfile.get_num_threads() == 3
    with pytest.raises(ValueError):
        hipfile.set_num_threads(0)
    hipfile.set_num_threads(before)


def test_many_threads_read_slices_of_one_array(data_file):
    path, data = data_file
    out = np.zeros_like(data)
    errors = []

    def work(k: int) -> None:
        try:
            with hipfile.open(path) as f:
                for off in range(k * 4096, data.nbytes, 16 * 4096):
                    assert f.read(out[off : off + 4096], file_offset=off) == 4096
        except Exception as e:  # pylint: disable=broad-except
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert (out == data).all()


def test_batch_reads_and_writes(data_file, tmp_path, device_buffer):
    path, data = data_file
    host = np.zeros(1 << 16, dtype=np.uint8)
    dev = device_buffer(1 << 16)
    dst = tmp_path / "batch.bin"
    with hipfile.registered(host), hipfile.open(path) as f, hipfile.open(dst, "w+") as g:
        with hipfile.Batch(16) as batch:
            idx = [batch.submit(f, host, 4096, file_offset=4096 * i, buffer_offset=4096 * i)
                   for i in range(8)]
            assert idx == list(range(8))
            idx = batch.submit_many([(f, dev, 4096, 0), (f, dev, 4096, 8192, "read", 4096)])
            assert idx == [8, 9]
            assert batch.wait() == [4096] * 10
            assert len(batch) == 0
            batch.submit(g, host, 8 * 4096, 0, op="write")
            assert batch.wait() == [8 * 4096]
    assert (host[: 8 * 4096] == data[: 8 * 4096]).all()
    assert dst.read_bytes() == data[: 8 * 4096].tobytes()


def test_batch_failures(data_file, device_buffer):
    path, data = data_file
    dev = device_buffer(4096)
    with hipfile.open(path) as f, hipfile.Batch(4) as batch:
        with pytest.raises(ValueError, match="op must be"):
            batch.submit(f, dev, 4096, 0, op="append")
        with pytest.raises(hipfile.HipFileError, match="pinned host memory"):
            batch.submit(f, np.zeros(4096, dtype=np.uint8))  # pageable
        batch.submit(f, dev, 4096, 0)
        batch.submit(f, dev, 4096, 0, op="write")  # read-only descriptor: fails alone
        with pytest.raises(OSError) as info:
            batch.wait()
        assert info.value.errno == 9
        with pytest.raises(hipfile.HipFileError) as full:
            batch.submit_many([(f, dev, 1, 0)] * 5)
        assert full.value.code == hipfile.OpError.BATCH_FULL
    with pytest.raises(ValueError):
        hipfile.Batch(0)
    with pytest.raises(RuntimeError, match="destroyed"):
        batch.submit(f, dev, 1, 0)


def test_batch_cancel_leaves_it_usable(data_file, device_buffer):
    path, data = data_file
    dev = device_buffer(1 << 20)
    with hipfile.open(path) as f, hipfile.Batch(64) as batch:
        for i in range(64):
            batch.submit(f, dev, 16384, file_offset=16384 * i, buffer_offset=16384 * i)
        batch.cancel()
        assert len(batch) == 0
        batch.submit(f, dev, 4096, 0)
        assert batch.wait() == [4096]


def test_whole_files(data_file, tmp_path):
    path, data = data_file
    out = np.zeros(data.nbytes + 10, dtype=np.uint8)
    assert hipfile.read_into(path, out) == data.nbytes
    assert (out[: data.nbytes] == data).all()
    dst = tmp_path / "whole.bin"
    assert hipfile.write_from(dst, data) == data.nbytes
    assert hipfile.write_from(dst, data[:10], append=True) == 10
    assert dst.read_bytes() == data.tobytes() + data[:10].tobytes()
    assert hipfile.read_into(path, out, file_offset=data.nbytes - 5) == 5
