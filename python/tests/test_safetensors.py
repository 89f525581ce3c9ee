# SPDX-License-Identifier: MIT
"""hipfile.safetensors: files the `safetensors` package writes, and crafted ones, loaded with
framework="numpy" on whatever runtime the library picks and compared with the `safetensors`
package's own loader; bad files refused with a message naming the file and the problem. torch
tests (device="cpu", and CUDA on a GPU) skip where torch is missing."""

from __future__ import annotations

import json
import pathlib
import struct

import numpy as np
import pytest

import hipfile
import hipfile.safetensors as st
from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611

from conftest import device_to_numpy

ml_dtypes = pytest.importorskip("ml_dtypes")
sn = pytest.importorskip("safetensors.numpy")

RNG = np.random.default_rng(20)

# Every dtype NumPy and ml_dtypes make that safetensors.numpy writes and reads back.
SAVABLE = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.uint16,
    np.float16,
    np.int32,
    np.uint32,
    np.float32,
    np.float64,
    np.int64,
    np.uint64,
    np.complex64,
    ml_dtypes.bfloat16,
]
# safetensors.numpy neither writes nor reads these (it looks them up on numpy): crafted files,
# compared byte for byte.
FLOAT8 = {
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "F8_E8M0": "float8_e8m0fnu",
}
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (1, 1, 1, 1), (3, 5, 7), (33, 2)]


def random_array(dtype, shape) -> np.ndarray:
    dt = np.dtype(dtype)
    raw = RNG.integers(0, 256, size=int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    if dt == np.bool_:
        raw = raw & 1
    if dt.kind in "fc" or dt in (np.dtype(ml_dtypes.bfloat16),):
        # no NaNs: compare values as well as bytes
        return np.asarray(RNG.standard_normal(shape) * 100).astype(dt)
    return raw.view(dt).reshape(shape)


def craft(path: pathlib.Path, entries: dict, data: bytes, metadata=None, pad: int = 0) -> None:
    """A safetensors file from a header given entry by entry, in the order given."""
    header = dict(entries)
    if metadata is not None:
        header = {"__metadata__": metadata, **header}
    text = json.dumps(header).encode() + b" " * pad
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def raw_file(path: pathlib.Path, header: bytes, data: bytes = b"", length: int | None = None):
    path.write_bytes(struct.pack("<Q", len(header) if length is None else length) + header + data)


def assert_same(ours: dict, theirs: dict) -> None:
    assert list(sorted(ours)) == list(sorted(theirs))
    for name, ref in theirs.items():
        got = ours[name]
        assert got.dtype == ref.dtype, name
        assert got.shape == ref.shape, name
        assert got.tobytes() == ref.tobytes(), name


def assert_owned(arrays: dict) -> None:
    """Each array owns its memory, and writing one changes no other."""
    before = {k: a.tobytes() for k, a in arrays.items()}
    for a in arrays.values():
        assert a.base is None and a.flags.owndata and a.flags.writeable
    for name, a in arrays.items():
        if a.nbytes == 0:
            continue
        a.reshape(-1).view(np.uint8)[:] ^= 0xFF
        for other, b in arrays.items():
            if other != name:
                assert b.tobytes() == before[other], (name, other)
        a.reshape(-1).view(np.uint8)[:] ^= 0xFF


# ---- files the safetensors package writes -----------------------------------------------------


def test_every_savable_dtype_and_shape(tmp_path):
    tensors = {
        f"t{i}_{np.dtype(d).name}_{'x'.join(map(str, s)) or 'scalar'}": random_array(d, s)
        for i, (d, s) in enumerate((d, s) for d in SAVABLE for s in SHAPES)
    }
    path = tmp_path / "all.safetensors"
    sn.save_file(tensors, str(path), metadata={"format": "np", "note": "every dtype"})
    ours = st.load_file(path, framework="numpy")
    assert_same(ours, sn.load_file(str(path)))
    assert ours["t0_bool_scalar"].shape == ()
    assert ours[next(k for k in ours if k.endswith("bfloat16_3x5"))].dtype == ml_dtypes.bfloat16
    assert_owned(ours)
    header = st.read_header(path)
    assert header.metadata == {"format": "np", "note": "every dtype"}
    assert len(header.tensors) == len(tensors)
    for name, info in header.tensors.items():
        assert info.shape == tensors[name].shape
        assert info.nbytes == tensors[name].nbytes
        assert info.file_offset == header.data_start + info.data_offsets[0]


def test_many_small_tensors(tmp_path):
    tensors = {
        f"layer.{i}.w": random_array(SAVABLE[i % len(SAVABLE)], (i % 17,)) for i in range(3000)
    }
    tensors["big"] = random_array(np.float32, (1 << 20,))  # 4 MiB: read in one call
    path = tmp_path / "many.safetensors"
    sn.save_file(tensors, str(path))
    ours = st.load_file(path, framework="numpy")
    assert_same(ours, sn.load_file(str(path)))
    for a in ours.values():
        assert a.base is None and a.flags.owndata


def test_tensors_not_in_offset_order(tmp_path):
    a = random_array(np.float32, (4, 3))
    b = random_array(np.int16, (5,))
    c = random_array(ml_dtypes.bfloat16, (2, 2))
    # listed c, a, b; stored b, c, a
    data = b.tobytes() + c.tobytes() + a.tobytes()
    ob, oc = 0, b.nbytes
    oa = oc + c.nbytes
    entries = {
        "c": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [oc, oc + c.nbytes]},
        "a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [oa, oa + a.nbytes]},
        "b": {"dtype": "I16", "shape": [5], "data_offsets": [ob, ob + b.nbytes]},
    }
    path = tmp_path / "order.safetensors"
    craft(path, entries, data, metadata={"k": "v"}, pad=5)
    ours = st.load_file(path, framework="numpy")
    assert_same(ours, sn.load_file(str(path)))
    assert_same(ours, {"a": a, "b": b, "c": c})
    assert list(st.read_header(path).tensors) == ["b", "c", "a"]  # file order

    # Gaps between tensors and bytes after the last (which the safetensors package refuses) are
    # read around: they overlap nothing.
    gap = tmp_path / "gap.safetensors"
    entries["a"]["data_offsets"] = [oa + 6, oa + 6 + a.nbytes]
    craft(gap, entries, b.tobytes() + c.tobytes() + b"\0" * 6 + a.tobytes() + b"tail")
    assert_same(st.load_file(gap, framework="numpy"), {"a": a, "b": b, "c": c})


def test_float8_dtypes(tmp_path):
    entries, data = {}, b""
    for code in FLOAT8:
        raw = RNG.integers(0, 256, size=24, dtype=np.uint8).tobytes()
        entries[code] = {
            "dtype": code,
            "shape": [2, 3, 4],
            "data_offsets": [len(data), len(data) + 24],
        }
        data += raw
    path = tmp_path / "f8.safetensors"
    craft(path, entries, data)
    ours = st.load_file(path, framework="numpy")
    for code, name in FLOAT8.items():
        got = ours[code]
        assert got.dtype == np.dtype(getattr(ml_dtypes, name)), code
        assert got.shape == (2, 3, 4)
        b, e = entries[code]["data_offsets"]
        assert got.tobytes() == data[b:e]
    assert_owned(ours)


def test_float4_unpacks_low_nibble_first_and_float6_is_described(tmp_path):
    values = np.array([0.5, -1.0, 6.0, 0.0, 1.5, -6.0], dtype=ml_dtypes.float4_e2m1fn)
    codes = values.view(np.uint8)
    packed = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8).tobytes()
    entries = {
        "f4": {"dtype": "F4", "shape": [2, 3], "data_offsets": [0, 3]},
        "f6": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [3, 6]},
    }
    path = tmp_path / "f4.safetensors"
    craft(path, entries, packed + b"\1\2\3")
    header = st.read_header(path)
    assert header.tensors["f6"].dtype == "F6_E2M3" and header.tensors["f6"].nbytes == 3
    with pytest.raises(ValueError, match=r"'f6' is F6_E2M3.*filter="):
        st.load_file(path, framework="numpy")
    ours = st.load_file(path, framework="numpy", filter=["f4"])
    assert list(ours) == ["f4"]
    assert ours["f4"].dtype == ml_dtypes.float4_e2m1fn and ours["f4"].shape == (2, 3)
    assert ours["f4"].reshape(-1).tolist() == values.tolist()
    assert ours["f4"].base is None


def test_an_index_naming_files_elsewhere_is_refused(tmp_path):
    inside = tmp_path / "model"
    inside.mkdir()
    sn.save_file({"w": random_array(np.float32, (3,))}, str(tmp_path / "outside.safetensors"))
    index = inside / "model.safetensors.index.json"
    for shard in ("../outside.safetensors", str(tmp_path / "outside.safetensors"), "a/../../x",
                  ""):
        index.write_text(json.dumps({"weight_map": {"w": shard}}))
        with pytest.raises(ValueError, match="not a file beside the index"):
            st.load(index, framework="numpy")
    index.write_text(json.dumps({"weight_map": {"w": "sub/shard.safetensors"}}))
    (inside / "sub").mkdir()
    sn.save_file({"w": random_array(np.float32, (3,))}, str(inside / "sub" / "shard.safetensors"))
    assert list(st.load(index, framework="numpy")) == ["w"]  # below the index: fine


def test_sharded_checkpoint_with_index(tmp_path):
    shards, weight_map, everything = [], {}, {}
    for s in range(4):
        tensors = {
            f"s{s}.w{i}": random_array(SAVABLE[(s + i) % len(SAVABLE)], (i + 1, 3))
            for i in range(25)
        }
        tensors[f"s{s}.big"] = random_array(np.float32, (300, 1000))
        name = f"model-{s + 1:05d}-of-00004.safetensors"
        sn.save_file(tensors, str(tmp_path / name), metadata={"format": "np"})
        shards.append(tmp_path / name)
        weight_map.update({k: name for k in tensors})
        everything.update(tensors)
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map}))

    by_index = st.load(index, framework="numpy")
    assert_same(by_index, everything)
    assert_owned(by_index)
    assert_same(st.load(shards, framework="numpy"), everything)

    # a subset: by names and by callable; shards holding nothing wanted are not opened
    (tmp_path / "model-00004-of-00004.safetensors").write_bytes(b"not a safetensors file")
    subset = st.load(index, framework="numpy", filter=["s0.w3", "s2.big"])
    assert_same(subset, {k: everything[k] for k in ("s0.w3", "s2.big")})
    odd = st.load(index, framework="numpy", filter=lambda n: n.startswith("s1."))
    assert_same(odd, {k: v for k, v in everything.items() if k.startswith("s1.")})
    with pytest.raises(ValueError, match="model-00004-of-00004"):
        st.load(index, framework="numpy")
    with pytest.raises(KeyError, match="nope"):
        st.load(index, framework="numpy", filter=["s0.w1", "nope"])

    # an index naming a tensor its shard does not hold
    weight_map["ghost"] = "model-00001-of-00004.safetensors"
    index.write_text(json.dumps({"weight_map": weight_map}))
    with pytest.raises(ValueError, match="ghost"):
        st.load(index, framework="numpy", filter=lambda n: n.startswith("s0.") or n == "ghost")
    index.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        st.load(index, framework="numpy")


def test_a_name_in_two_shards_is_refused(tmp_path):
    sn.save_file({"a": np.zeros(2, np.float32)}, str(tmp_path / "1.safetensors"))
    sn.save_file({"a": np.ones(2, np.float32)}, str(tmp_path / "2.safetensors"))
    with pytest.raises(ValueError, match="'a' is in both"):
        st.load([tmp_path / "1.safetensors", tmp_path / "2.safetensors"], framework="numpy")


def test_arguments_are_checked(tmp_path):
    path = tmp_path / "a.safetensors"
    sn.save_file({"a": np.zeros(2, np.float32)}, str(path))
    with pytest.raises(ValueError, match="framework"):
        st.load_file(path, framework="jax")
    with pytest.raises(TypeError, match="filter"):
        st.load_file(path, framework="numpy", filter="a")
    assert st.load_file(path, framework="numpy", filter=lambda n: False) == {}
    with pytest.raises(FileNotFoundError):
        st.load_file(tmp_path / "missing.safetensors", framework="numpy")


def test_grouped_batch_path_reads_into_device_memory(tmp_path, device_buffer):
    """The path device tensors take (small ones through a Batch, in windows of 128; large ones
    as futures), on GPU memory from hipMalloc (host memory on the CPU runtime)."""
    sizes = [int(s) for s in RNG.integers(1, 300_000, size=300)] + [3 << 20]
    blob = RNG.integers(0, 256, size=sum(sizes), dtype=np.uint8)
    path = tmp_path / "blob.bin"
    path.write_bytes(blob.tobytes())
    reads, offset = [], 0
    with hipfile.open(path) as fh:
        for size in sizes:
            reads.append(
                st._Read(fh, device_buffer(size), size, offset, True, f"piece at {offset}")
            )
            offset += size
        st._read_all(reads)  # pylint: disable=protected-access
    for r in reads:
        assert np.array_equal(
            device_to_numpy(r.ptr, r.nbytes), blob[r.file_offset : r.file_offset + r.nbytes]
        )


# ---- slices (tensor-parallel shares) ------------------------------------------------------------


def _slice_case(tmp_path):
    tensors = {
        "emb": random_array(ml_dtypes.bfloat16, (300, 16)),  # column slices: 300 runs
        "qkv": random_array(np.float32, (12, 8)),
        "cube": random_array(np.int16, (4, 5, 6)),
        "bias": random_array(np.float32, (10,)),
        "s": random_array(np.int64, ()),
        "e": random_array(np.float16, (0, 4)),
    }
    path = tmp_path / "tp.safetensors"
    sn.save_file(tensors, str(path))
    return path, tensors


# (name, index, whether safetensors' get_slice takes it: it refuses negative and out-of-range
# bounds and slices of empty tensors, which NumPy's slicing, ours, takes)
SLICES = [
    ("qkv", slice(4, 8), True),  # rows: one run
    ("qkv", (slice(None), slice(2, 6)), True),  # columns: a run a row
    ("qkv", (slice(-3, None), slice(1, -1)), False),  # negative bounds
    ("emb", (slice(None), slice(8, 16)), True),  # more runs than MAX_RUNS: the rows, then a copy
    ("emb", (slice(100, 250), slice(0, 4)), True),
    ("cube", (slice(1, 3), slice(2, 4), slice(0, 6)), True),
    ("cube", (slice(None), slice(None), slice(3, 5)), True),
    ("cube", (slice(0, 4), slice(4, 5)), True),
    ("bias", slice(2, 7), True),
    ("bias", slice(7, 2), False),  # empty
    ("bias", slice(0, 100), False),  # past the end: clamped, the whole tensor
    ("e", (slice(None), slice(1, 3)), False),
    ("s", (), False),  # theirs gives a scalar shape (1,)
]

@pytest.mark.parametrize("name,index,theirs_too", SLICES, ids=[f"{n}{i}" for n, i, _ in SLICES])
def test_slices_read_only_their_share(tmp_path, name, index, theirs_too):
    from safetensors import safe_open  # pylint: disable=import-outside-toplevel

    path, tensors = _slice_case(tmp_path)
    ref = tensors[name][index].copy()  # C order; ascontiguousarray would make a scalar 1-D
    ours = st.load_file(path, framework="numpy", filter=[name], slices={name: index})[name]
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    assert ours.tobytes() == ref.tobytes()
    if theirs_too:
        with safe_open(str(path), framework="numpy") as f:
            theirs = f.get_slice(name)[index]
        assert theirs.shape == ours.shape and theirs.tobytes() == ours.tobytes()
    assert_owned({name: ours})


def test_slices_by_callable_with_unsliced_tensors_alongside(tmp_path):
    path, tensors = _slice_case(tmp_path)
    rank, world = 1, 3

    def rows(name, info):
        assert info.name == name
        if len(info.shape) != 2 or info.shape[0] % world:
            return None
        n = info.shape[0] // world
        return slice(rank * n, (rank + 1) * n)

    ours = st.load_file(path, framework="numpy", slices=rows)
    assert sorted(ours) == sorted(tensors)
    assert ours["emb"].tobytes() == tensors["emb"][100:200].tobytes()
    assert ours["qkv"].tobytes() == tensors["qkv"][4:8].tobytes()
    assert ours["cube"].tobytes() == tensors["cube"].tobytes()  # 3-D: whole
    assert ours["bias"].tobytes() == tensors["bias"].tobytes()
    assert_owned(ours)


@pytest.mark.parametrize(
    "index,message",
    [
        ((slice(0, 4, 2),), "has a step"),
        (3, "not an integer"),
        ((slice(None), 1), "not an integer"),
        ((slice(None), slice(None), slice(None)), "3 slices for a tensor of shape"),
    ],
)
def test_bad_slices_are_refused_before_anything_is_read(tmp_path, index, message):
    path, _ = _slice_case(tmp_path)
    with pytest.raises(ValueError, match=message):
        st.load_file(path, framework="numpy", slices={"qkv": index})


def test_slices_of_a_tensor_not_loaded_are_refused(tmp_path):
    path, _ = _slice_case(tmp_path)
    with pytest.raises(KeyError, match="nope"):
        st.load_file(path, framework="numpy", slices={"nope": slice(0, 1)})
    with pytest.raises(KeyError, match="qkv"):
        st.load_file(path, framework="numpy", filter=["bias"], slices={"qkv": slice(0, 1)})
    with pytest.raises(TypeError, match="slices"):
        st.load_file(path, framework="numpy", slices=[slice(0, 1)])


def test_float4_is_not_sliced(tmp_path):
    path = tmp_path / "f4.safetensors"
    craft(path, {"q": {"dtype": "F4", "shape": [4, 4], "data_offsets": [0, 8]}}, bytes(range(8)))
    with pytest.raises(ValueError, match="F4 packs two elements a byte"):
        st.load_file(path, framework="numpy", slices={"q": slice(0, 2)})


def test_torch_slices(tmp_path):
    torch = pytest.importorskip("torch")
    path, tensors = _slice_case(tmp_path)
    index = {"emb": (slice(None), slice(8, 16)), "qkv": slice(4, 8)}
    devices = ["cpu"]
    if torch.cuda.is_available() and hipfile.runtime()[0] == "cuda":
        devices.append("cuda:0")
    for device in devices:
        ours = st.load_file(path, device=device, slices=index)
        emb = ours["emb"].cpu().view(torch.int16).numpy()
        assert emb.tobytes() == np.ascontiguousarray(tensors["emb"][:, 8:16]).tobytes(), device
        assert ours["qkv"].cpu().numpy().tobytes() == tensors["qkv"][4:8].tobytes(), device
        assert ours["emb"].is_contiguous() and ours["emb"]._base is None  # pylint: disable=W0212


# ---- bad files --------------------------------------------------------------------------------

F32_2 = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}


def _entries(**over):
    e = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    e.update(over)
    return {"a": e}


BAD = {
    # name: (how the file is made, what the message says)
    "empty_file": (lambda p: p.write_bytes(b""), "too short"),
    "short_file": (lambda p: p.write_bytes(b"\x10\0\0"), "too short"),
    "header_length_past_end": (
        lambda p: raw_file(p, json.dumps(F32_2).encode(), b"\0" * 8, length=5000),
        "past the end of the file",
    ),
    "huge_header_length": (
        lambda p: raw_file(p, b"{}", length=(1 << 64) - 1),
        "over the limit",
    ),
    "header_one_past_the_limit": (
        lambda p: raw_file(p, b"{}", length=st.MAX_HEADER_BYTES + 1),
        "over the limit",
    ),
    "bad_json": (lambda p: raw_file(p, b'{"a": {"dtype": "F32",', b"\0" * 8), "not valid JSON"),
    "not_utf8": (lambda p: raw_file(p, b'{"\xff\xfe": 1}'), "not UTF-8"),
    "not_an_object": (lambda p: raw_file(p, b'["a", 1]'), "not a JSON object"),
    "entry_not_an_object": (lambda p: raw_file(p, b'{"a": 3}'), "'a': is not a JSON object"),
    "truncated_data": (lambda p: craft(p, F32_2, b"\0" * 5), "past the data region's 5 bytes"),
    "data_offsets_past_end": (
        lambda p: craft(p, _entries(data_offsets=[8, 16]), b"\0" * 8),
        "reach past the data region",
    ),
    "offsets_reversed": (
        lambda p: craft(p, _entries(data_offsets=[8, 0]), b"\0" * 8),
        "end before",
    ),
    "offsets_negative": (
        lambda p: craft(p, _entries(data_offsets=[-8, 0]), b"\0" * 8),
        "data_offsets",
    ),
    "offsets_missing": (
        lambda p: craft(p, {"a": {"dtype": "F32", "shape": [2]}}, b"\0" * 8),
        "data_offsets",
    ),
    "overlapping": (
        lambda p: craft(
            p,
            {
                "x": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]},
                "y": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
            },
            b"\0" * 16,
        ),
        "'y' .* and 'x' .* overlap",
    ),
    "size_mismatch": (lambda p: craft(p, _entries(shape=[3]), b"\0" * 8), "needs 12"),
    "unknown_dtype": (
        lambda p: craft(p, _entries(dtype="F128"), b"\0" * 8),
        "unknown dtype 'F128'",
    ),
    "dtype_not_a_string": (lambda p: craft(p, _entries(dtype=4), b"\0" * 8), "dtype"),
    "negative_shape": (lambda p: craft(p, _entries(shape=[-2]), b"\0" * 8), "not a non-negative"),
    "float_shape": (lambda p: craft(p, _entries(shape=[2.0]), b"\0" * 8), "not a non-negative"),
    "string_shape": (lambda p: craft(p, _entries(shape=["2"]), b"\0" * 8), "not a non-negative"),
    "shape_not_a_list": (lambda p: craft(p, _entries(shape=2), b"\0" * 8), "shape"),
    "shape_overflows": (
        lambda p: craft(p, _entries(shape=[1 << 32, 1 << 32, 2]), b"\0" * 8),
        "64 bits",
    ),
    "bytes_overflow": (lambda p: craft(p, _entries(shape=[1 << 62]), b"\0" * 8), "overflows"),
    "f4_half_byte": (
        lambda p: craft(p, _entries(dtype="F4", shape=[3], data_offsets=[0, 2]), b"\0" * 8),
        "byte boundary",
    ),
    "metadata_not_strings": (
        lambda p: craft(p, F32_2, b"\0" * 8, metadata={"n": 3}),
        "__metadata__",
    ),
    "repeated_name": (
        lambda p: raw_file(
            p,
            b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},'
            b' "a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}}',
            b"\0\0",
        ),
        "'a' appears twice",
    ),
    "deep_nesting": (lambda p: raw_file(p, b"[" * 100_000 + b"]" * 100_000), "nests deeper"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_are_refused_with_a_message(tmp_path, case):
    make, message = BAD[case]
    path = tmp_path / f"{case}.safetensors"
    make(path)
    for call in (
        lambda: st.read_header(path),
        lambda: st.load_file(path, framework="numpy"),
        lambda: st.load([path], framework="numpy"),
    ):
        with pytest.raises(ValueError, match=message) as e:
            call()
        assert str(path) in str(e.value)


def test_the_parser_takes_bytes():
    """The C++ parser without a file: the length's checks come before anything is allocated."""
    assert _c._st_header_length(struct.pack("<Q", 100), 108, "x") == 100
    with pytest.raises(ValueError, match="'x': header length 101 reaches past the end"):
        _c._st_header_length(struct.pack("<Q", 101), 108, "x")
    with pytest.raises(ValueError, match="too short"):
        _c._st_header_length(b"\1\2", 108, "x")
    text = json.dumps(
        {
            "b": {"dtype": "I8", "shape": [], "data_offsets": [4, 5]},
            "__metadata__": {"k": "v"},
            "a": {"dtype": "U16", "shape": [2], "data_offsets": [0, 4]},
            "e": {"dtype": "BOOL", "shape": [0, 9], "data_offsets": [4, 4]},
        }
    ).encode()
    data_start, tensors, metadata = _c._st_parse_header(text, 8 + len(text) + 5, "x")
    assert data_start == 8 + len(text)
    assert [t[0] for t in tensors] == ["a", "e", "b"]
    assert tensors[0] == ("a", "U16", (2,), 0, 4)
    assert tensors[2] == ("b", "I8", (), 4, 5)
    assert metadata == {"k": "v"}
    assert _c._st_parse_header(b"{}", 10, "x") == (10, [], None)
    with pytest.raises(ValueError, match="reach past the data region's 4 bytes"):
        _c._st_parse_header(text, 8 + len(text) + 4, "x")
    bits = {
        code: _c._st_dtype_bits(code) for code in ("F4", "F6_E3M2", "BOOL", "BF16", "C64", "U64")
    }
    assert bits == {"F4": 4, "F6_E3M2": 6, "BOOL": 8, "BF16": 16, "C64": 64, "U64": 64}
    assert _c._st_dtype_bits("F32 ") == 0


def test_header_of_200k_tensors_parses_in_linear_time():
    """Regression: nlohmann's callback parser made a header of n tensors cost O(n^2) (a 22 MB,
    200,000-tensor header took minutes); the SAX pass is linear (well under a second)."""
    import time  # pylint: disable=import-outside-toplevel

    n = 200_000
    text = json.dumps(
        {
            f"model.layers.{i}.w": {
                "dtype": "I32",
                "shape": [2],
                "data_offsets": [8 * i, 8 * i + 8],
            }
            for i in range(n)
        }
    ).encode()
    start = time.monotonic()
    _, tensors, _ = _c._st_parse_header(text, 8 + len(text) + 8 * n, "x")
    assert len(tensors) == n and tensors[-1][3] == 8 * (n - 1)
    assert time.monotonic() - start < 20


@pytest.mark.parametrize(
    "name, ok",
    [
        ("é".encode(), True),
        ("漢字".encode(), True),
        ("\U0001f600".encode(), True),
        (b"\xc0\xaf", False),  # overlong '/'
        (b"\xed\xa0\x80", False),  # a surrogate
        (b"\xf4\x90\x80\x80", False),  # past U+10FFFF
        (b"\xe6\xbc", False),  # cut short
        (b"\x80", False),
    ],
)
def test_names_are_utf8(name, ok):
    text = b'{"' + name + b'": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}'
    if ok:
        assert _c._st_parse_header(text, 8 + len(text) + 1, "x")[1][0][0] == name.decode()
    else:
        with pytest.raises(ValueError, match="not UTF-8"):
            _c._st_parse_header(text, 8 + len(text) + 1, "x")


# ---- torch ------------------------------------------------------------------------------------


def _torch_case(tmp_path):
    torch = pytest.importorskip("torch")
    tensors = {
        "w": random_array(np.float32, (300, 200)),
        "b": random_array(ml_dtypes.bfloat16, (7, 3)),
        "s": random_array(np.int64, ()),
        "e": random_array(np.float16, (0, 4)),
        "m": random_array(np.uint8, (2, 3)),
        "big": random_array(np.float32, (1024, 1024)),  # past 256 KiB: a pread, not the Batch
        **{f"small.{i}": random_array(np.int32, (i,)) for i in range(200)},
    }
    path = tmp_path / "t.safetensors"
    sn.save_file(tensors, str(path))
    return torch, path, tensors


def _check_torch(torch, ours, tensors, device):
    for name, ref in tensors.items():
        t = ours[name]
        assert t.device == torch.device(device)
        assert tuple(t.shape) == ref.shape
        host = t.cpu()
        if ref.dtype == ml_dtypes.bfloat16:
            assert t.dtype == torch.bfloat16
            assert host.view(torch.int16).numpy().tobytes() == ref.tobytes()
        else:
            assert host.numpy().dtype == ref.dtype and host.numpy().tobytes() == ref.tobytes()
        assert t._base is None  # pylint: disable=protected-access
    ptrs = [t.untyped_storage().data_ptr() for t in ours.values() if t.numel()]
    assert len(set(ptrs)) == len(ptrs)


def test_torch_cpu(tmp_path):
    torch, path, tensors = _torch_case(tmp_path)
    _check_torch(torch, st.load_file(path, device="cpu"), tensors, "cpu")


def test_torch_cuda(tmp_path):
    torch, path, tensors = _torch_case(tmp_path)
    if not torch.cuda.is_available() or hipfile.runtime()[0] != "cuda":
        pytest.skip("no CUDA device for torch and the library here")
    ours = st.load_file(path, device="cuda:0")
    _check_torch(torch, ours, tensors, "cuda:0")
    from safetensors.torch import load_file  # pylint: disable=import-outside-toplevel

    theirs = load_file(str(path), device="cuda:0")
    for name, t in theirs.items():
        assert ours[name].dtype == t.dtype and torch.equal(ours[name], t), name
