# SPDX-License-Identifier: MIT
"""``hipfile.safetensors``: safetensors checkpoints read straight into tensors (docs/python.md).

::

    import hipfile.safetensors as st
    weights = st.load_file("model.safetensors", device="cuda:0")       # {name: torch.Tensor}
    weights = st.load("model.safetensors.index.json", device="cuda:0")  # every shard at once
    arrays = st.load_file("model.safetensors", framework="numpy")       # host NumPy arrays
    header = st.read_header("model.safetensors")                        # names, dtypes, shapes

The header is parsed and validated in C++ (python/src/safetensors_header.cc); a bad file is
refused with a ``ValueError`` naming the file, the tensor and the problem before any tensor is
read. Each tensor is allocated on its own and its bytes are read straight into it by the library:
tensors of at most 256 KiB in GPU memory through a ``hipfile.Batch`` (the engine groups them),
larger ones and host arrays as ``pread`` futures on the package's threads, every shard's reads in
flight together.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611
from hipfile import _tensor_slices
from hipfile.batch import Batch
from hipfile.file import _READ_DEVICE, _READ_HOST, FileHandle
from hipfile.futures import IOFuture

__all__ = [
    "TensorInfo",
    "Header",
    "read_header",
    "load_file",
    "load",
    "load_distributed",
    "MAX_HEADER_BYTES",
]

MAX_HEADER_BYTES: int = _c._ST_MAX_HEADER_BYTES  # pylint: disable=protected-access

# Batch entries of at most this many bytes move as groups through the engine's io_uring path
# (engine::SyncEngine::kMaxGroupedBytes); larger tensors are read one call each.
_GROUPED_BYTES = 256 << 10
# Entries a hipfile.Batch holds at once (the library's kMaxBatchIoCount).
_BATCH_ENTRIES = 128

# safetensors dtype -> (NumPy dtype name, module holding it); F4 is unpacked (see _unpack_f4).
_NUMPY = {
    "BOOL": ("bool_", "numpy"),
    "U8": ("uint8", "numpy"),
    "I8": ("int8", "numpy"),
    "I16": ("int16", "numpy"),
    "U16": ("uint16", "numpy"),
    "F16": ("float16", "numpy"),
    "I32": ("int32", "numpy"),
    "U32": ("uint32", "numpy"),
    "F32": ("float32", "numpy"),
    "C64": ("complex64", "numpy"),
    "F64": ("float64", "numpy"),
    "I64": ("int64", "numpy"),
    "U64": ("uint64", "numpy"),
    "BF16": ("bfloat16", "ml_dtypes"),
    "F8_E4M3": ("float8_e4m3fn", "ml_dtypes"),
    "F8_E5M2": ("float8_e5m2", "ml_dtypes"),
    "F8_E4M3FNUZ": ("float8_e4m3fnuz", "ml_dtypes"),
    "F8_E5M2FNUZ": ("float8_e5m2fnuz", "ml_dtypes"),
    "F8_E8M0": ("float8_e8m0fnu", "ml_dtypes"),
    "F4": ("float4_e2m1fn", "ml_dtypes"),
}
# safetensors dtype -> torch dtype name; F4 as torch's packed float4_e2m1fn_x2 (two per byte).
_TORCH = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "U16": "uint16",
    "F16": "float16",
    "BF16": "bfloat16",
    "I32": "int32",
    "U32": "uint32",
    "F32": "float32",
    "C64": "complex64",
    "F64": "float64",
    "I64": "int64",
    "U64": "uint64",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "F8_E8M0": "float8_e8m0fnu",
    "F4": "float4_e2m1fn_x2",
}


class TensorInfo(NamedTuple):
    """One tensor as the header describes it (validated)."""

    name: str
    dtype: str  # the file's code: "F32", "BF16", "F8_E4M3", ...
    shape: tuple[int, ...]
    data_offsets: tuple[int, int]  # as in the header: relative to the data region
    file_offset: int  # where its bytes start in the file
    nbytes: int


class Header:
    """A file's validated header: ``tensors`` (name -> ``TensorInfo``, in file order),
    ``metadata`` (``__metadata__``, a dict of strings, or ``None``), ``data_start`` (where the
    data region begins), ``file_size``."""

    def __init__(self, path: str, file_size: int, parsed: tuple[int, list[Any], Any]) -> None:
        data_start, tensors, metadata = parsed
        self.path = path
        self.file_size = file_size
        self.data_start: int = data_start
        self.metadata: dict[str, str] | None = metadata
        self.tensors: dict[str, TensorInfo] = {
            name: TensorInfo(name, dtype, shape, (b, e), data_start + b, e - b)
            for name, dtype, shape, b, e in tensors
        }

    def keys(self) -> list[str]:
        """The tensors' names, in file order."""
        return list(self.tensors)

    def __repr__(self) -> str:
        return f"<hipfile.safetensors.Header {self.path!r}: {len(self.tensors)} tensors>"


def _refuse(path: str, problem: str) -> ValueError:
    return ValueError(f"safetensors file {path!r}: {problem}")


def _pread_exactly(fd: int, size: int, offset: int) -> bytes:
    parts = []
    while size > 0:
        part = os.pread(fd, size, offset)
        if not part:
            break
        parts.append(part)
        size -= len(part)
        offset += len(part)
    return b"".join(parts)


def _header_of(fd: int, path: str) -> Header:
    size = os.fstat(fd).st_size
    length = _c._st_header_length(_pread_exactly(fd, 8, 0), size, path)  # pylint: disable=W0212
    text = _pread_exactly(fd, length, 8)
    if len(text) != length:
        raise _refuse(path, f"the file ended {len(text)} bytes into its {length}-byte header")
    return Header(path, size, _c._st_parse_header(text, size, path))  # pylint: disable=W0212


def read_header(path: str | os.PathLike[str]) -> Header:
    """The validated header of a safetensors file (``safe_open``'s names, dtypes, shapes, offsets
    and ``metadata()``, without the data); ``ValueError`` for a bad file."""
    p = os.fspath(path)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return _header_of(fd, p)
    finally:
        os.close(fd)


# ---- which files, which tensors ---------------------------------------------------------------


def _shard_paths(paths: Any) -> tuple[list[str], dict[str, str] | None]:
    """The shard files, and the index's weight map (name -> shard path) when one was given."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    shards: list[str] = []
    weight_map: dict[str, str] | None = None
    for p in map(os.fspath, paths):
        if not p.endswith(".json"):
            shards.append(p)
            continue
        try:
            with open(p, encoding="utf-8") as f:
                index = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"safetensors index {p!r}: not valid JSON ({e})") from None
        wm = index.get("weight_map") if isinstance(index, dict) else None
        if not isinstance(wm, dict) or not all(isinstance(v, str) for v in wm.values()):
            raise ValueError(f'safetensors index {p!r}: no "weight_map" of names to files')
        base = os.path.dirname(p)
        weight_map = dict(weight_map or {})
        for name, shard in wm.items():
            # An index names files beside it: one that reaches elsewhere (an absolute path,
            # "..") is refused rather than opened, as a downloaded index is not to be trusted.
            if not shard or os.path.isabs(shard) or ".." in shard.replace("\\", "/").split("/"):
                raise ValueError(
                    f"safetensors index {p!r}: tensor {name!r} is placed in {shard!r}, which is "
                    "not a file beside the index"
                )
            weight_map[name] = os.path.join(base, shard)
            shards.append(weight_map[name])
    return list(dict.fromkeys(shards)), weight_map


def _selector(
    filter: Any,
) -> tuple[Callable[[str], bool], set[str] | None]:  # pylint: disable=W0622
    if filter is None:
        return (lambda _name: True), None
    if callable(filter):
        return filter, None
    if isinstance(filter, str) or not isinstance(filter, Iterable):
        raise TypeError("filter: a callable on the tensor name, or a list of names")
    wanted = set(filter)
    return wanted.__contains__, wanted


# ---- allocation -------------------------------------------------------------------------------


class _Read(NamedTuple):
    fh: FileHandle
    ptr: int
    nbytes: int
    file_offset: int
    device: bool
    what: str


def _numpy_dtype(np: Any, path: str, t: TensorInfo) -> Any:
    name, module = _NUMPY[t.dtype]
    if module == "numpy":
        return np.dtype(name).newbyteorder("<")
    try:
        import ml_dtypes  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise _refuse(
            path,
            f"tensor {t.name!r} is {t.dtype}: framework='numpy' needs ml_dtypes for it "
            "(pip install ml_dtypes)",
        ) from None
    if not hasattr(ml_dtypes, name):
        raise _refuse(
            path,
            f"tensor {t.name!r} is {t.dtype}: this ml_dtypes ({ml_dtypes.__version__}) has no "
            f"{name}",
        )
    return np.dtype(getattr(ml_dtypes, name))


def _numpy_allocator() -> Callable[[str, TensorInfo], tuple[Any, Any, Callable[[], None] | None]]:
    import numpy as np  # pylint: disable=import-outside-toplevel

    dtypes: dict[str, Any] = {}

    def alloc(path: str, t: TensorInfo) -> tuple[Any, Any, Callable[[], None] | None]:
        if t.dtype not in _NUMPY:
            raise _refuse(
                path,
                f"tensor {t.name!r} is {t.dtype}, which NumPy has no dtype for "
                "(leave it out with filter=; read_header describes it)",
            )
        dtype = dtypes.get(t.dtype)
        if dtype is None:
            dtype = dtypes[t.dtype] = _numpy_dtype(np, path, t)
        array = np.empty(t.shape, dtype=dtype)
        if t.dtype != "F4":
            return array, array, None
        # F4 packs two elements a byte, the first in the low nibble; ml_dtypes keeps one a byte.
        packed = np.empty(t.nbytes, dtype=np.uint8)

        def unpack() -> None:
            codes = array.reshape(-1).view(np.uint8)  # a view of `array`: writes land in it
            codes[0::2] = packed & 0x0F
            codes[1::2] = packed >> 4

        return array, packed, unpack

    return alloc


def _torch_allocator(device: Any) -> Callable[[str, TensorInfo], tuple[Any, Any, None]]:
    import torch  # pylint: disable=import-outside-toplevel

    dev = torch.device(device)

    def alloc(path: str, t: TensorInfo) -> tuple[Any, Any, None]:
        dtype = getattr(torch, _TORCH.get(t.dtype, ""), None)
        if not isinstance(dtype, torch.dtype):
            raise _refuse(
                path,
                f"tensor {t.name!r} is {t.dtype}, which this torch "
                f"({torch.__version__}) has no dtype for (leave it out with filter=)",
            )
        shape = t.shape
        if t.dtype == "F4":  # torch.float4_e2m1fn_x2: two elements a byte, the last dim halved
            if not shape or shape[-1] % 2:
                raise _refuse(
                    path,
                    f"tensor {t.name!r}: F4 {list(shape)} does not pack into "
                    "torch.float4_e2m1fn_x2 (the last dimension must be even)",
                )
            shape = shape[:-1] + (shape[-1] // 2,)
        tensor = torch.empty(shape, dtype=dtype, device=dev)
        return tensor, tensor, None

    return alloc


def _pointer(target: Any) -> tuple[int, bool]:
    if hasattr(target, "data_ptr"):  # torch
        return target.data_ptr(), target.device.type != "cpu"
    return target.__array_interface__["data"][0], False  # NumPy


# ---- reading ----------------------------------------------------------------------------------


def _read_all(reads: list[_Read]) -> None:
    """Reads every entry straight into its memory; raises the first failure once all finished."""
    futures: list[tuple[IOFuture, _Read]] = []
    grouped = [r for r in reads if r.device and r.nbytes <= _GROUPED_BYTES]
    for r in reads:
        if r.device and r.nbytes <= _GROUPED_BYTES:
            continue
        op = _READ_DEVICE if r.device else _READ_HOST
        handle = r.fh._open_handle()  # pylint: disable=protected-access
        pending = _c._submit(
            op, handle, r.ptr, r.nbytes, r.file_offset, 0, r.fh
        )  # pylint: disable=W0212
        futures.append((IOFuture(pending, r.what), r))
    first: BaseException | None = None
    try:
        if grouped:
            with Batch(min(_BATCH_ENTRIES, len(grouped))) as batch:
                for at in range(0, len(grouped), _BATCH_ENTRIES):
                    window = grouped[at : at + _BATCH_ENTRIES]
                    batch.submit_many([(r.fh, r.ptr, r.nbytes, r.file_offset) for r in window])
                    for r, got in zip(window, batch.wait()):
                        _check(r, got)
    except BaseException as e:  # pylint: disable=broad-except
        first = e
    for future, r in futures:  # every future finishes before anything is raised
        try:
            _check(r, future.get())
        except BaseException as e:  # pylint: disable=broad-except
            first = first or e
    if first is not None:
        raise first


def _check(r: _Read, got: int) -> None:
    if got != r.nbytes:
        raise ValueError(f"{r.what}: read {got} of {r.nbytes} bytes (did the file shrink?)")


def _read_slice(alloc, fh, path, t, plan, out, reads, finish) -> None:
    """Allocates the result of a sliced tensor and queues its reads: each run where it lands,
    or the rows holding the slice into a temporary that `finish` copies the slice out of."""
    what = f"safetensors file {path!r}: tensor {t.name!r}"
    result, target, _ = alloc(path, t._replace(shape=plan.shape, nbytes=plan.nbytes))
    out[t.name] = result
    if plan.runs:
        ptr, on_device = _pointer(target)
        at = 0
        for offset, size in plan.runs:
            reads.append(_Read(fh, ptr + at, size, offset, on_device, what))
            at += size
    elif plan.cover is not None:
        offset, size = plan.cover
        rows, rows_target, _ = alloc(path, t._replace(shape=plan.cover_shape, nbytes=size))
        ptr, on_device = _pointer(rows_target)
        reads.append(_Read(fh, ptr, size, offset, on_device, what))

        def copy_out() -> None:
            if hasattr(result, "copy_"):
                result.copy_(rows[plan.index])  # torch, on the device's current stream
            else:
                result[...] = rows[plan.index]

        finish.append(copy_out)


def load(
    paths: Any,
    device: Any = "cuda:0",
    framework: str = "torch",
    filter: Callable[[str], bool] | Iterable[str] | None = None,  # pylint: disable=W0622
    slices: Mapping[str, Any] | Callable[[str, TensorInfo], Any] | None = None,
) -> dict[str, Any]:
    """The tensors of a (sharded) checkpoint: ``paths`` is a file, a list of shard files, or a
    ``*.safetensors.index.json`` (its ``weight_map`` names the shards, beside it). Returns
    ``{name: tensor}``: torch tensors on ``device`` (``framework="torch"``; ``"cpu"`` too), or
    host NumPy arrays (``framework="numpy"``, ``device`` ignored; BF16 and float8 as ml_dtypes
    types). ``filter``: a callable on the name, or a list of names (``KeyError`` for one no
    shard holds), loads a subset. ``slices``: part of a tensor instead of all of it (a
    tensor-parallel rank's share) - a mapping of names to a slice or a tuple of slices (step 1),
    or a callable on (name, ``TensorInfo``) returning one or ``None`` (whole); only the bytes
    the slice needs are read (see hipfile/_tensor_slices.py). Every shard is read at once, each
    byte once, each tensor into memory of its own. ``ValueError`` for a bad file, a name in two
    shards, a dtype the framework lacks, or a bad slice."""
    if framework in ("torch", "pt"):
        alloc = _torch_allocator(device)
    elif framework in ("numpy", "np"):
        alloc = _numpy_allocator()
    else:
        raise ValueError(f"framework must be 'torch' or 'numpy', got {framework!r}")
    shards, weight_map = _shard_paths(paths)
    wanted, names = _selector(filter)
    slice_of, sliced_names = _tensor_slices.slicer(slices)
    if weight_map is not None:  # open only the shards holding a wanted tensor
        indexed = set(weight_map.values())
        needed = {weight_map[n] for n in weight_map if wanted(n)}
        shards = [s for s in shards if s in needed or s not in indexed]

    where: dict[str, str] = {}
    chosen: list[tuple[FileHandle, TensorInfo]] = []
    handles: list[FileHandle] = []
    try:
        # Every header first: a bad file, a name in two shards or a missing name is refused
        # before any memory is allocated.
        for path in shards:
            fh = FileHandle(path, "r")
            fh.open()
            handles.append(fh)
            header = _header_of(fh.fd, path)  # type: ignore[arg-type]
            for t in header.tensors.values():
                if not wanted(t.name):
                    continue
                if weight_map is not None and weight_map.get(t.name, path) != path:
                    continue  # the index places it in another shard
                if t.name in where:
                    raise ValueError(f"tensor {t.name!r} is in both {where[t.name]!r} and {path!r}")
                where[t.name] = path
                chosen.append((fh, t))
        if names is not None and names - where.keys():
            raise KeyError(f"no shard holds {sorted(names - where.keys())}")
        if sliced_names is not None and sliced_names - where.keys():
            raise KeyError(f"slices name tensors not loaded: {sorted(sliced_names - where.keys())}")
        if weight_map is not None:
            missing = [n for n in weight_map if wanted(n) and n not in where]
            if missing:
                raise ValueError(f"the index places {missing[:5]} in shards that do not hold them")

        out: dict[str, Any] = {}
        reads: list[_Read] = []
        finish: list[Callable[[], None]] = []
        plans: dict[str, _tensor_slices.SlicePlan | None] = {}
        for fh, t in chosen:  # every slice checked before anything is allocated
            index = slice_of(t.name, t)
            if index is not None:
                what = f"safetensors file {os.fspath(fh.path)!r}: tensor {t.name!r}"
                plans[t.name] = _tensor_slices.plan(what, t, index)
        for fh, t in chosen:
            path = os.fspath(fh.path)
            plan = plans.get(t.name)
            if plan is not None:
                _read_slice(alloc, fh, path, t, plan, out, reads, finish)
                continue
            # `target` is where the bytes land: the result, or (F4 in NumPy) packed bytes that
            # `after` unpacks into it; `finish` keeps it alive until then.
            result, target, after = alloc(path, t)
            out[t.name] = result
            if after is not None:
                finish.append(after)
            if t.nbytes:
                ptr, on_device = _pointer(target)
                what = f"safetensors file {path!r}: tensor {t.name!r}"
                reads.append(_Read(fh, ptr, t.nbytes, t.file_offset, on_device, what))
        # Shard by shard, each front to back: on the H200 (8 GB, 16 shards) this read 16% faster
        # warm and 5% cold than all shards at once interleaved by offset (docs/python.md).
        shard_of = {id(fh): i for i, fh in enumerate(handles)}
        reads.sort(key=lambda r: (shard_of[id(r.fh)], r.file_offset))
        _read_all(reads)
    finally:
        for fh in handles:
            fh.close()
    for after in finish:
        after()
    return out


def load_file(
    path: str | os.PathLike[str],
    device: Any = "cuda:0",
    framework: str = "torch",
    filter: Callable[[str], bool] | Iterable[str] | None = None,  # pylint: disable=W0622
    slices: Mapping[str, Any] | Callable[[str, TensorInfo], Any] | None = None,
) -> dict[str, Any]:
    """The tensors of one safetensors file, as ``load``: ``{name: tensor}`` on ``device``."""
    return load([path], device=device, framework=framework, filter=filter, slices=slices)


# Several processes of a torch.distributed job: hipfile/distributed.py (imports this module
# lazily, inside the function).
from hipfile.distributed import load_distributed  # noqa: E402  pylint: disable=C0413
