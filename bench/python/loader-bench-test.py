#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loader benchmark's parts that need no GPU nor torch (CTest bench.loader-bench):
make-checkpoint.py's files against its plan and the `safetensors` package, loader-bench.py's
lines, checksums and failures, and run_loader_h200.sh's rows and table on the CPU loader.

    loader-bench-test.py WORK    (with NumPy, safetensors and ml_dtypes importable)

Prints "FAIL: ..." for each failed check and "OK  loader-bench" when all pass.
"""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

import ml_dtypes  # noqa: F401 - lets safetensors.numpy name bfloat16
import numpy as np
from safetensors.numpy import load_file

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(HERE, "make-checkpoint.py")
BENCH = os.path.join(HERE, "loader-bench.py")
RUN = os.path.join(os.path.dirname(HERE), "run_loader_h200.sh")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)


def run(args, env=None):
    p = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def make(out, *flags):
    rc, so, se = run([MAKE, out] + list(flags))
    check(rc == 0, f"make-checkpoint.py {out} {flags}: exit {rc}: {se[-500:]}")
    return json.loads(so.strip().splitlines()[-1]) if rc == 0 else {}


def file_digest(folder):
    h = hashlib.sha256()
    for p in sorted(glob.glob(os.path.join(folder, "*"))):
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + f.read())
    return h.hexdigest()


def test_checkpoint(work):
    out = os.path.join(work, "ckpt")
    info = make(out, "--gb", "0.03", "--shards", "3")
    index = json.load(open(os.path.join(out, "model.safetensors.index.json")))
    shards = sorted(glob.glob(os.path.join(out, "*.safetensors")))
    check(info.get("files") == 3 and len(shards) == 3,
          f"3 shards asked, {len(shards)} written, {info.get('files')} reported")
    check([os.path.basename(p) for p in shards] ==
          [f"model-{i:05d}-of-00003.safetensors" for i in (1, 2, 3)], f"shard names {shards}")
    tensors = {}
    for p in shards:
        got = load_file(p)
        for name in got:
            check(index["weight_map"].get(name) == os.path.basename(p),
                  f"index places {name} in {index['weight_map'].get(name)}, not {p}")
        tensors.update(got)
    check(set(tensors) == set(index["weight_map"]), "index and shards name different tensors")
    check(len(tensors) == info.get("tensors"),
          f"{len(tensors)} tensors, {info.get('tensors')} reported")
    total = sum(t.nbytes for t in tensors.values())
    check(total == index["metadata"]["total_size"] == info.get("bytes"),
          f"total_size {index['metadata']['total_size']}, tensors {total}, "
          f"reported {info.get('bytes')}")
    check(abs(total - 0.03e9) < 0.015e9, f"{total} bytes for --gb 0.03")
    check(all(t.dtype == ml_dtypes.bfloat16 for t in tensors.values()), "a tensor is not bf16")
    c = info.get("config", {})
    h, inter = c.get("hidden"), c.get("intermediate")
    vocab, layers = c.get("vocab"), c.get("layers")
    kv = c.get("kv_heads", 0) * h // c.get("heads", 1) if h else 0
    want = {"model.embed_tokens.weight": (vocab, h), "lm_head.weight": (vocab, h),
            "model.norm.weight": (h,)}
    for i in range(layers or 0):
        p = f"model.layers.{i}."
        want.update({p + "self_attn.q_proj.weight": (h, h), p + "self_attn.k_proj.weight": (kv, h),
                     p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, h),
                     p + "self_attn.q_proj.bias": (h,), p + "self_attn.k_proj.bias": (kv,),
                     p + "self_attn.v_proj.bias": (kv,), p + "mlp.gate_proj.weight": (inter, h),
                     p + "mlp.up_proj.weight": (inter, h), p + "mlp.down_proj.weight": (h, inter),
                     p + "input_layernorm.weight": (h,),
                     p + "post_attention_layernorm.weight": (h,)})
    got = {n: tuple(t.shape) for n, t in tensors.items()}
    wrong = [(n, got.get(n), want.get(n)) for n in sorted(set(got) | set(want))
             if got.get(n) != want.get(n)]
    check(not wrong, f"shapes differ from the model's (name, written, expected): {wrong[:3]}")
    vals = tensors["model.layers.0.mlp.up_proj.weight"].astype(np.float32)
    check(abs(float(vals.std()) - 0.02) < 0.002 and abs(float(vals.mean())) < 0.002,
          f"values not normal(0, 0.02): mean {vals.mean()}, std {vals.std()}")
    q0, q1 = (tensors[f"model.layers.{i}.self_attn.q_proj.weight"] for i in (0, 1))
    check(q0.tobytes() != q1.tobytes(), "two tensors of one shape hold the same bytes")
    again = os.path.join(work, "ckpt-again")
    make(again, "--gb", "0.03", "--shards", "3", "-j", "1")
    check(file_digest(out) == file_digest(again), "the same flags made different files")
    f32 = make(os.path.join(work, "ckpt-f32"), "--gb", "0.01", "--shards", "2", "--dtype", "f32")
    one = load_file(sorted(glob.glob(os.path.join(work, "ckpt-f32", "*.safetensors")))[0])
    check(f32.get("dtype") == "f32" and all(t.dtype == np.float32 for t in one.values()),
          "--dtype f32 did not write float32")
    rc, _, se = run([MAKE, os.path.join(work, "never"), "--shards", "0"])
    check(rc == 2 and "--shards" in se and not os.path.exists(os.path.join(work, "never")),
          f"--shards 0: exit {rc}, {se!r}")
    return out


def bench(args):
    rc, so, se = run([BENCH] + args)
    lines = [l for l in so.splitlines() if l.strip()]
    check(len(lines) == 1,
          f"loader-bench.py {args}: {len(lines)} lines on stdout: {so!r} {se[-300:]!r}")
    return rc, (json.loads(lines[-1]) if lines else {})


def test_bench(work, ckpt):
    ref = os.path.join(work, "ref.json")
    rc, r = bench(["--loader", "safetensors-numpy", ckpt, "--save-checksums", ref])
    check(rc == 0 and r.get("ok") is True, f"safetensors-numpy: {r}")
    index = json.load(open(os.path.join(ckpt, "model.safetensors.index.json")))
    check(r.get("tensors") == len(index["weight_map"]) and
          r.get("bytes") == index["metadata"]["total_size"] and r.get("files") == 3,
          f"counts in {r}")
    for key in ("seconds", "gb_s", "gib_s", "cpu_cores", "host_peak_rss_gib", "checksum"):
        check(r.get(key) is not None, f"no {key} in {r}")
    check(r.get("cached_before") is not None, f"no page-cache share in {r}")
    per = json.load(open(ref))
    lm_head = load_file(os.path.join(ckpt, index["weight_map"]["lm_head.weight"]))["lm_head.weight"]
    check(len(per) == r.get("tensors") and
          per["lm_head.weight"][:2] == ["BF16", list(lm_head.shape)],
          f"per-tensor checksums: {per.get('lm_head.weight')}")
    rc, r2 = bench(["--loader", "safetensors-numpy", ckpt, "--check", ref])
    check(r2.get("check") == "equal" and r2.get("checksum") == r.get("checksum"),
          f"a second load: {r2.get('check')}, {r2.get('checksum')} vs {r.get('checksum')}")
    # One flipped bit in a copy: the tensor that holds it is named.
    bad = os.path.join(work, "ckpt-bad")
    shutil.copytree(ckpt, bad)
    victim = os.path.join(bad, "model-00002-of-00003.safetensors")
    with open(victim, "r+b") as f:
        f.seek(-4097, 2)
        b = f.read(1)
        f.seek(-4097, 2)
        f.write(bytes([b[0] ^ 0x10]))
    rc, r3 = bench(["--loader", "safetensors-numpy", bad, "--check", ref])
    check(str(r3.get("check", "")).startswith("differs: 1 of ") and
          r3.get("checksum") != r.get("checksum"), f"a flipped bit: {r3.get('check')}")
    # Words swapped inside a tensor keep the plain sum and must still show.
    words = np.arange(16, dtype=np.int64)
    sys.path.insert(0, HERE)
    sys.dont_write_bytecode = True  # no __pycache__ in the tree
    lb = __import__("loader-bench")
    s1 = lb.numpy_sums({"a": words})["a"]
    s2 = lb.numpy_sums({"a": words[::-1].copy()})["a"]
    check(s1[0] == s2[0] and s1[1] != s2[1], f"swapped words: {s1} {s2}")
    check(lb.numpy_sums({"a": np.zeros(0, np.uint8)})["a"] == (0, 0), "an empty tensor")
    odd = np.arange(11, dtype=np.uint8)  # 8 bytes and a padded tail of 3
    check(lb.numpy_sums({"a": odd})["a"][0] ==
          (int.from_bytes(bytes(range(8)), "little") + int.from_bytes(bytes([8, 9, 10]), "little")),
          "a tensor of 11 bytes")
    # A loader that is not installed (no torch here): its line says so; exit 1.
    rc, r4 = bench(["--loader", "fastsafetensors", ckpt])
    check(rc == 1 and r4.get("ok") is False and "No module named" in r4.get("error", ""),
          f"a missing loader: exit {rc}, {r4}")
    for args, msg in ((["--loader", "hipfile"], "needs CHECKPOINT_DIR"),
                      (["--loader", "bogus", ckpt], "invalid choice"),
                      (["--loader", "hipfile", os.path.join(work, "none")], "not a folder"),
                      (["--loader", "hipfile", ckpt, "--device", "cpu"], "a CUDA device")):
        rc, so, se = run([BENCH] + args)
        check(rc == 2 and msg in se and not so, f"{args}: exit {rc}, {se[-200:]!r}")


def test_run_script(work, ckpt):
    out = os.path.join(work, "run")
    env = dict(os.environ, LOADERS="safetensors-numpy", CACHES="warm", REPS="2", CKPT=ckpt,
               PYTHON=sys.executable)
    # A call whose budget is spent starts no row; the next does them all; a third finds every
    # row done and only summarises.
    for attempt, budget in ((1, "-1"), (2, "480"), (3, "480")):
        p = subprocess.run(["bash", RUN, out], capture_output=True, text=True,
                           env=dict(env, BUDGET_S=budget))
        check(p.returncode == 0, f"run_loader_h200.sh (call {attempt}): exit {p.returncode}: "
                                 f"{p.stderr[-500:]}")
        rows = open(os.path.join(out, "results.jsonl")).read().count("\n")
        check(rows == (0, 4, 4)[attempt - 1], f"call {attempt}: {rows} rows in results.jsonl")
        check((attempt == 1) == ("budget of -1 s spent" in p.stdout),
              f"call {attempt} said: {p.stdout[-300:]!r}")
    rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl"))]
    cases = sorted((r["case"], r["cache"], r["rep"]) for r in rows)
    check(cases == [("link", "warm", 1), ("link", "warm", 2), ("safetensors-numpy", "warm", 1),
                    ("safetensors-numpy", "warm", 2)], f"rows {cases}")
    md = open(os.path.join(out, "results.md")).read()
    check("| safetensors-numpy | warm | " in md and "| reference |" in md, f"results.md:\n{md}")


def main(argv):
    work = os.path.abspath(argv[0])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ckpt = test_checkpoint(work)
    test_bench(work, ckpt)
    test_run_script(work, ckpt)
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print("OK  loader-bench")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
