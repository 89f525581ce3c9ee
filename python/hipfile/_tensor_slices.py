# SPDX-License-Identifier: MIT
"""Which bytes of a tensor a slice needs: ``hipfile.safetensors.load(..., slices=)``.

A slice (a tensor-parallel rank's rows or columns, say) of a C-ordered tensor is a set of
contiguous runs of its bytes: one run for a slice of the first dimension, one per row for a
slice of the second, and so on. Few runs are read straight into the result, each where it lands;
many (a column slice of a large matrix) are read as the one block of rows that holds them, and the
slice is copied out of it, which costs a temporary as large as those rows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

# More runs than this: one read of the rows holding them, then a copy.
MAX_RUNS = 64


class SlicePlan(NamedTuple):
    """How to read one tensor's slice."""

    shape: tuple[int, ...]  # the result's shape
    nbytes: int  # the result's size
    runs: list[tuple[int, int]]  # (file offset, bytes), in the result's order; or empty
    cover: tuple[int, int] | None  # (file offset, bytes) of the rows holding the slice
    cover_shape: tuple[int, ...]  # their shape
    index: tuple[slice, ...]  # the slice, within those rows


def slicer(slices: Any) -> tuple[Callable[[str, Any], Any], set[str] | None]:
    """``slices`` (a mapping of names to slices, or a callable on (name, TensorInfo) returning a
    slice or None) as a function of (name, info), and the names a mapping promises."""
    if slices is None:
        return (lambda _name, _info: None), None
    if callable(slices):
        return slices, None
    if isinstance(slices, Mapping):
        return (lambda name, _info: slices.get(name)), set(slices)
    raise TypeError("slices: a mapping of tensor names to slices, or a callable (name, info)")


def plan(what: str, info: Any, index: Any) -> SlicePlan | None:
    """The runs of `info` (a TensorInfo) that `index` selects; None when it selects the whole
    tensor. `index`: a slice or a tuple of slices, one per leading dimension, each with step 1
    (negative and out-of-range bounds as Python takes them). ValueError names `what` otherwise."""
    shape = tuple(info.shape)
    parts = index if isinstance(index, tuple) else (index,)
    if any(not isinstance(p, slice) for p in parts):
        raise ValueError(
            f"{what}: a slice is a slice or a tuple of slices (slice(a, b), not an integer: "
            f"slice(i, i + 1) keeps the dimension), got {index!r}"
        )
    if len(parts) > len(shape):
        raise ValueError(f"{what}: {len(parts)} slices for a tensor of shape {list(shape)}")
    if info.dtype == "F4":
        raise ValueError(f"{what}: F4 packs two elements a byte; it is loaded whole, not sliced")
    bounds = []
    for dim, part in enumerate(parts):
        start, stop, step = part.indices(shape[dim])
        if step != 1:
            raise ValueError(f"{what}: slice {part!r} of dimension {dim} has a step; only 1")
        bounds.append((start, max(start, stop)))
    bounds += [(0, n) for n in shape[len(bounds) :]]
    if all(b == (0, n) for b, n in zip(bounds, shape)):
        return None
    numel = math.prod(shape)
    itemsize = info.nbytes // numel if numel else 0
    out_shape = tuple(b - a for a, b in bounds)
    nbytes = math.prod(out_shape) * itemsize
    index_all = tuple(slice(a, b) for a, b in bounds)
    if nbytes == 0:
        return SlicePlan(out_shape, 0, [], None, (), index_all)
    strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
    last = max(d for d, (b, n) in enumerate(zip(bounds, shape)) if b != (0, n))
    run_bytes = (bounds[last][1] - bounds[last][0]) * strides[last] * itemsize
    outer = [range(a, b) for a, b in bounds[:last]]
    if math.prod(len(r) for r in outer) <= MAX_RUNS:
        runs = []
        for idx in itertools.product(*outer):
            element = sum(i * s for i, s in zip(idx, strides)) + bounds[last][0] * strides[last]
            runs.append((info.file_offset + element * itemsize, run_bytes))
        return SlicePlan(out_shape, nbytes, runs, None, (), index_all)
    first, end = bounds[0]
    row_bytes = strides[0] * itemsize
    cover = (info.file_offset + first * row_bytes, (end - first) * row_bytes)
    return SlicePlan(
        out_shape,
        nbytes,
        [],
        cover,
        (end - first,) + shape[1:],
        (slice(None),) + index_all[1:],
    )
