#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tutorial: file data into and out of GPU memory with the hipfile package (docs/python.md).

Writes an array to PATH, reads it back four ways - one read, futures, a stream-ordered read, a
batch - checks every byte, and prints which way the library moved them. Uses CuPy or torch when
one is installed and a GPU is there, else NumPy (host memory: the same calls, no GPU needed).

    python3 gpu_io.py PATH [--framework auto|numpy|cupy|torch] [--mib N]
"""

import argparse
import sys

import numpy as np

import hipfile


def arrays(framework: str, nbytes: int):
    """(make a zeroed byte array, copy an array to NumPy, a stream or None) for the framework."""
    if framework in ("auto", "cupy"):
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0 and hipfile.runtime()[0] == "cuda":
                return "cupy", lambda: cupy.zeros(nbytes, cupy.uint8), cupy.asnumpy, (
                    cupy.cuda.Stream(non_blocking=True)
                )
        except Exception:  # noqa: BLE001 - not installed, or no GPU: try the next
            if framework == "cupy":
                raise
    if framework in ("auto", "torch"):
        try:
            import torch

            if torch.cuda.is_available() and hipfile.runtime()[0] == "cuda":
                return "torch", lambda: torch.zeros(nbytes, dtype=torch.uint8, device="cuda"), (
                    lambda t: t.cpu().numpy()
                ), torch.cuda.Stream()
        except ImportError:
            if framework == "torch":
                raise
    return "numpy", lambda: np.zeros(nbytes, np.uint8), np.asarray, None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path")
    p.add_argument("--framework", default="auto", choices=("auto", "numpy", "cupy", "torch"))
    p.add_argument("--mib", type=int, default=64)
    a = p.parse_args()
    nbytes = a.mib << 20
    name, zeros, to_numpy, stream = arrays(a.framework, nbytes)
    print(f"hipfile {hipfile.__version__}, runtime {hipfile.runtime()[0]}, arrays: {name}")

    data = np.random.default_rng(7).integers(0, 256, nbytes, dtype=np.uint8)
    # 1. Write: from host memory here (any array works: a GPU array is written the same way).
    assert hipfile.write_from(a.path, data) == nbytes

    with hipfile.open(a.path, "r") as f:
        # 2. One synchronous read of the whole file into a GPU (or host) array.
        buf = zeros()
        assert f.read(buf) == nbytes
        assert np.array_equal(to_numpy(buf), data)

        # 3. Futures: 8 MiB pieces read on the package's threads, waited for together.
        buf = zeros()
        piece = 8 << 20
        futures = [f.pread(buf, piece, file_offset=o, buffer_offset=o) for o in range(0, nbytes, piece)]
        assert sum(fut.get() for fut in futures) == nbytes
        assert np.array_equal(to_numpy(buf), data)

        # 4. Stream-ordered: queued on a GPU stream, done when the stream passes it.
        if stream is not None:
            buf = zeros()
            io = f.read_async(buf, stream=stream)
            stream.synchronize()
            assert io.bytes_done == nbytes
            assert np.array_equal(to_numpy(buf), data)

        # 5. A batch of 1 MiB entries (batch entries need GPU or pinned memory: pin host arrays).
        buf = zeros()
        entry = 1 << 20
        with hipfile.registered(buf), hipfile.Batch(nbytes // entry) as batch:
            for o in range(0, nbytes, entry):
                batch.submit(f, buf, entry, file_offset=o, buffer_offset=o)
            assert sum(batch.wait()) == nbytes
        assert np.array_equal(to_numpy(buf), data)

    paths = {k: v["read_bytes"] for k, v in hipfile.stats()["paths"].items() if v["read_bytes"]}
    print(f"OK  {nbytes} bytes written and read back 4 ways; reads by path: {paths}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
