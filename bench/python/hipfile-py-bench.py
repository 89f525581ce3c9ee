#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hipfile-py-bench: this project's Python package on the harness of hipfile-bench.

Reads a data set (made by hipfile-bench) into a CuPy array or a torch tensor through the
`hipfile` package and prints one JSON line in hipfile-bench's --json schema, so its rows sit
beside the C API's (hipfile-bench) and KvikIO's (bench/competitors/kvikio-bench.py).

    hipfile-py-bench.py -f FILE [--framework cupy|torch] [--api read|pread] [-w THREADS]
                        [-s SIZE] [-i IOSIZE] [--call-size SIZE] [-d GPU]

--api pread: the data set is walked in calls of --call-size bytes (default 1 GiB); each call is
split into -i pieces, each a FileHandle.pread future run on -w threads (hipfile.set_num_threads),
and all of a call's futures are waited for before the next call - KvikIO's CuFile.pread shape.
--api read: one FileHandle.read of --call-size bytes at a time on the calling thread (the engine
parallelises each call itself). One pass; "ops" and the latencies are per call.
"""

import argparse
import json
import os
import resource
import sys
import time


def parse_size(text):
    t = text.strip()
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:].lower(), 1)
    if scale != 1:
        t = t[:-1]
    return int(float(t) * scale)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-f", dest="file", required=True)
    p.add_argument("-d", dest="device", type=int, default=0)
    p.add_argument("-w", dest="threads", type=int, default=8)
    p.add_argument("-s", dest="size", type=parse_size, default=1 << 30)
    p.add_argument("-i", dest="io_size", type=parse_size, default=16 << 20)
    p.add_argument("--call-size", type=parse_size, default=1 << 30)
    p.add_argument("--framework", choices=("cupy", "torch"), default="cupy")
    p.add_argument("--api", choices=("read", "pread"), default="pread")
    p.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
    a = p.parse_args(argv)
    a.call_size = max(a.io_size, min(a.call_size, a.size))
    return a


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def main(argv):
    a = parse_args(argv)
    fields = {
        "tool": "hipfile-py-bench", "io_type": "READ", "xfer_type": f"PY_{a.api.upper()}",
        "xfer": -1, "threads": a.threads if a.api == "pread" else 1, "bytes": 0,
        "dataset_bytes": a.size, "io_size": a.io_size if a.api == "pread" else a.call_size,
        "call_size": a.call_size, "framework": a.framework, "throughput_gib_s": 0.0,
        "avg_latency_us": 0.0, "p50_latency_us": 0.0, "p99_latency_us": 0.0, "ops": 0,
        "total_time_s": 0.0, "cpu_cores": 0.0, "ok": False,
    }
    try:
        import hipfile

        fields["runtime"] = hipfile.runtime()[0]
        if a.framework == "cupy":
            import cupy

            cupy.cuda.Device(a.device).use()
            buf = cupy.empty(a.call_size, dtype=cupy.uint8)
            sync = cupy.cuda.runtime.deviceSynchronize
        else:
            import torch

            torch.cuda.set_device(a.device)
            buf = torch.empty(a.call_size, dtype=torch.uint8, device="cuda")
            sync = torch.cuda.synchronize
        sync()
        hipfile.set_num_threads(max(1, a.threads))
        fh = hipfile.open(a.file)
        lat = []
        done = 0
        c0, t0 = cpu_seconds(), time.perf_counter()
        for off in range(0, a.size, a.call_size):
            n = min(a.call_size, a.size - off)
            s = time.perf_counter()
            if a.api == "read":
                got = fh.read(buf, n, file_offset=off)
            else:
                futs = [
                    fh.pread(buf, min(a.io_size, n - p), file_offset=off + p, buffer_offset=p)
                    for p in range(0, n, a.io_size)
                ]
                got = sum(x.get() for x in futs)
            if got != n:
                raise RuntimeError(f"read {got} bytes at {off}, not {n}")
            lat.append(time.perf_counter() - s)
            done += n
        sync()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        fh.close()
        lat_us = sorted(x * 1e6 for x in lat)
        gib_s = done / wall / (1 << 30)
        fields.update(
            bytes=done, throughput_gib_s=round(gib_s, 4), ops=len(lat),
            avg_latency_us=round(sum(lat_us) / len(lat_us), 2),
            p50_latency_us=round(lat_us[len(lat_us) // 2], 2),
            p99_latency_us=round(lat_us[min(len(lat_us) - 1, int(0.99 * len(lat_us)))], 2),
            total_time_s=round(wall, 4), cpu_cores=round(cpu / wall, 2), ok=True,
        )
        stats = hipfile.stats()
        fields["paths"] = {k: v["read_bytes"] for k, v in stats["paths"].items() if v["read_bytes"]}
    except Exception as e:  # noqa: BLE001 - reported in the line
        fields["error"] = f"{type(e).__name__}: {e}"[:400]
    print(json.dumps(fields), flush=True)
    return 0 if fields["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
