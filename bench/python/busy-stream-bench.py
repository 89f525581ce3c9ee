#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""busy-stream-bench: the Python package's stream-ordered reads on busy torch streams.

The tutorial's pattern from Python: STREAMS torch streams, each kept busy by a kernel
(torch.cuda._sleep) when its read of SLICE bytes is submitted, so nothing can run at once. Rows,
interleaved, ROUNDS times, warm file (read once first), each a steady state of REPS batches:

  sync   STREAMS threads, FileHandle.read of SLICE each (the synchronous path)
  fixed  FileHandle.read_async (hipFileExtReadAsyncFixed: values fixed at the call)
  late   the low-level hipfile._hipfile.hipFileReadAsync with an AsyncIOHandle (hipFile's late
         binding: the values read when the stream gets there)

Prints one line per row and round: GiB/s and the ratio to that round's sync row. Every byte of
the last batch of each row is checked against the file.

    busy-stream-bench.py FILE [--streams 16] [--slice-mib 256] [--reps 4] [--rounds 2]
"""

import argparse
import os
import sys
import threading
import time

import numpy as np
import torch

import hipfile
from hipfile import _hipfile


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    p.add_argument("file")
    p.add_argument("--streams", type=int, default=16)
    p.add_argument("--slice-mib", type=int, default=256)
    p.add_argument("--reps", type=int, default=4)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args(argv)
    n, piece = a.streams, a.slice_mib << 20
    size = n * piece
    if not os.path.exists(a.file) or os.path.getsize(a.file) < size:
        with open(a.file, "wb") as f:
            rng = np.random.default_rng(5)
            for _ in range(n):
                f.write(rng.integers(0, 256, size=piece, dtype=np.uint8).tobytes())
    with open(a.file, "rb") as f:  # warm
        while f.read(64 << 20):
            pass
    expect = torch.from_numpy(np.fromfile(a.file, dtype=np.uint8, count=size)).cuda()
    bufs = [torch.empty(piece, dtype=torch.uint8, device="cuda") for _ in range(n)]
    streams = [torch.cuda.Stream() for _ in range(n)]
    fh = hipfile.FileHandle(a.file, os.O_RDONLY)
    fh.open()

    def batch_sync():
        def one(i):
            fh.read(bufs[i], piece, i * piece)
        ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        torch.cuda.synchronize()

    def batch_async(late):
        ios = []
        for i, s in enumerate(streams):
            with torch.cuda.stream(s):
                torch.cuda._sleep(200_000)  # the stream is busy when the read comes
            if late:
                io = _hipfile.AsyncIOHandle(piece, i * piece, 0)
                err, extra = _hipfile.hipFileReadAsync(fh.handle, bufs[i].data_ptr(), io,
                                                       s.cuda_stream)
                assert err == 0, (err, extra)
            else:
                io = fh.read_async(bufs[i], piece, i * piece, 0, s)
            ios.append(io)
        for s in streams:
            s.synchronize()
        assert all(io.bytes_done == piece for io in ios), [io.bytes_done for io in ios]

    rows = {"sync": batch_sync, "fixed": lambda: batch_async(False),
            "late": lambda: batch_async(True)}
    print(f"{torch.cuda.get_device_name()}: {n} streams x {a.slice_mib} MiB, {a.reps} batches a row")
    for r in range(a.rounds):
        rates = {}
        for name, run in rows.items():
            run()  # one batch first: what the row's steady state starts from
            for b in bufs:
                b.zero_()
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(a.reps):
                run()
            dt = time.perf_counter() - t
            rates[name] = a.reps * size / dt / 2**30
            ok = all(torch.equal(bufs[i], expect[i * piece:(i + 1) * piece]) for i in range(n))
            if not ok:
                print(f"{name}: WRONG BYTES", file=sys.stderr)
                return 1
        for name, rate in rates.items():
            print(f"round {r + 1} {name}: {rate:.2f} GiB/s ({rate / rates['sync']:.2f}x sync)")
    fh.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
