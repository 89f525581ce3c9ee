#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""loader-profile: where one hipfile.safetensors.load of a whole checkpoint spends its time.

    loader-profile.py CHECKPOINT_DIR [--device cuda:0] [--framework torch|numpy]
                      [--open-driver] [--cprofile N] [--cold] [--threads N] [--order files|offset]

One load in this process (the checkpoint's pages should be in the page cache: `cat` them first),
timed in phases by wrapping the package's own steps: the driver's open (implicit in the first
file's registration unless --open-driver opens it first, untimed), opening and registering the
shards, reading and validating the headers, allocating the tensors, the reads themselves, and
closing the shards (which releases the page-cache pins made for them). Prints one JSON object:
seconds per phase, the total, GB/s of the load and of the reads alone, and the bytes each data
path of the library moved. --cprofile N adds the N costliest functions (cumulative) to stderr.
Experiments: --cold drops the page cache first (root); --threads sets the package's I/O thread
limit (hipfile._hipfile._set_max_threads; 8 by default); --order offset reads all shards at once,
interleaved by offset (the loader's order before 2026-12-02), instead of one after another.
"""

import argparse
import cProfile
import glob
import json
import os
import pstats
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--framework", default="torch", choices=("torch", "numpy"))
    p.add_argument("--open-driver", action="store_true")
    p.add_argument("--cprofile", type=int, default=0)
    p.add_argument("--cold", action="store_true")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--order", choices=("files", "offset"), default="files")
    a = p.parse_args()

    import hipfile
    import hipfile.safetensors as st
    from hipfile import file as hfile

    paths = sorted(glob.glob(os.path.join(a.checkpoint, "*.safetensors")))
    if not paths:
        print(f"no *.safetensors in {a.checkpoint}", file=sys.stderr)
        return 2
    if a.framework == "torch":
        import torch

        torch.empty(1, device=a.device)
        torch.cuda.synchronize()
    if a.open_driver:
        hipfile.Driver().open()

    spent = {"open": 0.0, "headers": 0.0, "alloc": 0.0, "reads": 0.0, "close": 0.0}

    def timed(phase, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[phase] += time.perf_counter() - t0

        return wrapper

    hfile.FileHandle.open = timed("open", hfile.FileHandle.open)
    hfile.FileHandle.close = timed("close", hfile.FileHandle.close)
    st._header_of = timed("headers", st._header_of)
    read_all = st._read_all
    if a.order == "offset":
        read_all = (lambda f: lambda reads: f(sorted(reads, key=lambda r: r.file_offset)))(read_all)
    st._read_all = timed("reads", read_all)
    if a.threads:
        hipfile._hipfile._set_max_threads(a.threads)
    if a.cold:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    for name in ("_torch_allocator", "_numpy_allocator"):
        make = getattr(st, name)
        setattr(st, name, (lambda make: lambda *x: timed("alloc", make(*x)))(make))

    prof = cProfile.Profile() if a.cprofile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    out = st.load(paths, device=a.device, framework=a.framework)
    if a.framework == "torch":
        torch.cuda.synchronize()
    total = time.perf_counter() - t0
    if prof:
        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(a.cprofile)
    nbytes = sum(t.nbytes for t in out.values())
    print(json.dumps({
        "cold": a.cold, "threads": a.threads or None, "order": a.order,
        "tensors": len(out), "bytes": nbytes, "seconds": round(total, 4),
        "gb_s": round(nbytes / total / 1e9, 2),
        "reads_gb_s": round(nbytes / spent["reads"] / 1e9, 2) if spent["reads"] else None,
        "phases_s": {k: round(v, 4) for k, v in spent.items()},
        "other_s": round(total - sum(spent.values()), 4),
        "paths": {k: v["read_bytes"] for k, v in hipfile.stats()["paths"].items()
                  if v["read_bytes"]},
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
