#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws the results of bench/run_h200.sh (and bench/run_batch_h200.sh) as one PNG.

    bench/plot_results.py RESULTS.jsonl [BATCH-RESULTS.jsonl] [-o OUT.png] [--title TEXT]

Top row: the median GiB/s of each case over its runs (whiskers: slowest and fastest run), in
groups: warm read, cold read (page cache dropped), write + fsync; 4 KiB random reads are drawn in
thousands of IOPS, their figure of merit. The pinned host-to-GPU copy of the same run (case
link-h2d) is a dashed line over the warm reads, with the issue's 0.85 x link target dotted, not
a bar. A case with no successful run (a competitor that cannot run here, say) keeps its slot and
reads "n/a: <its error>". Bottom row: cores busy per GiB/s moved, the CPU cost of each case.
Colours: hipFile (ours), the POSIX baselines, and NVIDIA cuFile / RAPIDS KvikIO.

Lines of BATCH-RESULTS.jsonl have no "cache" field; their cases are 4 KiB random reads from a
separate run and are labelled "(batch run)". A user's own `hipfile-bench --json` lines, with no
"case" field, are labelled from what they measured ("-x 6 GPU_BATCH RANDREAD 4K x16 Q128"), runs
of the same kind together. The title names the runtime that measured them (the lines' "runtime"):
on the CPU runtime the "link" is a host memcpy, not a PCIe link, and the chart says so. A file that
cannot be read, or a line that is not a JSON object, is reported with its file and line number
(exit status 2). Needs matplotlib (only this script does).
"""

import argparse
import json
import os
import re
import statistics
import sys

LINK_CASE = "link-h2d"
LINK_COLOUR = "#2a7d2a"
GROUPS = [  # (key, title, metric, axis label)
    ("warm", "warm read (page cache)", "throughput_gib_s", "GiB/s"),
    ("cold", "cold read (page cache dropped)", "throughput_gib_s", "GiB/s"),
    ("write", "write from GPU + fsync", "throughput_gib_s", "GiB/s"),
    ("rand", "4 KiB random reads (warm)", "iops", "thousand IOPS"),
]
KINDS = {  # kind: (legend, colour)
    "ours": ("hipFile (ours)", "#1f6fb4"),
    "baseline": ("baselines (POSIX / copy)", "#9a9a9a"),
    "competitor": ("NVIDIA cuFile / RAPIDS KvikIO", "#e07b1a"),
}


class BadInput(Exception):
    """A results file that cannot be read or parsed; the message names the file and line."""


def size_text(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def label_of(r):
    """A line's case, or for a plain hipfile-bench --json line, what it measured."""
    if r.get("case"):
        return r["case"]
    if "xfer_type" not in r:
        return "?"
    label = f"-x {r.get('xfer', '?')} {r['xfer_type']} {r.get('io_type', '')}"
    if r.get("io_size"):
        label += " " + size_text(int(r["io_size"]))
    if r.get("threads"):
        label += f" x{r['threads']}"
    if (r.get("queue_depth") or 1) > 1:
        label += f" Q{r['queue_depth']}"
    return label


def load(paths):
    """Runs grouped by (group, label), in the order the cases first appear, and the runtimes
    that measured them."""
    cases = {}
    runtimes = set()
    for i, path in enumerate(paths):
        batch_file = i > 0
        try:
            f = open(path)
        except OSError as e:
            raise BadInput(f"{path}: {e.strerror}") from None
        with f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise BadInput(f"{path}:{number}: not a JSON line ({e.msg}): {line[:60]}") \
                        from None
                if not isinstance(r, dict):
                    raise BadInput(f"{path}:{number}: not a JSON object: {line[:60]}")
                if r.get("runtime"):
                    runtimes.add(str(r["runtime"]))
                label = label_of(r) + (" (batch run)" if batch_file else "")
                cases.setdefault((group_of(r), label), []).append(r)
    return cases, runtimes


def group_of(r):
    cache = r.get("cache") or ""
    io_type = r.get("io_type") or ""
    if io_type in ("RANDREAD", "RANDWRITE") or "rand" in r.get("case", ""):
        return "rand"
    if cache.startswith("write") or io_type == "WRITE":
        return "write"
    return "cold" if cache == "cold" else "warm"


# hipfile-bench's transfer types (-x): the library's paths, and the baselines it compares them with.
OURS_XFER = ("GPUD", "GPUD_ASYNC", "GPU_BATCH")


def kind_of(label):
    name = label.split(" ")[0]
    if name == "-x":
        return "ours" if label.split(" ")[2] in OURS_XFER else "baseline"
    if name.startswith(("cufile", "kvikio")):
        return "competitor"
    if name.startswith(("ours", "batch", "sync", "async")):
        return "ours"
    return "baseline"


def stats(runs, key, scale=1.0):
    """(median, min, max) of `key` over the successful runs, or None when none succeeded."""
    v = [r[key] * scale for r in runs if r.get("ok") and r.get(key) is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def short_error(runs):
    err = next((r.get("error") for r in runs if not r.get("ok") and r.get("error")), "failed")
    err = err.split(";")[0].strip()  # cufile-bench appends the log's line after a ';'
    err = re.sub(r": [A-Za-z]+(Error|Exception): ", ": ", err)  # Python's exception class
    return err if len(err) <= 56 else err[:53] + "..."


def draw_group(ax, items, metric, scale, ylabel, title, link=None, labels=True, why=True):
    names = [label for label, _ in items]
    xs = range(len(items))
    values = [stats(runs, metric, scale) for _, runs in items]
    top = max([v[2] for v in values if v] + [link or 0] + [1e-9])
    for x, (label, runs), v in zip(xs, items, values):
        colour = KINDS[kind_of(label)][1]
        if v is None:
            ax.bar(x, 0, color=colour)
            ax.text(x, top * 0.02, "n/a: " + short_error(runs) if why else "n/a", rotation=90,
                    ha="center", va="bottom", fontsize=6.5, color="#b00020")
            continue
        med, lo, hi = v
        ax.bar(x, med, color=colour, yerr=[[med - lo], [hi - med]], capsize=2,
               error_kw={"elinewidth": 0.8, "ecolor": "#333333"})
        text = f"{med:.0f}" if med >= 100 else f"{med:.1f}" if med >= 10 else f"{med:.2f}"
        ax.text(x, hi + top * 0.01, text, ha="center", va="bottom", fontsize=6.5)
    if link:
        ax.axhline(link, color=LINK_COLOUR, linestyle="--", linewidth=1)
        ax.axhline(0.85 * link, color=LINK_COLOUR, linestyle=":", linewidth=1)
    ax.set_xticks(list(xs))
    if labels:
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    else:
        ax.set_xticklabels([])
    ax.set_xlim(-0.6, len(items) - 0.4)
    ax.set_ylim(0, top * 1.15)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    if title:
        # A narrow group's title goes on two lines rather than past its neighbour or the edge.
        if len(items) <= 3 and len(title) > 20:
            cut = title.rfind(" ", 0, len(title) // 2 + 4)
            title = title[:cut] + "\n" + title[cut + 1:]
        ax.set_title(title, fontsize=9)
    ax.grid(axis="y", linewidth=0.3, alpha=0.6)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.jsonl, then optionally batch-results.jsonl")
    p.add_argument("-o", "--output", help="PNG to write (default: read-write.png beside RESULTS)")
    p.add_argument("--title", help="the figure's title")
    p.add_argument("--check", action="store_true",
                   help="read the input and print its groups, labels and runtime; draw nothing")
    a = p.parse_args(argv)
    try:
        cases, runtimes = load(a.results)
    except BadInput as e:
        print(f"plot_results.py: {e}", file=sys.stderr)
        return 2
    cpu = bool(runtimes) and all(r.startswith("cpu") for r in runtimes)
    link_runs = cases.pop(("warm", LINK_CASE), [])
    link = stats(link_runs, "throughput_gib_s")
    groups = []
    for key, title, metric, ylabel in GROUPS:
        items = [(label, runs) for (g, label), runs in cases.items() if g == key]
        if items:
            groups.append((key, title, metric, ylabel, items))
    if not groups:
        print("plot_results.py: no runs in " + ", ".join(a.results), file=sys.stderr)
        return 1
    if a.check:
        for (group, label), runs in cases.items():
            print(f"{group}\t{KINDS[kind_of(label)][0]}\t{label}\t{len(runs)} run(s)")
        print("runtime\t" + (", ".join(sorted(runtimes)) or "not stated"))
        return 0
    try:  # after the input is read: a bad file is reported even where matplotlib is missing
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError as e:
        print(f"plot_results.py: {e}; pip install matplotlib", file=sys.stderr)
        return 1

    widths = [max(len(g[4]), 3) for g in groups]
    fig, axes = plt.subplots(2, len(groups), figsize=(max(12, 0.5 * sum(widths) + 3), 9.5),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    for col, (key, title, metric, ylabel, items) in enumerate(groups):
        scale = 1e-3 if metric == "iops" else 1.0
        draw_group(axes[0][col], items, metric, scale, ylabel, title,
                   link=link[0] if key == "warm" and link else None, labels=False)
        draw_group(axes[1][col], items, "cores_per_gib_s", 1.0, "cores busy per GiB/s", None,
                   why=False)
    kinds = {kind_of(label) for g in groups for label, _ in g[4]}
    handles = [Patch(color=KINDS[k][1], label=KINDS[k][0]) for k in KINDS if k in kinds]
    if link:
        handles += [Line2D([], [], color=LINK_COLOUR, linestyle="--",
                           label=(f"host memcpy, CPU runtime ({link[0]:.1f} GiB/s): not a PCIe link"
                                  if cpu else
                                  f"pinned host-to-GPU copy, same run ({link[0]:.1f} GiB/s)")),
                    Line2D([], [], color=LINK_COLOUR, linestyle=":", label="0.85 x that (target)")]
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.01, 0.965), fontsize=8,
               ncol=len(handles), frameon=False)
    runs = max((len(r) for r in cases.values()), default=0)
    source = os.path.basename(os.path.dirname(os.path.abspath(a.results[0])))
    measured = ("measured on the " + " and ".join(sorted(runtimes)) + " runtime"
                + (" (no GPU: copies are host memcpys)" if cpu else "")) if runtimes else \
        "runtime not stated"
    fig.suptitle((a.title or f"hipFile against baselines and competitors ({source}); medians of up "
                  f"to {runs} runs, whiskers: slowest and fastest") + f"; {measured}",
                 fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    out = a.output or os.path.join(os.path.dirname(os.path.abspath(a.results[0])),
                                   "read-write.png")
    fig.savefig(out, dpi=110)
    print(f"plot_results.py: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
