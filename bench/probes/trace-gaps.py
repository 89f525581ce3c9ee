#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a stream's time goes, from a cupti-trace.so timeline (issue 21).

  trace-gaps.py TRACE.csv [--skip SECONDS] [--keep SECONDS]

Takes the records that start between SKIP seconds after the first record and SKIP + KEEP
(the steady part of a run with --ramp), and prints:
  - the link: host-to-device bytes and GiB/s in the window, the share of the window with at least
    one such copy running, and how many ran at once (a histogram of the time);
  - each kind of record's duration (host-to-device copies by size, kernels by name) and the
    rate of the copies while they ran;
  - on each stream, the gap between one record's end and the next record's start, by the pair
    (copy then kernel, kernel then copy, ...): the stream's stops, where memory operations
    (waits for the host, writes of words) and launch latency hide;
  - each stream's busy share of the window.
With --kernel-bytes N (every kernel copies N bytes, as a 256 MiB read's one launch or a probe's
copy does), also the bytes the kernels moved in the window (each kernel's share by the part of
its run inside it) and the kernels running at once.
"""
import argparse
import collections
import statistics
import sys


def pct(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def row(label, values, unit_div=1000.0, unit="us"):
    if not values:
        return f"{label:44s} none"
    v = [x / unit_div for x in values]
    return (f"{label:44s} n {len(v):7d}  mean {statistics.fmean(v):9.1f}  p10 {pct(v, .1):9.1f}  "
            f"p50 {pct(v, .5):9.1f}  p90 {pct(v, .9):9.1f}  p99 {pct(v, .99):9.1f} {unit}")


KIND_NAME = {1: "HtoD", 2: "DtoH", 8: "DtoD", 10: "PtoP"}


def load(path):
    records = []  # (type, stream, start, end, bytes_or_grid, detail)
    dropped = 0
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split(",", 5)
            if p[0] == "K":
                records.append(("K", int(p[1]), int(p[2]), int(p[3]), int(p[4]), p[5]))
            elif p[0] == "M":
                records.append(("M", int(p[1]), int(p[2]), int(p[3]), int(p[4]),
                                KIND_NAME.get(int(p[5]), p[5])))
            elif p[0] == "S":
                records.append(("S", int(p[1]), int(p[2]), int(p[3]), int(p[4]), ""))
            elif p[0] == "D":
                dropped += int(p[1])
    return records, dropped


def label(r):
    if r[0] == "K":
        name = r[5]
        return "kernel " + (name if len(name) < 40 else name[:37] + "...")
    if r[0] == "M":
        return f"copy {r[5]}"
    return "memset"


def size_class(n):
    for mib in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        if n <= mib << 20:
            return f"<= {mib} MiB"
    return "> 256 MiB"


def concurrency(intervals, lo, hi):
    """Time (ns) spent with k intervals running, for each k, within [lo, hi)."""
    edges = []
    for s, e in intervals:
        s, e = max(s, lo), min(e, hi)
        if e > s:
            edges.append((s, 1))
            edges.append((e, -1))
    edges.sort()
    hist = collections.Counter()
    level, last = 0, lo
    for t, d in edges:
        hist[level] += t - last
        level += d
        last = t
    hist[level] += hi - last
    return hist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--skip", type=float, default=0.0)
    ap.add_argument("--keep", type=float, default=1e9)
    ap.add_argument("--kernel-bytes", type=int, default=0)
    a = ap.parse_args()
    records, dropped = load(a.trace)
    if not records:
        print("no records")
        return 1
    t0 = min(r[2] for r in records)
    lo = t0 + int(a.skip * 1e9)
    hi = min(lo + int(a.keep * 1e9), max(r[3] for r in records))
    win = [r for r in records if lo <= r[2] < hi]
    span = (hi - lo) / 1e9
    print(f"window {span:.3f} s from {a.skip:.2f} s; {len(win)} records "
          f"({len(records)} in all, {dropped} dropped by CUPTI)")

    h2d = [r for r in win if r[0] == "M" and r[5] == "HtoD"]
    moved = sum(r[4] for r in h2d)
    hist = concurrency([(r[2], r[3]) for r in h2d], lo, hi)
    total = sum(hist.values()) or 1
    print(f"host-to-device: {moved / 2**30:.2f} GiB, {moved / 2**30 / span:.2f} GiB/s over the window; "
          f"at least one running {100 * (1 - hist[0] / total):.1f}% of it")
    print("  copies running at once (share of the window): " +
          ", ".join(f"{k}: {100 * v / total:.1f}%" for k, v in sorted(hist.items()) if v / total >= .001))
    kern = [(r[2], r[3]) for r in win if r[0] == "K"]
    khist = concurrency(kern, lo, hi)
    print(f"kernels: at least one running {100 * (1 - khist[0] / total):.1f}% of the window")
    if a.kernel_bytes > 0:
        # Every kernel that overlaps the window, started in it or not.
        runs = [(r[2], r[3]) for r in records if r[0] == "K" and r[3] > lo and r[2] < hi]
        part = sum((min(e, hi) - max(s, lo)) / (e - s) for s, e in runs if e > s)
        rhist = concurrency(runs, lo, hi)
        mean = sum(k * v for k, v in rhist.items()) / total
        print(f"  kernels of {a.kernel_bytes / 2**20:.0f} MiB: {part * a.kernel_bytes / 2**30 / span:.2f} "
              f"GiB/s moved over the window; {mean:.1f} running at once on average; " +
              ", ".join(f"{k}: {100 * v / total:.1f}%" for k, v in sorted(rhist.items())
                        if v / total >= .01))

    print("\ndurations")
    by = collections.defaultdict(list)
    rate = collections.defaultdict(list)
    for r in win:
        key = label(r) + (f" {size_class(r[4])}" if r[0] == "M" else "")
        by[key].append(r[3] - r[2])
        if r[0] == "M" and r[3] > r[2]:
            rate[key].append(r[4] / (r[3] - r[2]))  # bytes per ns = GB/s
    for k in sorted(by):
        print(row(k, by[k]))
    for k in sorted(rate):
        v = rate[k]
        print(f"{k:44s} rate while running GB/s: mean {statistics.fmean(v):6.2f} p10 {pct(v, .1):6.2f} "
              f"p50 {pct(v, .5):6.2f} p90 {pct(v, .9):6.2f}")

    print("\ngaps on a stream, one record's end to the next one's start")
    streams = collections.defaultdict(list)
    for r in win:
        streams[r[1]].append(r)
    gaps = collections.defaultdict(list)
    busy = {}
    for sid, rs in streams.items():
        rs.sort(key=lambda r: r[2])
        busy[sid] = sum(r[3] - r[2] for r in rs)
        for prev, nxt in zip(rs, rs[1:]):
            a_ = "copy" if prev[0] == "M" else ("kernel" if prev[0] == "K" else "memset")
            b_ = "copy" if nxt[0] == "M" else ("kernel" if nxt[0] == "K" else "memset")
            gaps[f"{a_} -> {b_}"].append(nxt[2] - prev[3])
    for k in sorted(gaps):
        print(row(k, gaps[k]))

    print("\nstreams (busy share of the window: a copy or kernel of its own running)")
    shares = sorted(100 * b / (hi - lo) for b in busy.values())
    print(f"  {len(shares)} streams; busy % p10 {pct(shares, .1):.1f} p50 {pct(shares, .5):.1f} "
          f"p90 {pct(shares, .9):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
