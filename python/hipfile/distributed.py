# SPDX-License-Identifier: MIT
"""Checkpoints loaded by several processes of a torch.distributed job (issue 20 item 3).

``hipfile.safetensors.load_distributed(paths, ...)`` under ``torchrun``: each rank reads the
shards it owns (assigned largest first to the least loaded rank), then every tensor is broadcast
from the rank that read it over the process group, so every rank returns the whole checkpoint
while its bytes were read from the file system once in total. With ``filter=`` each rank reads
only the tensors it needs (a rank's part of the model) and nothing is broadcast.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["load_distributed", "shard_owners"]


def shard_owners(sizes: list[int], world: int) -> list[int]:
    """The rank that reads each shard: largest shard first, each to the rank with the fewest
    bytes so far (ties: the lowest rank)."""
    load = [0] * world
    owners = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        r = min(range(world), key=lambda r: (load[r], r))
        owners[i] = r
        load[r] += sizes[i]
    return owners


def _default_device(dist: Any, torch: Any, group: Any) -> Any:
    if dist.get_backend(group) == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def load_distributed(
    paths: Any,
    device: Any = None,
    *,
    group: Any = None,
    filter: Callable[[str], bool] | Iterable[str] | None = None,  # pylint: disable=W0622
    slices: Any = None,
    broadcast: bool = True,
) -> dict[str, Any]:
    """A (sharded) safetensors checkpoint on every rank of ``group`` (the default group when
    ``None``), as torch tensors on ``device`` (default: this rank's GPU with NCCL, the CPU with
    gloo).

    - ``filter=None, broadcast=True``: each rank reads its shards and receives the others'
      tensors over the group; every rank returns every tensor, and the checkpoint's bytes are read
      once in total.
    - ``broadcast=False``: each rank returns the tensors of its own shards only.
    - ``filter=``: each rank reads the tensors it selects (a callable on the name, or names), from
      whichever shard holds them, and returns those; nothing is broadcast.
    - ``slices=``: each rank reads its share of the tensors (tensor parallelism: a mapping of
      names to slices, or a callable on (name, ``TensorInfo``), as in ``load``), with ``filter``
      or every tensor, and returns those; nothing is broadcast. For example, rank r of w loading
      the rows of every weight matrix it owns::

          def rows(name, info):
              if len(info.shape) != 2 or info.shape[0] % w:
                  return None  # whole
              n = info.shape[0] // w
              return slice(r * n, (r + 1) * n)

    torch.distributed must be initialised. ``ValueError`` for a bad file, as ``load``."""
    import torch  # pylint: disable=import-outside-toplevel
    import torch.distributed as dist  # pylint: disable=import-outside-toplevel

    from hipfile import safetensors as st  # pylint: disable=import-outside-toplevel

    if not dist.is_available() or not dist.is_initialized():
        raise ValueError(
            "hipfile.safetensors.load_distributed: torch.distributed is not initialised "
            "(call torch.distributed.init_process_group first, or use load())"
        )
    if device is None:
        device = _default_device(dist, torch, group)
    if filter is not None or slices is not None:
        return st.load(paths, device=device, framework="torch", filter=filter, slices=slices)

    rank = dist.get_rank(group)
    world = dist.get_world_size(group)
    shards, _ = st._shard_paths(paths)  # pylint: disable=protected-access
    owners = shard_owners([os.stat(p).st_size for p in shards], world)
    mine = [p for p, o in zip(shards, owners) if o == rank]
    own = st.load(mine, device=device, framework="torch") if mine else {}
    if not broadcast:
        return own

    out: dict[str, Any] = {}
    allocate = st._torch_allocator(device)  # pylint: disable=protected-access
    for shard, owner in zip(shards, owners):
        header = st.read_header(shard)  # every rank knows every tensor's dtype and shape
        src = owner if group is None else dist.get_global_rank(group, owner)
        for name, info in header.tensors.items():
            if owner == rank:
                tensor = own[name]
            else:
                tensor, _, _ = allocate(shard, info)
            if tensor.numel() > 0:
                # As bytes: every dtype goes over every backend (gloo has no float8).
                dist.broadcast(tensor.reshape(-1).view(torch.uint8), src=src, group=group)
            out[name] = tensor
    return out
