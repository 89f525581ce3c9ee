#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cufile-client-bench: one real cuFile client, unchanged, timed and checked on a data set.

    cufile-client-bench.py --client kvikio|torch-gds -f FILE [-s SIZE] [--caches warm,cold]
                           [--roundtrip SIZE] [--expect-libcufile DIR] [--row NAME]
                           [--kvikio-compat ON|OFF|AUTO] [--threads N] [--task-size SIZE]

FILE is hipfile-bench's data set (tools/hipfile-bench/data_set.h: byte N holds
((N * 0x9E3779B97F4A7C15) >> 56) ^ (N >> 12), low 8 bits), so every byte a client reads is checked
on the GPU against the byte it must be. The clients are called as their users call them:

  kvikio     kvikio.CuFile(FILE).pread of the whole data set into one CuPy array, split by KvikIO
             into --task-size tasks on --threads threads (KVIKIO_TASK_SIZE, KVIKIO_NTHREADS);
             KVIKIO_COMPAT_MODE is --kvikio-compat: OFF makes it call cuFile (and fail rather than
             fall back; checked: kvikio.defaults.is_compat_mode_preferred() must be false), ON is
             its own POSIX path. The round trip: CuFile.write, then pread and read back.
  torch-gds  torch.cuda.gds.GdsFile(FILE, O_RDONLY).load_storage of the whole data set into one
             registered (gds_register_buffer) CUDA uint8 tensor: a single cuFileRead. The round
             trip: save_storage, then load_storage back.

Timed reads, in the order --caches gives: warm (the file read through the page cache by this
script first, never by the client) and cold (sync, then 3 written to /proc/sys/vm/drop_caches:
root only; a failure to drop is said in the line). The round trip (--roundtrip bytes, 0 for none)
writes FILE.roundtrip-CLIENT, checks what comes back, and removes it; it runs after the timed
reads. Which libcufile the process mapped is read from /proc/self/maps after the imports and once
the data set is open; with --expect-libcufile DIR it must be the one in DIR (else exit 3 before
any timed read, also when the client failed to open the file on another library). Each
timed line also says how many bytes that library counted through cuFileRead during the read
(cuFileGetStatsL1; null where the library keeps no statistics): with KvikIO's compat mode off all
of them, on its POSIX path none.

Output: one JSON line per measurement on stdout ({"row", "client", "op", "cache", "bytes",
"seconds", "gb_s", "gib_s", "check_ok", "libcufile", "ok", ...}; "error" when a step failed).
Exit status: 0 every step ran and every byte checked; 1 a step failed or a byte was wrong (the
line says which); 2 bad arguments; 3 the wrong libcufile (see --expect-libcufile).
"""

import argparse
import ctypes
import json
import os
import struct
import sys
import time

# hipfile-bench's pattern multiplier (tools/hipfile-bench/data_set.h), and the same bits as a
# signed 64-bit number for torch, which has no unsigned 64-bit multiply: the low 64 bits of a
# product do not depend on the sign, and the top byte of an arithmetic shift by 56 is the same.
PATTERN_K = 0x9E3779B97F4A7C15
PATTERN_K_SIGNED = PATTERN_K - (1 << 64)
CHECK_CHUNK = 64 << 20  # bytes of pattern made at a time on the GPU (8 bytes each as int64)
DROP_CACHES = "/proc/sys/vm/drop_caches"


def parse_size(text):
    """A size with an optional K, M, G or T suffix (powers of 1024), as hipfile-bench takes it."""
    t = text.strip()
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}.get(t[-1:].lower(), 1)
    if scale != 1:
        t = t[:-1]
    if not t.isdigit():
        raise argparse.ArgumentTypeError(f"bad size {text!r}")
    return int(t) * scale


def parse_caches(text):
    caches = [c for c in text.split(",") if c]
    bad = [c for c in caches if c not in ("warm", "cold")]
    if bad or not caches:
        raise argparse.ArgumentTypeError(f"--caches takes warm and cold, comma-separated: {text!r}")
    return caches


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="See the module docstring (head of this file) for what each client does.")
    p.add_argument("--client", required=True, choices=("kvikio", "torch-gds"))
    p.add_argument("-f", dest="file", required=True, help="hipfile-bench's data set")
    p.add_argument("-s", dest="size", type=parse_size, default=None,
                   help="bytes read from offset 0 (default: the whole file)")
    p.add_argument("--caches", type=parse_caches, default=["warm", "cold"],
                   help="timed reads, in order (default warm,cold)")
    p.add_argument("--roundtrip", type=parse_size, default=256 << 20,
                   help="bytes written and read back through the client (default 256M; 0: none)")
    p.add_argument("--expect-libcufile", metavar="DIR", default=None,
                   help="exit 3 unless the libcufile the process mapped is in DIR")
    p.add_argument("--row", default=None, help="the row's name in the output (default: client)")
    p.add_argument("-d", dest="device", type=int, default=0, help="CUDA device (default 0)")
    p.add_argument("--kvikio-compat", choices=("ON", "OFF", "AUTO"), default="OFF",
                   help="KVIKIO_COMPAT_MODE for kvikio (default OFF: cuFile, no fallback)")
    p.add_argument("--threads", type=int, default=8, help="KVIKIO_NTHREADS (default 8)")
    p.add_argument("--task-size", type=parse_size, default=16 << 20,
                   help="KVIKIO_TASK_SIZE (default 16M)")
    p.add_argument("--no-register", action="store_true",
                   help="torch-gds: do not gds_register_buffer the tensors")
    a = p.parse_args(argv)
    if a.threads < 1 or a.task_size < 1:
        p.error("--threads and --task-size must be positive")
    a.row = a.row or a.client
    return a


def mapped_libcufile():
    """Paths of every libcufile the process has mapped, resolved, in order of first mapping."""
    seen = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and "libcufile" in os.path.basename(parts[5].strip()):
                    path = os.path.realpath(parts[5].strip())
                    if path not in seen:
                        seen.append(path)
    except OSError:
        pass
    return seen


class _CUfileError(ctypes.Structure):
    _fields_ = (("err", ctypes.c_int), ("cu_err", ctypes.c_int))


# cuFile's CUfileStatsLevel1_t: six {ok, err} counters, then read_bytes and write_bytes.
STATS_L1_READ_BYTES_OFFSET = 6 * 16
STATS_L1_SIZE = 512


class CuFileStats:
    """Bytes the process's libcufile counted through cuFileRead and cuFileWrite (its level-1
    statistics): the proof that a client called cuFile and not its own POSIX path. None where the
    library keeps no statistics (NVIDIA's at its default level 0) or none is loaded."""

    def __init__(self):
        self.fn = None

    def bytes(self):
        if self.fn is None:
            try:  # the library the process already has, found by its soname; never a new one
                lib = ctypes.CDLL("libcufile.so.0", mode=os.RTLD_NOLOAD | os.RTLD_LOCAL)
                self.fn = lib.cuFileGetStatsL1
            except (OSError, AttributeError):
                return None
            self.fn.restype = _CUfileError
            self.fn.argtypes = (ctypes.c_void_p,)
        buf = ctypes.create_string_buffer(STATS_L1_SIZE * 2)
        if self.fn(buf).err != 0:
            return None
        return struct.unpack_from("<QQ", buf, STATS_L1_READ_BYTES_OFFSET)


def through_cufile(before, after):
    """{"cufile_read_bytes": n, "cufile_write_bytes": n} between two CuFileStats readings."""
    if before is None or after is None:
        return {"cufile_read_bytes": None, "cufile_write_bytes": None}
    return {"cufile_read_bytes": after[0] - before[0], "cufile_write_bytes": after[1] - before[1]}


def one_line(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:400]


class Report:
    """The JSON lines: the fields every line of this process shares, then each line's own."""

    def __init__(self, a):
        self.common = {"row": a.row, "client": a.client, "file": a.file}
        self.failed = False
        self.wrong_libcufile = False

    def emit(self, **fields):
        line = dict(self.common)
        line.update(fields)
        line.setdefault("libcufile", mapped_libcufile())
        ok = line.get("ok", True) and line.get("check_ok", True) is not False
        line["ok"] = bool(ok)
        self.failed |= not ok
        self.wrong_libcufile |= bool(line.get("wrong_libcufile"))
        print(json.dumps(line), flush=True)

    def exit_status(self):
        return 3 if self.wrong_libcufile else 1 if self.failed else 0


def warm_page_cache(path, size):
    """Reads [0, size) of the file through the page cache, as `cat` would."""
    buf = bytearray(16 << 20)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        done = 0
        while done < size:
            n = f.readinto(view[: min(len(buf), size - done)])
            if not n:
                break
            done += n


def drop_page_cache():
    """None once the page cache is dropped, else why it could not be."""
    os.sync()
    try:
        with open(DROP_CACHES, "w") as f:
            f.write("3\n")
    except OSError as e:
        return f"page cache not dropped: {one_line(e)}"
    return None


def prepare_cache(path, size, cache):
    if cache == "warm":
        warm_page_cache(path, size)
        return None
    return drop_page_cache()


def first_mismatch_torch(torch, t, offset=0):
    """None when the uint8 CUDA tensor t holds the data set's bytes [offset, offset + len(t)),
    else the first file offset that does not."""
    n = t.numel()
    for start in range(0, n, CHECK_CHUNK):
        m = min(CHECK_CHUNK, n - start)
        off = torch.arange(offset + start, offset + start + m, dtype=torch.int64, device=t.device)
        want = (((off * PATTERN_K_SIGNED) >> 56) ^ (off >> 12)) & 0xFF
        bad = (t[start : start + m].to(torch.int64) != want).nonzero()
        if bad.numel():
            return offset + start + int(bad[0])
    return None


def pattern_cupy(cupy, offset, n):
    """The data set's bytes [offset, offset + n) as a CuPy uint8 array (numpy takes the same
    calls, which is how this is checked without a GPU)."""
    off = cupy.arange(offset, offset + n, dtype=cupy.uint64)
    x = off * cupy.uint64(PATTERN_K)
    return ((x >> cupy.uint64(56)) ^ (off >> cupy.uint64(12))).astype(cupy.uint8)


def make_pattern_cupy(cupy, n):
    """The data set's first n bytes in a new CuPy array: made by CuPy's kernels, or on the host
    by numpy (the same calls) where CuPy cannot compile kernels (no NVRTC)."""
    try:
        return pattern_cupy(cupy, 0, n)
    except Exception:  # noqa: BLE001
        import numpy
        return cupy.asarray(pattern_cupy(numpy, 0, n))


def first_mismatch_cupy(cupy, a, offset=0):
    """As first_mismatch_torch, for a CuPy uint8 array."""
    n = a.size
    for start in range(0, n, CHECK_CHUNK):
        m = min(CHECK_CHUNK, n - start)
        bad = cupy.flatnonzero(a[start : start + m] != pattern_cupy(cupy, offset + start, m))
        if bad.size:
            return offset + start + int(bad[0])
    return None


class _DlInfo(ctypes.Structure):
    _fields_ = (("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p))


def answering_libcufile(symbol="cuFileRead"):
    """The file whose `symbol` the process's global scope resolves to (dlsym(RTLD_DEFAULT), then
    dladdr), resolved; None where no loaded library in that scope exports it. A library loaded
    with DT_NEEDED binds its cuFile calls there first, so where a second libcufile is mapped
    (torch preloads its wheel's by path) this, not the mapping, says which one answers."""
    try:
        process = ctypes.CDLL(None)
        address = ctypes.cast(getattr(process, symbol), ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    try:
        dladdr = process.dladdr  # libc's from glibc 2.34, libdl's before
    except AttributeError:
        try:
            dladdr = ctypes.CDLL("libdl.so.2").dladdr
        except (OSError, AttributeError):
            return None
    info = _DlInfo()
    if not dladdr(ctypes.c_void_p(address), ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.realpath(info.dli_fname.decode())


def expect_libcufile(a, report, step, none_yet_ok=False):
    """False (after the line) when --expect-libcufile names a directory that a libcufile the
    process mapped is not in, or, unless none_yet_ok (before the client has touched cuFile: it may
    load the library late), when none is mapped. Another libcufile mapped beside the expected one
    is accepted where cuFileRead resolves to the expected one (answering_libcufile) and noted in
    the row's "also_mapped"; the row's cufile_read_bytes (the drop-in's own statistics) then show
    whether the client's reads went through it."""
    if not a.expect_libcufile:
        return True
    want = os.path.realpath(a.expect_libcufile)
    got = mapped_libcufile()
    if all(os.path.dirname(p) == want for p in got) and (got or none_yet_ok):
        return True
    answering = answering_libcufile()
    if answering is not None and os.path.dirname(answering) == want:
        report.common["also_mapped"] = [p for p in got if os.path.dirname(p) != want]
        report.common["answering_libcufile"] = answering
        return True
    report.emit(op=step, ok=False, wrong_libcufile=True,
                error=f"the process mapped {got or 'no libcufile'}, not the one in {want}"
                      f" (cuFileRead resolves to {answering or 'none'})")
    return False


def timed(fn):
    t0 = time.perf_counter()
    got = fn()
    return got, time.perf_counter() - t0


def rate_fields(nbytes, seconds):
    return {"bytes": nbytes, "seconds": round(seconds, 4),
            "gb_s": round(nbytes / seconds / 1e9, 3) if seconds > 0 else 0.0,
            "gib_s": round(nbytes / seconds / (1 << 30), 3) if seconds > 0 else 0.0}


# --- KvikIO -------------------------------------------------------------------------------------

def run_kvikio(a, size, report):
    # KvikIO reads its settings from the environment when it is first imported.
    os.environ["KVIKIO_COMPAT_MODE"] = a.kvikio_compat
    os.environ["KVIKIO_NTHREADS"] = str(a.threads)
    os.environ["KVIKIO_TASK_SIZE"] = str(a.task_size)
    step = "import kvikio"
    try:
        import kvikio
        import kvikio.defaults
    except Exception as e:  # noqa: BLE001 - ImportError, or a CUDA error raised at import
        report.emit(op="import", ok=False, error=f"{step}: {one_line(e)}")
        return
    # KvikIO loads libcufile as it is imported (cuda-pathfinder: site-packages first).
    if not expect_libcufile(a, report, "import", none_yet_ok=True):
        return
    try:
        import cupy
    except Exception as e:  # noqa: BLE001
        report.emit(op="import", ok=False, error=f"import cupy: {one_line(e)}")
        return
    preferred = kvikio.defaults.is_compat_mode_preferred()
    report.common.update(kvikio_version=getattr(kvikio, "__version__", None),
                         compat_mode=a.kvikio_compat, compat_mode_preferred=preferred,
                         threads=a.threads, task_size=a.task_size)
    if a.kvikio_compat == "OFF" and preferred:
        report.emit(op="import", ok=False,
                    error="KVIKIO_COMPAT_MODE=OFF but KvikIO prefers its POSIX path: no cuFile")
        return
    step = "cupy.cuda.Device"
    try:
        cupy.cuda.Device(a.device).use()
        step = "cupy.empty"
        buf = cupy.empty(size, dtype=cupy.uint8)
        step = "kvikio.CuFile"
        f = kvikio.CuFile(a.file, "r")
    except Exception as e:  # noqa: BLE001
        if expect_libcufile(a, report, "open", none_yet_ok=True):
            report.emit(op="open", ok=False, error=f"{step}: {one_line(e)}")
        return
    stats = CuFileStats()
    try:
        if not expect_libcufile(a, report, "open"):
            return
        for i, cache in enumerate(a.caches):
            if i:
                # A fresh handle: the drop-in pins the file's pages while it is registered, and
                # drop_caches cannot evict pinned pages, so a cold pass after a warm one on the
                # same handle read the page cache (53 GB/s "cold" on the H200).
                f.close()
                f = kvikio.CuFile(a.file, "r")
            note = prepare_cache(a.file, size, cache)
            cupy.cuda.runtime.deviceSynchronize()

            def pread():
                got = f.pread(buf, size, 0).get()
                cupy.cuda.runtime.deviceSynchronize()
                return got

            before = stats.bytes()
            try:
                got, seconds = timed(pread)
            except Exception as e:  # noqa: BLE001
                report.emit(op="CuFile.pread", cache=cache, ok=False, error=one_line(e))
                return
            moved = through_cufile(before, stats.bytes())
            bad = check_cupy(cupy, buf, 0) if got == size else None
            report.emit(op="CuFile.pread", cache=cache, **rate_fields(got, seconds), **moved,
                        ok=got == size, check_ok=got == size and bad is None, first_bad=bad,
                        **({"note": note} if note else {}),
                        **({} if got == size else {"error": f"read {got} of {size} bytes"}))
            buf.fill(0)  # no stale bytes for the next check (a memset for 0)
    finally:
        f.close()
    buf = None  # the memory back before the round trip
    if a.roundtrip:
        kvikio_roundtrip(a, report, kvikio, cupy)


def check_cupy(cupy, arr, offset):
    """First wrong file offset or None; CuPy's kernels (compiled at first use), or torch's on the
    same memory (DLPack) when CuPy cannot compile them."""
    try:
        return first_mismatch_cupy(cupy, arr, offset)
    except Exception:  # noqa: BLE001 - no NVRTC: torch's kernels are compiled ahead of time
        import torch
        return first_mismatch_torch(torch, torch.from_dlpack(arr), offset)


def kvikio_roundtrip(a, report, kvikio, cupy):
    n = a.roundtrip
    path = f"{a.file}.roundtrip-{a.client}"
    step = "pattern"
    stats = CuFileStats()
    before = stats.bytes()
    try:
        src = make_pattern_cupy(cupy, n)
        back = cupy.zeros(n, dtype=cupy.uint8)
        step = "CuFile.write"
        with kvikio.CuFile(path, "w") as f:
            wrote, w_s = timed(lambda: f.write(src))
        if wrote != n:
            raise RuntimeError(f"CuFile.write wrote {wrote} of {n} bytes")
        step = "CuFile.pread"
        with kvikio.CuFile(path, "r") as f:
            got = f.pread(back).get()
            bad_pread = check_cupy(cupy, back, 0) if got == n else 0
            back.fill(0)
            step = "CuFile.read"
            got_read = f.read(back)
            bad_read = check_cupy(cupy, back, 0) if got_read == n else 0
    except Exception as e:  # noqa: BLE001
        report.emit(op="roundtrip", bytes=n, ok=False, error=f"{step}: {one_line(e)}")
        return
    finally:
        remove_quietly(path)
    report.emit(op="roundtrip CuFile.write/pread/read", bytes=n, write_seconds=round(w_s, 4),
                **through_cufile(before, stats.bytes()),
                write_gb_s=round(n / w_s / 1e9, 3) if w_s > 0 else 0.0,
                ok=got == n and got_read == n,
                check_ok=got == n and got_read == n and bad_pread is None and bad_read is None,
                first_bad_pread=bad_pread, first_bad_read=bad_read)


# --- torch.cuda.gds ---------------------------------------------------------------------------

def run_torch_gds(a, size, report):
    try:
        import torch
        import torch.cuda.gds as gds
    except Exception as e:  # noqa: BLE001
        report.emit(op="import", ok=False, error=f"import torch: {one_line(e)}")
        return
    if not expect_libcufile(a, report, "import", none_yet_ok=True):
        return
    report.common.update(torch_version=torch.__version__, registered=not a.no_register)
    step = "torch.empty"
    try:
        dev = torch.device("cuda", a.device)
        t = torch.empty(size, dtype=torch.uint8, device=dev)
        s = t.untyped_storage()
        if not a.no_register:
            step = "gds_register_buffer"
            gds.gds_register_buffer(s)
        step = "GdsFile"
        f = gds.GdsFile(a.file, os.O_RDONLY)
    except Exception as e:  # noqa: BLE001
        if expect_libcufile(a, report, "open", none_yet_ok=True):
            report.emit(op="open", ok=False, error=f"{step}: {one_line(e)}")
        return
    stats = CuFileStats()
    try:
        if not expect_libcufile(a, report, "open"):
            return
        for i, cache in enumerate(a.caches):
            if i:  # a fresh handle, as for KvikIO: closing the last one released its pins
                f = None
                f = gds.GdsFile(a.file, os.O_RDONLY)
            note = prepare_cache(a.file, size, cache)
            torch.cuda.synchronize(dev)

            def load():
                f.load_storage(s, 0)
                torch.cuda.synchronize(dev)

            before = stats.bytes()
            try:
                _, seconds = timed(load)
            except Exception as e:  # noqa: BLE001
                report.emit(op="GdsFile.load_storage", cache=cache, ok=False, error=one_line(e))
                return
            moved = through_cufile(before, stats.bytes())
            bad = first_mismatch_torch(torch, t, 0)
            report.emit(op="GdsFile.load_storage", cache=cache, **rate_fields(size, seconds),
                        **moved,
                        check_ok=bad is None, first_bad=bad, **({"note": note} if note else {}))
            t.zero_()  # no stale bytes for the next check
    finally:
        f = None  # GdsFile deregisters the handle and closes the file when it goes
        if not a.no_register:
            gds.gds_deregister_buffer(s)
    s = t = None  # the memory back before the round trip
    if a.roundtrip:
        torch_roundtrip(a, report, torch, gds)


def torch_roundtrip(a, report, torch, gds):
    n = a.roundtrip
    path = f"{a.file}.roundtrip-{a.client}"
    dev = torch.device("cuda", a.device)
    step = "pattern"
    stats = CuFileStats()
    before = stats.bytes()
    try:
        off = torch.arange(n, dtype=torch.int64, device=dev)
        src = ((((off * PATTERN_K_SIGNED) >> 56) ^ (off >> 12)) & 0xFF).to(torch.uint8)
        del off
        back = torch.zeros_like(src)
        # The pattern and the zeros are kernels still running on torch's stream: a synchronous
        # cuFile call does not wait for them (nor does GPU-direct DMA); NVIDIA's compatibility
        # path copies with cudaMemcpy, which does. Without this the H200 run saw wrong bytes from
        # 40 MiB on (bench/results/h200-2026-12-03).
        torch.cuda.synchronize(dev)
        regs = [] if a.no_register else [src.untyped_storage(), back.untyped_storage()]
        for r in regs:
            gds.gds_register_buffer(r)
        step = "GdsFile"
        f = gds.GdsFile(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC)
        step = "GdsFile.save_storage"
        _, w_s = timed(lambda: (f.save_storage(src.untyped_storage(), 0),
                                torch.cuda.synchronize(dev)))
        step = "GdsFile.load_storage"
        f.load_storage(back.untyped_storage(), 0)
        torch.cuda.synchronize(dev)
        bad = first_mismatch_torch(torch, back, 0)
        f = None
        for r in regs:
            gds.gds_deregister_buffer(r)
        size_on_disk = os.stat(path).st_size
    except Exception as e:  # noqa: BLE001
        report.emit(op="roundtrip", bytes=n, ok=False, error=f"{step}: {one_line(e)}")
        return
    finally:
        remove_quietly(path)
    report.emit(op="roundtrip GdsFile.save_storage/load_storage", bytes=n,
                **through_cufile(before, stats.bytes()),
                write_seconds=round(w_s, 4), write_gb_s=round(n / w_s / 1e9, 3) if w_s > 0 else 0.0,
                ok=size_on_disk == n, check_ok=bad is None and size_on_disk == n, first_bad=bad,
                file_bytes=size_on_disk)


def remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def main(argv):
    a = parse_args(argv)
    report = Report(a)
    try:
        have = os.stat(a.file).st_size
    except OSError as e:
        report.emit(op="stat", ok=False, error=one_line(e))
        return 1
    size = have if a.size is None else a.size
    if size <= 0 or size > have:
        report.emit(op="stat", ok=False,
                    error=f"{a.file} holds {have} bytes; -s {size} must be 1..{have}")
        return 1
    run = run_kvikio if a.client == "kvikio" else run_torch_gds
    try:
        run(a, size, report)
    except Exception as e:  # noqa: BLE001 - whatever a client raised, as a line
        report.emit(op="run", ok=False, error=one_line(e))
    return report.exit_status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
