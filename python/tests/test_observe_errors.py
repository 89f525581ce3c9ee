# SPDX-License-Identifier: MIT
"""Statistics, parameters, the runtime; the exceptions' contents; the package at interpreter
exit with work outstanding; a large round trip."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hipfile


def test_stats_count_what_was_moved(data_file, tmp_path):
    path, data = data_file
    before = hipfile.stats()
    out = np.zeros(100_000, dtype=np.uint8)
    with hipfile.open(path) as f:
        f.read(out)
        f.read(out[:5000], file_offset=3)
    with hipfile.open(tmp_path / "s.bin", "w") as f:
        f.write(out[:70000])
    after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == 105_000
    assert after["write_bytes"] - before["write_bytes"] == 70_000
    assert after["read_ops"]["ok"] - before["read_ops"]["ok"] == 2
    paths_read = sum(p["read_bytes"] for p in after["paths"].values()) - sum(
        p["read_bytes"] for p in before["paths"].values()
    )
    assert paths_read == 105_000
    assert after["paths"]["host"]["read_bytes"] - before["paths"]["host"]["read_bytes"] == 105_000
    assert set(after["paths"]) == {"page_cache", "direct", "buffered", "io_uring", "host"}
    assert "unaligned" in after["buffered_by_reason"]


def test_parameters():
    params = hipfile.parameters()
    assert params["ExecutionMaxIOThreads"] == hipfile.get_parameter(
        "hipFileParamExecutionMaxIOThreads"
    )
    assert isinstance(params["PropertiesUsePollMode"], bool)
    assert isinstance(params["LoggingLevel"], str)
    with pytest.raises(KeyError, match="no parameter"):
        hipfile.get_parameter("NoSuchThing")
    with pytest.raises(TypeError):
        hipfile.set_parameter("ExecutionMaxIOThreads", "eight")
    if hipfile.Driver.use_count() == 0:
        old = hipfile.get_parameter("PropertiesMaxDirectIOSizeKB")
        hipfile.set_parameter("PropertiesMaxDirectIOSizeKB", 4096)
        assert hipfile.get_parameter("PropertiesMaxDirectIOSizeKB") == 4096
        hipfile.set_parameter("PropertiesMaxDirectIOSizeKB", old)
    with hipfile.Driver():
        with pytest.raises(hipfile.HipFileError) as info:
            hipfile.set_parameter("PropertiesMaxDirectIOSizeKB", 4096)
    assert info.value.code == hipfile.OpError.DRIVER_ALREADY_OPEN


def test_runtime():
    name, why = hipfile.runtime()
    assert name in ("cpu", "cpu-staged", "cuda") and why


def test_hipfile_error_contents():
    e = hipfile.HipFileError(hipfile.OpError.INVALID_VALUE, 0, "reading x")
    assert e.code == e.hipfile_err == 5022
    assert e.name == "hipFileInvalidValue"
    assert str(e).startswith("reading x: hipFileInvalidValue (5022): ")
    assert isinstance(e, hipfile.HipFileException)
    o = hipfile.HipFileOSError(5, "reading y", "/f")
    assert isinstance(o, OSError) and isinstance(o, hipfile.HipFileError)
    assert o.errno == 5 and o.strerror == os.strerror(5) and o.filename == "/f"
    assert o.code == hipfile.OpError.INTERNAL_ERROR
    assert "reading y" in str(o) and os.strerror(5) in str(o)


def test_errors_name_the_file(data_file):
    path, _ = data_file
    with hipfile.open(path) as f:
        with pytest.raises(OSError) as info:
            f.write(np.zeros(4, dtype=np.uint8))
    assert str(path) in str(info.value)


def test_exit_with_work_outstanding(data_file, tmp_path):
    """Futures, batches, open files and registrations left at exit: the interpreter ends cleanly
    (exit status 0, nothing on stderr but what the program printed)."""
    path, _ = data_file
    program = textwrap.dedent(
        f"""
        import numpy as np, hipfile
        from hipfile.hipMalloc import hipMalloc
        f = hipfile.open({str(path)!r})
        out = np.zeros(1 << 20, dtype=np.uint8)
        futs = [f.pread(out) for _ in range(8)]
        dev = hipMalloc(1 << 20).value
        b = hipfile.Batch(8)
        for i in range(8):
            b.submit(f, dev, 1 << 17, file_offset=i << 17, buffer_offset=i << 17)
        reg = hipfile.registered(np.zeros(4096, dtype=np.uint8))
        reg.__enter__()
        g = hipfile.open({str(tmp_path / "left.bin")!r}, "w")
        g.pwrite(out)
        print("leaving")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "leaving"
    assert "Traceback" not in result.stderr and "Error" not in result.stderr


def test_fork_gets_its_own_threads(data_file):
    path, data = data_file
    with hipfile.open(path) as f:
        f.pread(np.zeros(10, dtype=np.uint8)).get()  # threads started in the parent
    program = textwrap.dedent(
        f"""
        import os, numpy as np, hipfile
        with hipfile.open({str(path)!r}) as f:
            f.pread(np.zeros(10, dtype=np.uint8)).get()
        pid = os.fork()
        if pid == 0:
            out = np.zeros(4096, dtype=np.uint8)
            with hipfile.open({str(path)!r}) as f:
                n = f.pread(out).get()
            os._exit(0 if n == 4096 else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "0", result.stderr


@pytest.mark.parametrize("mib", [300])
def test_large_round_trip_verified(tmp_path, mib):
    size = mib << 20
    rng = np.random.default_rng(42)
    data = rng.integers(0, 2**63, size // 8, dtype=np.uint64).view(np.uint8)
    src = tmp_path / "big.bin"
    assert hipfile.write_from(src, data) == size
    assert hashlib.sha256(src.read_bytes()).digest() == hashlib.sha256(data).digest()
    out = np.empty_like(data)
    chunk = 16 << 20
    with hipfile.open(src) as f:
        futs = [f.pread(out[o : o + chunk], file_offset=o) for o in range(0, size, chunk)]
        assert sum(x.get() for x in futs) == size
    assert np.array_equal(out, data)
    os.unlink(src)
