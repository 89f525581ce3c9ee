#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kvikio-bench: RAPIDS KvikIO on the harness of hipfile-bench.

Reads (or writes) a data set between a file and a CuPy array with kvikio.CuFile.pread / pwrite
and prints one JSON line in hipfile-bench's --json schema. When kvikio or cupy cannot be imported,
or a call fails, the line says "ok": false with the error (issue 4: say so when a competitor
cannot run, with its error).

    kvikio-bench.py -f FILE [-d GPU] [-w THREADS] [-s SIZE] [-i IOSIZE] [-I 0|1] [-T SECONDS]
                    [--call-size SIZE] [--fsync] [--json]

KvikIO is driven the way programs use it: each call is one pread (pwrite) of --call-size bytes
(default 1 GiB, at most the data set) that KvikIO splits into tasks of -i bytes run by its pool of
-w threads (KVIKIO_TASK_SIZE and KVIKIO_NTHREADS are set from -i and -w before the import).
Calls walk the data set in order; without -T one pass is made, with -T calls go on (wrapping
around) until the time is up, a started call always finishing. "ops", the latencies and "iops"
are per call; "io_size" is the task size. Writes make one pass over a truncated file, then fsync
with --fsync, inside the timing. KVIKIO_COMPAT_MODE (ON, OFF, AUTO) is KvikIO's own: AUTO falls
back to its POSIX path when cuFile cannot be used; the line reports the mode in force.
"""

import argparse
import json
import os
import resource
import sys
import time


def parse_size(text):
    """Sizes take K, M, G suffixes (powers of 1024), as in hipfile-bench, which takes only whole
    numbers and nothing after the suffix; this also takes fractions and a trailing iB or B."""
    t = text.strip()
    for suffix in ("iB", "B", "b", "i"):
        if t.endswith(suffix) and len(t) > len(suffix):
            t = t[: -len(suffix)]
            break
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:].lower(), 1)
    if scale != 1:
        t = t[:-1]
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"bad size {text!r}")
    return int(value * scale)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-f", dest="file", required=True)
    p.add_argument("-d", dest="device", type=int, default=0)
    p.add_argument("-w", dest="threads", type=int, default=1)
    p.add_argument("-s", dest="size", type=parse_size, default=1 << 30)
    p.add_argument("-i", dest="io_size", type=parse_size, default=1 << 20)
    p.add_argument("-I", dest="io_type", type=int, choices=(0, 1), default=0,
                   help="0 read, 1 write (random I/O is not offered)")
    p.add_argument("-T", dest="seconds", type=float, default=0.0)
    p.add_argument("--call-size", type=parse_size, default=1 << 30)
    p.add_argument("--fsync", action="store_true")
    p.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
    a = p.parse_args(argv)
    a.threads = max(1, a.threads)
    if a.io_size <= 0:
        p.error("-i must be positive")
    a.size = max(a.size, a.io_size)
    a.call_size = max(a.io_size, min(a.call_size, a.size))
    return a


class Result:
    """The JSON line: hipfile-bench's fields, then kvikio-bench's own."""

    def __init__(self, a):
        self.a = a
        self.fields = {
            "tool": "kvikio-bench",
            "io_type": "WRITE" if a.io_type == 1 else "READ",
            "xfer_type": "KVIKIO",
            "xfer": -1,
            "threads": a.threads,
            "bytes": 0,
            "dataset_bytes": a.size,
            "io_size": a.io_size,
            "throughput_gib_s": 0.0,
            "avg_latency_us": 0.0,
            "p50_latency_us": 0.0,
            "p99_latency_us": 0.0,
            "ops": 0,
            "total_time_s": 0.0,
            "iops": 0.0,
            "queue_depth": 1,
            "cpu_cores": 0.0,
            "cores_per_gib_s": 0.0,
            "verified": False,
            "call_size": a.call_size,
            "kvikio_version": None,
            "compat_mode": os.environ.get("KVIKIO_COMPAT_MODE", "AUTO (default)"),
            "ok": False,
        }

    def fail(self, what, exc=None):
        text = what if exc is None else f"{what}: {type(exc).__name__}: {exc}"
        self.fields["ok"] = False
        self.fields["error"] = " ".join(text.split())[:400]
        return self

    def measured(self, nbytes, latencies_s, wall_s, cpu_s):
        f = self.fields
        gib_s = nbytes / wall_s / (1 << 30) if wall_s > 0 else 0.0
        lat = sorted(x * 1e6 for x in latencies_s)

        def pct(p):
            return lat[min(len(lat) - 1, int(p * len(lat)))] if lat else 0.0

        cores = cpu_s / wall_s if wall_s > 0 else 0.0
        f.update(
            bytes=nbytes,
            throughput_gib_s=round(gib_s, 4),
            avg_latency_us=round(sum(lat) / len(lat), 2) if lat else 0.0,
            p50_latency_us=round(pct(0.50), 2),
            p99_latency_us=round(pct(0.99), 2),
            ops=len(lat),
            total_time_s=round(wall_s, 4),
            iops=round(len(lat) / wall_s, 1) if wall_s > 0 else 0.0,
            cpu_cores=round(cores, 2),
            cores_per_gib_s=round(cores / gib_s, 4) if gib_s > 0 else 0.0,
        )

    def emit(self):
        line = {k: v for k, v in self.fields.items() if k not in ("ok", "error")}
        line["ok"] = self.fields["ok"]
        if "error" in self.fields:
            line["error"] = self.fields["error"]
        print(json.dumps(line), flush=True)
        return 0 if self.fields["ok"] else 1


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def settings():
    """KvikIO's compat mode, threads and task size in force, by whichever API this version has
    (kvikio.defaults.get in 25.x and later, one function per setting before); None if neither."""
    try:
        import kvikio.defaults as d
    except Exception:  # noqa: BLE001
        return None
    for get in (lambda k: d.get(k), lambda k: getattr(d, k)()):
        try:
            mode = get("compat_mode")
            return {"compat_mode": getattr(mode, "name", str(mode)),
                    "kvikio_threads": get("num_threads"), "kvikio_task_size": get("task_size")}
        except Exception:  # noqa: BLE001 - the other API
            continue
    return None


def run(a, r):
    # KvikIO reads its settings when it is first imported.
    os.environ["KVIKIO_NTHREADS"] = str(a.threads)
    os.environ["KVIKIO_TASK_SIZE"] = str(a.io_size)
    try:
        import kvikio
    except Exception as e:  # noqa: BLE001 - ImportError, or a CUDA error raised at import
        return r.fail("import kvikio", e)
    r.fields["kvikio_version"] = getattr(kvikio, "__version__", None)
    r.fields.update(settings() or {})
    try:
        import cupy
    except Exception as e:  # noqa: BLE001
        return r.fail("import cupy", e)

    write = a.io_type == 1
    if not write:
        try:
            have = os.stat(a.file).st_size
        except OSError as e:
            return r.fail(f"stat {a.file}", e)
        if have < a.size:
            return r.fail(f"{a.file} holds {have} bytes, fewer than -s {a.size} "
                          "(create it with hipfile-bench first)")
    step = "cupy.cuda.Device"
    try:
        cupy.cuda.Device(a.device).use()
        step = "cupy allocation"
        buf = cupy.empty(a.call_size, dtype=cupy.uint8)
        if write:  # cudaMemset: no kernel for CuPy to compile
            cupy.cuda.runtime.memset(buf.data.ptr, 0x5A, a.call_size)
        cupy.cuda.runtime.deviceSynchronize()
        step = "kvikio.CuFile"
        f = kvikio.CuFile(a.file, "w" if write else "r")
    except Exception as e:  # noqa: BLE001
        return r.fail(step, e)

    call = "CuFile.pwrite" if write else "CuFile.pread"
    latencies = []
    moved = 0
    off = 0
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    deadline = t0 + a.seconds
    try:
        while True:
            if a.seconds > 0:
                if time.perf_counter() >= deadline:
                    break
            elif moved >= a.size:
                break
            n = min(a.call_size, a.size - off)
            start = time.perf_counter()
            io = f.pwrite if write else f.pread
            got = io(buf[:n], n, off, task_size=a.io_size).get()
            latencies.append(time.perf_counter() - start)
            if got != n:
                raise RuntimeError(f"moved {got} of {n} bytes at offset {off}")
            moved += n
            off = (off + n) % a.size
        cupy.cuda.runtime.deviceSynchronize()
        if write and a.fsync:
            call = "fsync"
            os.fsync(f.fileno())
    except Exception as e:  # noqa: BLE001
        r.measured(moved, latencies, time.perf_counter() - t0, cpu_seconds() - cpu0)
        r.fail(call if call == "fsync" else f"{call} at offset {off}", e)
        close_quietly(f)
        return r
    r.measured(moved, latencies, time.perf_counter() - t0, cpu_seconds() - cpu0)
    r.fields["ok"] = True
    try:
        f.close()
    except Exception as e:  # noqa: BLE001
        return r.fail("CuFile.close", e)
    return r


def close_quietly(f):
    try:
        f.close()
    except Exception:  # noqa: BLE001 - the first error is the one reported
        pass


def main(argv):
    a = parse_args(argv)
    return run(a, Result(a)).emit()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
