# SPDX-License-Identifier: MIT
"""load_distributed under torch.distributed: 4 processes with the gloo backend (CPU tensors),
each reading its shards once, every rank ending with the whole checkpoint. Needs torch (skipped,
with the reason, where it is not installed - CI keeps torch out) and the safetensors package."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

from hipfile.distributed import shard_owners

WORLD = 4


def test_shard_owners_balance_bytes():
    assert shard_owners([10, 10, 10, 10], 4) == [0, 1, 2, 3]
    assert shard_owners([100, 1, 1, 1, 1], 2) == [0, 1, 1, 1, 1]
    owners = shard_owners([5, 9, 3, 7, 1, 8], 3)
    load = [0, 0, 0]
    for size, o in zip([5, 9, 3, 7, 1, 8], owners):
        load[o] += size
    assert max(load) - min(load) <= 3
    assert shard_owners([1, 2], 4) == [1, 0]


def _make_checkpoint(directory: pathlib.Path) -> list[str]:
    st_numpy = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(11)
    paths = []
    k = 0
    for s in range(6):
        tensors = {}
        for _ in range(5 + s):
            shape = tuple(int(x) for x in rng.integers(1, 40, size=int(rng.integers(0, 3))))
            dtype = [np.float32, np.int64, np.uint8, np.float16][k % 4]
            tensors[f"layer{k}.weight"] = rng.standard_normal(shape).astype(dtype)
            k += 1
        tensors[f"empty{s}"] = np.zeros((0, 3), np.float32)
        path = directory / f"model-{s:05d}-of-00006.safetensors"
        st_numpy.save_file(tensors, str(path))
        paths.append(str(path))
    return paths


def _worker(rank: int, paths: list[str], rendezvous: str, results: str) -> None:
    import torch
    import torch.distributed as dist

    import hipfile
    import hipfile.safetensors as hst
    from safetensors.torch import load_file

    dist.init_process_group("gloo", init_method=f"file://{rendezvous}", rank=rank,
                            world_size=WORLD)
    try:
        expected = {}
        for p in paths:
            expected.update(load_file(p))
        before = hipfile.stats()["read_bytes"]
        got = hst.load_distributed(paths)
        read = hipfile.stats()["read_bytes"] - before
        assert set(got) == set(expected), sorted(set(got) ^ set(expected))
        for name, t in expected.items():
            assert got[name].dtype == t.dtype and got[name].shape == t.shape, name
            assert torch.equal(got[name], t), name
        reads = [0] * WORLD
        dist.all_gather_object(reads, read)
        # Every tensor byte was read once in total, by one rank.
        data = sum(t.numel() * t.element_size() for t in expected.values())
        assert sum(reads) == data, (reads, data)
        # A rank's part only: names it selects, nothing broadcast.
        names = sorted(expected)
        part = hst.load_distributed(paths, filter=lambda n: names.index(n) % WORLD == rank)
        assert sorted(part) == [n for i, n in enumerate(names) if i % WORLD == rank]
        # Tensor parallelism: each rank its rows of every tensor of two or more dimensions;
        # the rows of all ranks make up the tensor, and each rank read only its share.
        def rows(_name, info):
            if len(info.shape) < 2:
                return None
            n = -(-info.shape[0] // WORLD)
            return slice(rank * n, (rank + 1) * n)

        before = hipfile.stats()["read_bytes"]
        share = hst.load_distributed(paths, slices=rows)
        read = hipfile.stats()["read_bytes"] - before
        shares = [None] * WORLD
        dist.all_gather_object(shares, {k: v.cpu() for k, v in share.items()})
        for name, t in expected.items():
            if t.dim() >= 2:
                assert torch.equal(torch.cat([s[name] for s in shares]), t), name
        mine = sum(
            v.numel() * v.element_size() for k, v in share.items() if expected[k].dim() >= 2
        )
        whole = sum(v.numel() * v.element_size() for k, v in share.items() if expected[k].dim() < 2)
        assert read == mine + whole, (read, mine, whole)
        own = hst.load_distributed(paths, broadcast=False)
        counts = [0] * WORLD
        dist.all_gather_object(counts, len(own))
        assert sum(counts) == len(expected)
        with open(os.path.join(results, f"ok{rank}"), "w", encoding="utf-8") as f:
            f.write("ok")
    finally:
        dist.destroy_process_group()


def test_four_ranks_read_each_byte_once(tmp_path):
    torch = pytest.importorskip("torch", reason="torch is not installed (CI keeps it out)")
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("this torch has no gloo backend")
    paths = _make_checkpoint(tmp_path)
    results = tmp_path / "results"
    results.mkdir()
    mp.spawn(_worker, args=(paths, str(tmp_path / "rendezvous"), str(results)), nprocs=WORLD,
             join=True)
    assert sorted(os.listdir(results)) == [f"ok{r}" for r in range(WORLD)]
    del torch


def test_refused_without_a_process_group(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed (CI keeps it out)")
    import hipfile.safetensors as hst

    paths = _make_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="not initialised"):
        hst.load_distributed(paths)
