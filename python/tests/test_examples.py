# SPDX-License-Identifier: MIT
"""The tutorials of docs/python.md (examples/python) run as a user types them."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_gpu_io_tutorial(tmp_path):
    r = run(str(EXAMPLES / "gpu_io.py"), str(tmp_path / "t.bin"), "--mib", "16")
    assert r.returncode == 0, r.stderr
    assert "OK  16777216 bytes written and read back 4 ways" in r.stdout


def test_file_copy_tutorial(tmp_path):
    src = tmp_path / "src.bin"
    data = np.random.default_rng(3).integers(0, 256, (5 << 20) + 12345, dtype=np.uint8)
    src.write_bytes(data.tobytes())
    dst = tmp_path / "dst.bin"
    dst.write_bytes(b"old")
    r = run(str(EXAMPLES / "file_copy.py"), str(src), str(dst), "--block-mib", "1", "--verify")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"OK  copied {data.nbytes} bytes")
    assert dst.read_bytes() == data.tobytes()
    assert sorted(os.listdir(tmp_path)) == ["dst.bin", "src.bin"]


def test_file_copy_failure_leaves_the_destination(tmp_path):
    dst = tmp_path / "dst.bin"
    dst.write_bytes(b"keep me")
    r = run(str(EXAMPLES / "file_copy.py"), str(tmp_path / "missing"), str(dst))
    assert r.returncode == 1
    assert "file_copy:" in r.stderr and "missing" in r.stderr
    assert dst.read_bytes() == b"keep me"
    assert sorted(os.listdir(tmp_path)) == ["dst.bin"]
