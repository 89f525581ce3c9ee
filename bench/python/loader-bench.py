#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""loader-bench: one safetensors loader, one whole checkpoint, one JSON line (issue 20 item 4).

    loader-bench.py --loader NAME CHECKPOINT_DIR [--device cuda:0] [--check REF]
                    [--save-checksums FILE] [--sample-ms MS]
    loader-bench.py --loader link [--link-gib N]

Loads every tensor of CHECKPOINT_DIR (its model.safetensors.index.json, else its *.safetensors)
onto the device with one loader, in this process, timed from before the loader opens the first
file to every tensor on the device and the device synchronized (CUDA is initialised before the
clock starts, for every loader alike). Loaders, each used as its documentation shows:

  hipfile          hipfile.safetensors.load(shards, device=DEVICE) (this project)
  safetensors      safetensors.torch.load_file(shard, device=DEVICE), shard after shard
  fastsafetensors  SafeTensorsFileLoader(SingleGroup(), DEVICE, nogds=True): add_filenames,
                   copy_files_to_device, get_tensor of every name (GDS off: not on the H200;
                   its tensors are views of its per-file device buffers, closed after the sums)
  runai            runai_model_streamer.SafetensorsStreamer: stream_files(shards) into its host
                   buffer, each yielded tensor .to(DEVICE) (its documented single-process way)
  instanttensor    instanttensor.safe_open(shards, framework="pt", device=DEVICE), every tensor
                   f.tensors() yields (0.2: tensors of their own, copy=True)
  safetensors-numpy  safetensors.numpy.load_file into host arrays: no torch, no GPU (the
                   harness's own test, and a reference computed on the CPU)
  hipfile-numpy    hipfile.safetensors.load(shards, framework="numpy"): ours into host arrays,
                   no torch (the CPU runtime too); same checksums as safetensors-numpy's
  link             no checkpoint: a pinned host tensor of --link-gib GiB copied to the device
                   5 times, the best copy (the link rate the loaders are compared with)

The line: loader, ok, error, bytes (tensor bytes; file_bytes with the headers), tensors,
seconds, gb_s (decimal, as InstantTensor reports) and gib_s, cpu_cores (user + system CPU time
of the process over the load / its wall time), host_rss_base_gib (VmRSS before the load) and
host_peak_rss_gib (VmHWM after it), dev_peak_alloc_gib (torch.cuda.max_memory_allocated: torch's
allocator only), dev_used_before_gib / dev_used_peak_gib / dev_used_after_gib (the driver's used
memory, torch.cuda.mem_get_info, the peak sampled every --sample-ms during the load: memory a
loader takes outside torch's allocator shows here), cached_before (share of the checkpoint's
pages in the page cache just before the load, from mincore: 1.0 warm, about 0 cold), checksum
and check; hipfile rows add "paths", the bytes each of the library's data paths moved.

Checksums: every tensor's bytes are read as little-endian 64-bit words w_0..w_{n-1} (the last
one zero-padded) and summed on the device, s = sum w_j and ws = sum (j + 1) w_j, both modulo
2^64: any changed, lost or moved word changes them. "checksum" is a SHA-256 prefix over every
tensor's name, dtype, shape, s and ws; --save-checksums writes them per tensor, --check REF
compares with such a file ("equal", or how many tensors differ and the first). A loader that
fails prints its line with "ok": false and the error; exit status 1.
"""

import argparse
import ctypes
import glob
import hashlib
import json
import os
import resource
import struct
import sys
import threading
import time

LOADERS = ("hipfile", "safetensors", "fastsafetensors", "runai", "instanttensor",
           "safetensors-numpy", "hipfile-numpy", "link")
MASK = (1 << 64) - 1
CHUNK_WORDS = 1 << 24  # words per weighted-sum step: a 128 MiB weight vector on the device
# Every dtype name torch or NumPy/ml_dtypes gives -> the safetensors code.
DTYPE_CODE = {
    "bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "uint16": "U16",
    "float16": "F16", "bfloat16": "BF16", "int32": "I32", "uint32": "U32", "float32": "F32",
    "float64": "F64", "int64": "I64", "uint64": "U64", "complex64": "C64",
    "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2",
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint", nargs="?", help="folder of *.safetensors (and an index.json)")
    p.add_argument("--loader", required=True, choices=LOADERS)
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--check", metavar="REF", help="per-tensor checksums to compare with")
    p.add_argument("--save-checksums", metavar="FILE", help="write the per-tensor checksums")
    p.add_argument("--sample-ms", type=float, default=10.0,
                   help="driver memory sampling period during the load; 0: before/after only")
    p.add_argument("--link-gib", type=float, default=1.0, help="link: bytes per copy (1 GiB)")
    a = p.parse_args(argv)
    if a.loader != "link" and not a.checkpoint:
        p.error(f"--loader {a.loader} needs CHECKPOINT_DIR")
    if a.checkpoint and not os.path.isdir(a.checkpoint):
        p.error(f"CHECKPOINT_DIR '{a.checkpoint}': not a folder")
    if not a.device.startswith("cuda"):
        p.error(f"--device '{a.device}': a CUDA device, cuda or cuda:N")
    if a.link_gib <= 0 or a.sample_ms < 0:
        p.error("--link-gib must be more than 0 and --sample-ms at least 0")
    return a


# ---- the checkpoint -------------------------------------------------------------------------

def shard_paths(folder):
    """The shards the index names (sorted), else every *.safetensors in the folder."""
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
        return [os.path.join(folder, x) for x in files]
    files = sorted(glob.glob(os.path.join(folder, "*.safetensors")))
    if not files:
        raise FileNotFoundError(f"no *.safetensors in {folder}")
    return files


def read_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return header


def describe(paths):
    """{name: (dtype, shape)}, tensor bytes and file bytes, from the headers."""
    want, nbytes = {}, 0
    for path in paths:
        for name, t in read_header(path).items():
            want[name] = (t["dtype"], list(t["shape"]))
            nbytes += t["data_offsets"][1] - t["data_offsets"][0]
    return want, nbytes, sum(os.path.getsize(p) for p in paths)


def cached_fraction(paths):
    """Share of the files' pages in the page cache (mincore over a PROT_READ mapping, which
    faults nothing in); None where it cannot be told."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        page = os.sysconf("SC_PAGE_SIZE")
        cached = total = 0
        for path in paths:
            size = os.path.getsize(path)
            if size == 0:
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                addr = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
                if addr in (None, ctypes.c_void_p(-1).value):
                    return None
                pages = (size + page - 1) // page
                vec = (ctypes.c_ubyte * pages)()
                rc = libc.mincore(addr, size, vec)
                libc.munmap(addr, size)
                if rc != 0:
                    return None
                cached += pages - bytes(vec).count(0)  # bit 0 is the only one defined
                total += pages
            finally:
                os.close(fd)
        return round(cached / total, 4) if total else None
    except (OSError, AttributeError):
        return None


# ---- checksums ------------------------------------------------------------------------------

def torch_sums(tensors, device):
    """{name: (s, ws)} of every torch tensor, computed on the device, one copy back at the end."""
    import torch

    weights = torch.arange(1, CHUNK_WORDS + 1, dtype=torch.int64, device=device)
    names, parts = [], []
    for name, t in tensors.items():
        if t.numel():
            u8 = t.detach().reshape(-1).view(torch.uint8).to(device)  # no copy if it is there
        else:
            u8 = torch.empty(0, dtype=torch.uint8, device=device)
        n = u8.numel() // 8
        body = u8[: n * 8]
        try:
            words = body.view(torch.int64)
        except RuntimeError:  # a view at an offset that is not 8-aligned: copy it
            words = body.clone().view(torch.int64)
        rest = u8.numel() - n * 8
        if rest:
            pad = torch.zeros(8, dtype=torch.uint8, device=device)
            pad[:rest] = u8[n * 8:]
            words = torch.cat((words, pad.view(torch.int64)))
        s = torch.zeros((), dtype=torch.int64, device=device)
        ws = torch.zeros((), dtype=torch.int64, device=device)
        for i0 in range(0, words.numel(), CHUNK_WORDS):
            chunk = words[i0:i0 + CHUNK_WORDS]
            cs = chunk.sum()
            s += cs
            ws += (chunk * weights[: chunk.numel()]).sum() + cs * i0
        names.append(name)
        parts.append(torch.stack((s, ws)))
    values = torch.stack(parts).cpu().tolist() if parts else []
    return {n: (v[0] & MASK, v[1] & MASK) for n, v in zip(names, values)}


def numpy_sums(arrays):
    """{name: (s, ws)} of every NumPy array: the same sums on the host."""
    import numpy as np

    out = {}
    for name, a in arrays.items():
        u8 = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        n = u8.size // 8
        words = u8[: n * 8].view("<i8")
        if u8.size - n * 8:
            pad = np.zeros(8, dtype=np.uint8)
            pad[: u8.size - n * 8] = u8[n * 8:]
            words = np.concatenate((words, pad.view("<i8")))
        s = ws = 0
        for i0 in range(0, words.size, CHUNK_WORDS):
            chunk = words[i0:i0 + CHUNK_WORDS]
            weights = np.arange(1, chunk.size + 1, dtype=np.int64)
            cs = int(chunk.sum()) & MASK
            s += cs
            ws += (int((chunk * weights).sum()) & MASK) + cs * i0
        out[name] = (s & MASK, ws & MASK)
    return out


def dtype_code(t):
    name = str(t.dtype).replace("torch.", "")
    return DTYPE_CODE.get(name, name)


def checksums(tensors, device):
    """Per tensor [dtype, shape, s, ws] (hex) and the digest over all of them."""
    host = {n: t for n, t in tensors.items() if type(t).__module__ == "numpy"}
    sums = numpy_sums(host)
    if len(host) < len(tensors):
        sums.update(torch_sums({n: t for n, t in tensors.items() if n not in host}, device))
    per = {n: [dtype_code(t), list(t.shape), f"{sums[n][0]:016x}", f"{sums[n][1]:016x}"]
           for n, t in tensors.items()}
    h = hashlib.sha256()
    for n in sorted(per):
        h.update(json.dumps([n] + per[n]).encode() + b"\n")
    return per, h.hexdigest()[:32]


def compare(per, ref_path):
    if not os.path.exists(ref_path):
        return "no reference"
    with open(ref_path) as f:
        ref = json.load(f)
    bad = sorted(n for n in set(per) | set(ref) if per.get(n) != ref.get(n))
    if not bad:
        return "equal"
    return f"differs: {len(bad)} of {len(ref)} tensors (first {bad[0]})"


# ---- the loaders ----------------------------------------------------------------------------
# Each imports its package (before the clock) and returns load(shard paths, device) ->
# ({name: tensor}, close): close() releases what the loader still holds once the checksums are
# taken (fastsafetensors' tensors live in its buffers), or is None.

def loader_hipfile():
    import hipfile.safetensors as hst

    return lambda paths, device: (hst.load(paths, device=device), None)


def loader_hipfile_numpy():
    import ml_dtypes  # noqa: F401 - imported by the load otherwise, on the clock
    import numpy  # noqa: F401
    import hipfile.safetensors as hst

    return lambda paths, device: (hst.load(paths, framework="numpy"), None)


def loader_safetensors():
    from safetensors.torch import load_file

    def load(paths, device):
        out = {}
        for p in paths:
            out.update(load_file(p, device=device))
        return out, None
    return load


def loader_fastsafetensors():
    from fastsafetensors import SafeTensorsFileLoader, SingleGroup

    def load(paths, device):
        loader = SafeTensorsFileLoader(SingleGroup(), device, nogds=True)
        loader.add_filenames({0: paths})
        fb = loader.copy_files_to_device()
        out = {name: fb.get_tensor(name) for name in list(loader.get_keys())}

        def close():
            fb.close()
            loader.close()
        return out, close
    return load


def loader_runai():
    from runai_model_streamer import SafetensorsStreamer

    def load(paths, device):
        out = {}
        with SafetensorsStreamer() as streamer:
            streamer.stream_files(paths)
            for name, t in streamer.get_tensors():
                out[name] = t.to(device)
        return out, None
    return load


def loader_instanttensor():
    from instanttensor import safe_open

    def load(paths, device):
        # 0.2's default copy=True yields tensors that own their memory (0.1's were views of its
        # ring buffer that had to be cloned).
        with safe_open(paths, framework="pt", device=device) as f:
            return dict(f.tensors()), None
    return load


def loader_safetensors_numpy():
    import ml_dtypes  # noqa: F401 - NumPy knows "bfloat16" by name once it is imported
    from safetensors.numpy import load_file

    def load(paths, device):
        out = {}
        for p in paths:
            out.update(load_file(p))
        return out, None
    return load


LOADER = {"hipfile": loader_hipfile, "hipfile-numpy": loader_hipfile_numpy,
          "safetensors": loader_safetensors, "fastsafetensors": loader_fastsafetensors,
          "runai": loader_runai, "instanttensor": loader_instanttensor,
          "safetensors-numpy": loader_safetensors_numpy}
PACKAGE = {"hipfile": "hipfile", "safetensors": "safetensors", "fastsafetensors": "fastsafetensors",
           "runai": "runai-model-streamer", "instanttensor": "instanttensor",
           "safetensors-numpy": "safetensors", "hipfile-numpy": "hipfile", "link": "torch"}


# ---- measurement ----------------------------------------------------------------------------

def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class DeviceSampler:
    """The driver's used memory on the device, sampled on a thread while the load runs."""

    def __init__(self, torch, device, period_s):
        self.torch, self.device, self.period = torch, device, period_s
        self.peak = self.used()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True) if period_s else None

    def used(self):
        free, total = self.torch.cuda.mem_get_info(self.device)
        return total - free

    def run(self):
        while not self.stop.wait(self.period):
            self.peak = max(self.peak, self.used())

    def __enter__(self):
        if self.thread:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread:
            self.thread.join()
        self.peak = max(self.peak, self.used())


def gib(n):
    return None if n is None else round(n / (1 << 30), 3)


def version_of(package):
    try:
        from importlib.metadata import version

        return version(package)
    except Exception:  # noqa: BLE001 - not installed: the error line says why it failed
        return None


def measure_link(a, fields):
    import torch

    n = int(a.link_gib * (1 << 30))
    src = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    src.fill_(1)
    dst = torch.empty(n, dtype=torch.uint8, device=a.device)
    best = None
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        dst.copy_(src, non_blocking=True)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    fields.update(bytes=n, seconds=round(best, 5), gb_s=round(n / best / 1e9, 3),
                  gib_s=round(n / best / (1 << 30), 3), ok=True)


def run(a, fields):
    if a.loader == "link":
        return measure_link(a, fields)
    paths = shard_paths(a.checkpoint)
    want, nbytes, file_bytes = describe(paths)
    fields.update(files=len(paths), bytes=nbytes, file_bytes=file_bytes)
    on_gpu = not a.loader.endswith("-numpy")
    torch = None
    if on_gpu:
        import torch

        dev = torch.device(a.device)
        if dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
        a.device = fields["device"] = str(dev)  # "cuda:N", as every tensor's device reads
        torch.cuda.set_device(dev)
        torch.empty(1, device=a.device)  # the context, before the clock
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    fields["cached_before"] = cached_fraction(paths)
    fields["host_rss_base_gib"] = gib(status_kib("VmRSS") << 10)
    load = LOADER[a.loader]()
    if on_gpu:
        with DeviceSampler(torch, torch.device(a.device), a.sample_ms / 1000) as dev:
            before = dev.peak
            c0, t0 = cpu_seconds(), time.perf_counter()
            tensors, close = load(paths, a.device)
            torch.cuda.synchronize()
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        fields.update(dev_used_before_gib=gib(before), dev_used_peak_gib=gib(dev.peak),
                      dev_used_after_gib=gib(dev.used()),
                      dev_peak_alloc_gib=gib(torch.cuda.max_memory_allocated()))
    else:
        c0, t0 = cpu_seconds(), time.perf_counter()
        tensors, close = load(paths, a.device)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    fields.update(seconds=round(wall, 4), gb_s=round(nbytes / wall / 1e9, 3),
                  gib_s=round(nbytes / wall / (1 << 30), 3), cpu_cores=round(cpu / wall, 2),
                  host_peak_rss_gib=gib(status_kib("VmHWM") << 10),
                  host_maxrss_gib=gib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10),
                  tensors=len(tensors))
    if on_gpu:
        fields["not_on_device"] = sum(1 for t in tensors.values()
                                      if t.device != torch.device(a.device))
    if a.loader.startswith("hipfile"):  # the bytes each data path moved (docs/stats.md)
        import hipfile

        fields["paths"] = {k: v["read_bytes"] for k, v in hipfile.stats()["paths"].items()
                           if v["read_bytes"]}
    per, digest = checksums(tensors, a.device)
    if close:
        close()
    fields["checksum"] = digest
    if a.save_checksums:
        with open(a.save_checksums, "w") as f:  # one tensor a line
            f.write("{\n" + ",\n".join(f"{json.dumps(n)}: {json.dumps(per[n])}"
                                         for n in sorted(per)) + "\n}\n")
    if a.check:
        fields["check"] = compare(per, a.check)
    problems = []
    if set(per) != set(want):
        problems.append(f"{len(set(want) - set(per))} tensors missing, "
                        f"{len(set(per) - set(want))} not in the files")
    wrong = [n for n in per if n in want and (per[n][0], per[n][1]) != want[n]]
    if wrong:
        problems.append(f"{len(wrong)} tensors of another dtype or shape than the file says "
                        f"(first {wrong[0]})")
    if fields.get("not_on_device"):
        problems.append(f"{fields['not_on_device']} tensors not on {a.device}")
    if problems:
        raise RuntimeError("; ".join(problems))
    fields["ok"] = True


def main(argv):
    a = parse_args(argv)
    fields = {"loader": a.loader, "version": version_of(PACKAGE[a.loader]), "ok": False,
              "device": a.device, "checkpoint": a.checkpoint}
    try:
        run(a, fields)
    except Exception as e:  # noqa: BLE001 - reported in the line
        fields["error"] = f"{type(e).__name__}: {e}"[:400]
    print(json.dumps(fields), flush=True)
    return 0 if fields["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
