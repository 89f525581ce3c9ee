#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check-tables.py JSON EXPECT RUNTIME: the "gpus" and "latency" of a hipfile-stats --json object
# for known-io (tools/hipfile-stats/tests/known-io.cpp) hold what it did. Its transfers: reads of
# 8 x 4 KiB, 1 MiB, 4 x 64 KiB (a batch) and 256 KiB (stream-ordered); writes of 2 x 1 MiB
# (aligned) and 5000 bytes (unaligned). Checked: each lands in ais-stats' size bucket
# (min(15, bit_length(bytes >> 12))) of GPU 0; summed over GPUs and backends the tables are the
# totals; the latency buckets add up to the transfers; the backend of each transfer on RUNTIME
# (cpu: host memory, all Fastpath; cpu-staged: a GPU's paths); a uuid is published.
# Exits 1 with one line per difference; prints "check-tables: ok" when all hold.
import json
import sys

report = json.loads(open(sys.argv[1]).read())
expect = dict(kv.split("=") for kv in open(sys.argv[2]).readline().split())
runtime = sys.argv[3]
problems = []


def check(what, got, want):
    if got != want:
        problems.append(f"{what}: {got}, expected {want}")


gpus = report["gpus"]
check("GPUs in use", [g["gpu"] for g in gpus], [0])
g0 = gpus[0] if gpus else {}
check("uuid published", g0.get("uuid", "0").strip("0-") != "", True)
for direction in ("read", "write"):
    mine = [g[f"{b}_{direction}"] for g in gpus for b in ("fastpath", "fallback")]
    check(f"{direction} transfers in the tables", sum(sum(t["count"]) for t in mine),
          int(expect[f"{direction}_ops"]))
    check(f"{direction} bytes in the tables", sum(sum(t["bytes"]) for t in mine),
          int(expect[f"{direction}_bytes"]))
    check(f"{direction} errors", sum(sum(t["errors"]) for t in mine), 0)
    check(f"{direction} latency buckets", sum(report["latency"][f"{direction}_us_hist"]),
          report[f"{direction}_ops"])


def bucket_counts(name):
    both = [g0[f"fastpath_{name}"], g0[f"fallback_{name}"]]
    return [sum(t["count"][i] for t in both) for i in range(16)]


reads = [0] * 16
reads[1], reads[5], reads[7], reads[9] = 8, 4, 1, 1  # 4-8, 64-128, 256-512, 1024-2048 KiB
writes = [0] * 16
writes[1], writes[9] = 1, 2  # 5000 bytes; 1 MiB
if g0:
    check("read size buckets", bucket_counts("read"), reads)
    check("write size buckets", bucket_counts("write"), writes)
    if runtime == "cpu":  # host memory: every transfer Fastpath
        check("fallback transfers",
              sum(sum(g0[f"fallback_{d}"]["count"]) for d in ("read", "write")), 0)
        check("fastpath unaligned writes", g0["fastpath_write"]["unaligned"], 1)
    else:  # a GPU's paths: aligned 1 MiB writes by O_DIRECT, small reads and the unaligned write
        # buffered (Fallback)
        check("fastpath 1 MiB writes", g0["fastpath_write"]["count"][9], 2)
        check("fallback 5000-byte write", g0["fallback_write"]["count"][1], 1)
        check("fallback unaligned writes", g0["fallback_write"]["unaligned"], 1)
        check("fallback 4 KiB reads", g0["fallback_read"]["count"][1], 8)
for p in problems:
    print("check-tables:", p)
if problems:
    sys.exit(1)
print("check-tables: ok")
