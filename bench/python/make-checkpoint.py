#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-checkpoint: a generated transformer checkpoint in safetensors shards (issue 20 item 4).

    make-checkpoint.py OUT_DIR [--gb N] [--shards K] [--dtype bf16|f16|f32] [--seed S] [-j JOBS]

Writes K files model-0000i-of-0000K.safetensors and model.safetensors.index.json (the Hugging
Face layout: "metadata": {"total_size"}, "weight_map": {tensor: file}) holding a decoder-only
transformer of about N decimal GB: the embedding, per layer the q/k/v projections with their
biases, o, the MLP's gate/up/down and two norms, the final norm and lm_head, with the shapes of
a real model of that size (the largest of the presets below that fits four layers; the layer
count fills the rest). Nothing is downloaded.

Values are normal(0, 0.02) in the dtype, deterministic in --seed: one block of 1048573 values
(a prime, so rows do not line up with it) is drawn once and each tensor is that block repeated
from its own starting point, so no two tensors are alike and filling 32 GB costs copies, not
random draws. The shards are written with the `safetensors` package: from NumPy (bf16 as
ml_dtypes.bfloat16), or from torch CPU tensors where ml_dtypes is missing; the bytes are the
same either way. Prints one JSON line: the files, total bytes and tensor count.
"""

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

# (hidden, intermediate, heads, kv_heads, vocab): Llama/Qwen-like proportions at each size.
PRESETS = [
    (256, 768, 4, 2, 4096),
    (512, 1536, 8, 2, 8192),
    (1024, 2816, 16, 4, 32000),
    (2048, 5632, 16, 4, 32000),
    (4096, 14336, 32, 8, 128256),
    (8192, 28672, 64, 8, 128256),
]
ITEMSIZE = {"bf16": 2, "f16": 2, "f32": 4}
BLOCK_VALUES = 1048573


def layer_tensors(i, h, inter, heads, kv_heads):
    hd = h // heads
    kv = kv_heads * hd
    p = f"model.layers.{i}."
    return [
        (p + "input_layernorm.weight", (h,)),
        (p + "self_attn.q_proj.weight", (h, h)),
        (p + "self_attn.q_proj.bias", (h,)),
        (p + "self_attn.k_proj.weight", (kv, h)),
        (p + "self_attn.k_proj.bias", (kv,)),
        (p + "self_attn.v_proj.weight", (kv, h)),
        (p + "self_attn.v_proj.bias", (kv,)),
        (p + "self_attn.o_proj.weight", (h, h)),
        (p + "post_attention_layernorm.weight", (h,)),
        (p + "mlp.gate_proj.weight", (inter, h)),
        (p + "mlp.up_proj.weight", (inter, h)),
        (p + "mlp.down_proj.weight", (h, inter)),
    ]


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def plan_model(target_bytes, itemsize):
    """[(name, shape)] in file order: the largest preset whose embedding, lm_head and four
    layers fit in target_bytes (else the smallest), with as many layers as come nearest it."""
    def sizes(p):
        h, inter, heads, kv_heads, vocab = p
        ends = 2 * vocab * h + h
        layer = sum(numel(s) for _, s in layer_tensors(0, h, inter, heads, kv_heads))
        return ends * itemsize, layer * itemsize
    preset = PRESETS[0]
    for p in PRESETS:
        ends, layer = sizes(p)
        if ends + 4 * layer <= target_bytes:
            preset = p
    h, inter, heads, kv_heads, vocab = preset
    ends, layer = sizes(preset)
    layers = max(1, round((target_bytes - ends) / layer))
    out = [("model.embed_tokens.weight", (vocab, h))]
    for i in range(layers):
        out += layer_tensors(i, h, inter, heads, kv_heads)
    out += [("model.norm.weight", (h,)), ("lm_head.weight", (vocab, h))]
    return out, {"hidden": h, "intermediate": inter, "heads": heads, "kv_heads": kv_heads,
                 "vocab": vocab, "layers": layers}


def plan_shards(tensors, itemsize, shards):
    """Tensors (in order) cut into `shards` runs (fewer only if there are fewer tensors) whose
    largest is as small as it can be: the smallest cap at which filling each file up to the cap
    needs at most `shards` files, then the largest runs split until there are `shards`."""
    sizes = [numel(s) * itemsize for _, s in tensors]

    def pack(cap):
        groups, cur, used = [], [], 0
        for i, n in enumerate(sizes):
            if cur and used + n > cap:
                groups.append(cur)
                cur, used = [], 0
            cur.append(i)
            used += n
        return groups + ([cur] if cur else [])

    lo, hi = max(sizes, default=0), max(1, sum(sizes))
    while lo < hi:
        mid = (lo + hi) // 2
        if len(pack(mid)) <= shards:
            hi = mid
        else:
            lo = mid + 1
    groups = pack(lo)
    while len(groups) < min(shards, len(sizes)):
        k = max((g for g in range(len(groups)) if len(groups[g]) > 1),
                key=lambda g: sum(sizes[i] for i in groups[g]))
        g, half, used = groups[k], sum(sizes[i] for i in groups[k]) / 2, 0
        cut = 1
        while cut < len(g) - 1 and used + sizes[g[cut - 1]] < half:
            used += sizes[g[cut - 1]]
            cut += 1
        groups[k:k + 1] = [g[:cut], g[cut:]]
    return [[tensors[i] for i in g] for g in groups]


def block_bytes(dtype, seed):
    """The repeated block: BLOCK_VALUES values of normal(0, 0.02) in `dtype`, as raw bytes
    (bf16 rounded from float32 to nearest even by integer arithmetic: no ml_dtypes needed)."""
    import numpy as np

    vals = np.random.default_rng(seed).standard_normal(BLOCK_VALUES, dtype=np.float32) * 0.02
    if dtype == "f32":
        return vals.view(np.uint8)
    if dtype == "f16":
        return vals.astype(np.float16).view(np.uint8)
    bits = vals.view(np.uint32)
    bf16 = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return bf16.view(np.uint8)


def fill(block, index, nbytes, itemsize):
    """nbytes of the block repeated, starting at a value of its own for tensor `index`."""
    import numpy as np

    start = (index * 7919 % BLOCK_VALUES) * itemsize
    rotated = np.concatenate((block[start:], block[:start]))
    return np.resize(rotated, nbytes)


def write_shard(job):
    path, entries, dtype, seed = job
    import numpy as np

    itemsize = ITEMSIZE[dtype]
    block = block_bytes(dtype, seed)
    raw = {name: fill(block, idx, numel(shape) * itemsize, itemsize).reshape(-1)
           for idx, name, shape in entries}
    shapes = {name: shape for _, name, shape in entries}
    tmp = path + ".partial"
    try:
        import ml_dtypes
        from safetensors.numpy import save_file

        np_dtype = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}[dtype]
        save_file({n: raw[n].view(np_dtype).reshape(shapes[n]) for n in raw}, tmp,
                  metadata={"format": "pt"})
    except ImportError:
        import torch
        from safetensors.torch import save_file

        t_dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype]
        save_file({n: torch.from_numpy(raw[n]).view(t_dtype).reshape(shapes[n]) for n in raw},
                  tmp, metadata={"format": "pt"})
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return os.path.getsize(path)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--gb", type=float, default=32.0, help="about this many decimal GB (32)")
    p.add_argument("--shards", type=int, default=16, help="files (16)")
    p.add_argument("--dtype", choices=sorted(ITEMSIZE), default="bf16")
    p.add_argument("--seed", type=int, default=20)
    p.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1),
                   help="shards written at once (min(8, cores))")
    a = p.parse_args(argv)
    if a.gb <= 0 or a.shards < 1 or a.jobs < 1:
        p.error("--gb must be more than 0, --shards and --jobs at least 1")
    return a


def main(argv):
    a = parse_args(argv)
    itemsize = ITEMSIZE[a.dtype]
    tensors, config = plan_model(int(a.gb * 1e9), itemsize)
    groups = plan_shards(tensors, itemsize, a.shards)
    os.makedirs(a.out_dir, exist_ok=True)
    names = [f"model-{i + 1:05d}-of-{len(groups):05d}.safetensors" for i in range(len(groups))]
    order = {name: i for i, (name, _) in enumerate(tensors)}
    jobs = [(os.path.join(a.out_dir, f), [(order[n], n, s) for n, s in g], a.dtype, a.seed)
            for f, g in zip(names, groups)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=min(a.jobs, len(jobs))) as pool:
        file_bytes = list(pool.map(write_shard, jobs))
    total = sum(numel(s) for _, s in tensors) * itemsize
    index = {"metadata": {"total_size": total},
             "weight_map": {n: f for f, g in zip(names, groups) for n, _ in g}}
    with open(os.path.join(a.out_dir, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
    print(json.dumps({"dir": a.out_dir, "files": len(names), "tensors": len(tensors),
                      "bytes": total, "file_bytes": sum(file_bytes), "dtype": a.dtype,
                      "config": config, "seconds": round(time.perf_counter() - t0, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
