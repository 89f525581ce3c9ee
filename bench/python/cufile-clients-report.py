#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cufile-clients-report: the JSON lines and the summary of bench/run_cufile_clients_h200.sh.

    cufile-clients-report.py line KEY=VALUE...        one JSON object on stdout
    cufile-clients-report.py tag KEY=VALUE... < LINES  the JSON lines of stdin, each with KEY added
    cufile-clients-report.py summary JSONL             the Markdown summary of a run on stdout

A VALUE that parses as JSON (true, 12.5, {"a": 1}, ["x"]) is taken as that, anything else as a
string, so a shell script can write JSON without quoting it. Lines that are not JSON objects are
left out by `tag`. The summary has one table row per measurement: row, cache, GB/s (10^9 bytes a
second), whether every byte was checked and right, which libcufile the process mapped; then the
ratios between rows of the same cache, and every row that failed with its error.

Rows it knows: the Python clients' lines (bench/python/cufile-client-bench.py), hipfile-bench's
(a line {"row", "cache", "tool": "hipfile-bench", "r": <its --json line>}), and any other line
with "row", "ok" and optionally "cache", "gb_s", "check_ok", "libcufile", "note", "error".
"""

import json
import sys

# Ratios printed under the table: (numerator row, denominator row, what it says).
RATIOS = (
    ("kvikio-dropin", "kvikio-compat", "KvikIO on the drop-in / KvikIO's own POSIX path"),
    ("kvikio-dropin", "c-api-16M-8thr", "KvikIO on the drop-in / the C API, same shape"),
    ("torch-gds-dropin", "c-api-1G-1thr", "torch.cuda.gds on the drop-in / the C API, 1 GiB calls"),
    ("torch-gds-dropin", "c-api-16M-8thr", "torch.cuda.gds on the drop-in / the C API, 16 MiB x 8"),
    ("kvikio-compat", "c-api-16M-8thr", "KvikIO's POSIX path / the C API, same shape"),
    ("kvikio-cpp-dropin", "kvikio-cpp-compat",
     "KvikIO's C++ FileHandle on the drop-in / its own POSIX path"),
)


def parse_pairs(pairs):
    out = {}
    for p in pairs:
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise SystemExit(f"cufile-clients-report: not KEY=VALUE: {p!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def normalise(line):
    """One row of the table from one JSON line: hipfile-bench's raw line becomes GB/s, bytes and
    its own verification flag."""
    if line.get("tool") == "hipfile-bench":
        r = line.get("r") or {}
        b, s = r.get("bytes") or 0, r.get("total_time_s") or 0
        row = dict(line)
        row.update(ok=bool(r.get("ok", b > 0)), bytes=b, seconds=s,
                   gb_s=round(b / s / 1e9, 3) if b and s else None,
                   check_ok=True if r.get("verified") else None, libcufile="(libhipfile: C API)")
        if r.get("error"):
            row["error"] = r["error"]
        return row
    return line


def fmt_lib(lib, answering=None):
    if not lib:
        return "none mapped"
    paths = lib if isinstance(lib, list) else [lib]
    marked = [f"{p} (drop-in)" if "/hipfile-cufile/" in p else p for p in paths]
    if len(paths) < 2:
        return "; ".join(marked)
    said = f" - MORE THAN ONE, cuFileRead resolves to {answering}" if answering else \
        " - MORE THAN ONE"
    return "; ".join(marked) + said


def fmt_check(row):
    c = row.get("check_ok")
    if c is None:
        return "not checked here"
    if c:
        return "yes"
    bad = row.get("first_bad", row.get("first_bad_pread", row.get("first_bad_read")))
    return "NO" + (f" (first wrong byte at {bad})" if bad is not None else "")


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary(path):
    rows = []
    with open(path) as f:
        for text in f:
            text = text.strip()
            if text.startswith("{"):
                try:
                    rows.append(normalise(json.loads(text)))
                except ValueError:
                    rows.append({"row": "(unreadable line)", "ok": False, "error": text[:200]})
    out = ["| row | cache | GB/s | bytes checked ok | libcufile mapped | note |",
           "| --- | --- | --- | --- | --- | --- |"]
    rate = {}
    for r in rows:
        name, cache = r.get("row", "?"), r.get("cache", "-")
        gb_s = r.get("gb_s")
        if gb_s is not None and r.get("ok") and r.get("check_ok") is not False:
            rate[(name, cache)] = gb_s
        notes = [r.get("op", ""), r.get("note", "")]
        if r.get("preload"):
            own = r.get("own_libcufile")
            notes.append("needed LD_PRELOAD of the drop-in: by itself the client "
                         + (f"loaded {fmt_lib(own)}" if own else "had mapped no libcufile yet"))
        if not r.get("ok"):
            notes.append("FAILED: " + str(r.get("error", "no error given")))
        if r.get("cufile_read_bytes") is not None and str(r.get("op")).startswith("roundtrip"):
            notes.append(f"through cuFile: {r['cufile_write_bytes'] >> 20} MiB written, "
                         f"{r['cufile_read_bytes'] >> 20} MiB read")
        elif r.get("cufile_read_bytes") is not None and r.get("bytes"):
            notes.append(f"cuFileRead moved {r['cufile_read_bytes'] / r['bytes']:.0%} of the bytes"
                         + (f", cuFileWrite {r['cufile_write_bytes'] / r['bytes']:.0%}"
                            if r.get("cufile_write_bytes") else ""))
        if r.get("write_gb_s") is not None:
            notes.append(f"write {r['write_gb_s']} GB/s")
        out.append("| " + " | ".join(cell(x) for x in (
            name, cache, "-" if gb_s is None else f"{gb_s:.2f}", fmt_check(r),
            fmt_lib(r.get("libcufile"), r.get("answering_libcufile")),
            "; ".join(n for n in notes if n))) + " |")
    out.append("")
    for num, den, what in RATIOS:
        for cache in ("warm", "cold"):
            x, y = rate.get((num, cache)), rate.get((den, cache))
            if x and y:
                out.append(f"- {cache}: {what}: {x / y:.2f}x ({num} {x:.2f} / {den} {y:.2f} GB/s)")
    failed = [r for r in rows if not r.get("ok")]
    out.append("")
    out.append(f"{len(rows)} rows, {len(failed)} failed"
               + (": " + ", ".join(sorted({str(r.get('row')) for r in failed})) if failed else ""))
    print("\n".join(out))
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "line":
        print(json.dumps(parse_pairs(rest)))
        return 0
    if cmd == "tag":
        extra = parse_pairs(rest)
        for text in sys.stdin:
            text = text.strip()
            if not text.startswith("{"):
                continue
            try:
                line = json.loads(text)
            except ValueError:
                continue
            line.update(extra)
            print(json.dumps(line))
        return 0
    if cmd == "summary" and len(rest) == 1:
        return summary(rest[0])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
