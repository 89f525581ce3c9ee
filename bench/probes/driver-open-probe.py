#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""driver-open-probe: what opening and closing the driver costs a loader, by staging limit.

    driver-open-probe.py [LIMIT_KB ...]      (default: 1048576 262144 65536 16384)

For each limit (cuFile's properties.max_device_pinned_mem_size_kb, given through a HIPFILE_CONFIG
file), a fresh process initialises CUDA through torch, then times hipfile.Driver().open() and
close(). One JSON line a limit: open_s, close_s. The engine pins its transfers' share of the
limit at open (docs/architecture.md, "Pinned memory"), so open_s against the limit says how much
of a loader's fixed cost that is.
"""
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time, torch, hipfile
torch.empty(1, device="cuda:0"); torch.cuda.synchronize()
t0 = time.perf_counter(); d = hipfile.Driver(); d.open(); t1 = time.perf_counter()
d.close(); t2 = time.perf_counter()
print(json.dumps({"open_s": round(t1 - t0, 4), "close_s": round(t2 - t1, 4)}))
"""


def main() -> int:
    limits = [int(a) for a in sys.argv[1:]] or [1048576, 262144, 65536, 16384]
    for kb in limits:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"properties": {"max_device_pinned_mem_size_kb": kb}}, f)
        env = dict(os.environ, HIPFILE_CONFIG=f.name)
        got = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                             text=True, check=False)
        os.unlink(f.name)
        line = got.stdout.strip().splitlines()[-1] if got.stdout.strip() else "{}"
        print(json.dumps({"limit_kb": kb, **json.loads(line), "rc": got.returncode,
                          "stderr": got.stderr[-300:]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
