#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One line of a probe script's table from a hipfile-bench --json line: name, GiB/s, IOPS, p50,
cores, the -x 5 stage means (us) when there are any, the bytes by path, and how many of the
run's waits for the library's copies slept past the spin (where it waited for any).

    json-row.py NAME JSON_LINE
"""
import json
import sys

name, d = sys.argv[1], json.loads(sys.argv[2])
stages = {k: round(v["mean_us"]) for k, v in d.get("async_stages", {}).items()}
waits = d.get("copy_waits", {})
slept = f'slept {waits["slept"]}/{waits["waits"]} ' if waits.get("waits") else ""
print(f'{name:28s} {d["throughput_gib_s"]:7.3f} GiB/s {d["iops"]:9.0f} IOPS '
      f'p50 {d["p50_latency_us"]:8.1f} us cores {d.get("cpu_cores", 0):5.2f} {slept}'
      f'{stages if stages else ""} {d.get("paths", "")} '
      f'{({k: v for k, v in d.get("async_ways", {}).items() if v}) or ""}')
