#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layout test's list of facts, read from our include/cufile/cufile.h.

  facts.py OUR_HEADER NVIDIA_HEADER OUT.inc

Writes one X-macro line per fact of our header - every enum type's size and every enumerator,
every value macro, every struct's size and alignment and every member's offset and size (nested
members too), every function's type - so that the two sides of the test (nvidia_side.cc,
ours_side.cc) evaluate the same list, each against its own header. Fails when NVIDIA's header
names a CU_FILE_* / CUFILE_* constant that ours lacks (a value ours forgot), less ALLOWED below.
"""
import re
import sys

# NVIDIA's names we deliberately leave out, and why.
ALLOWED = {
    "CUFILEOP_STATUS_ENTRIES": "the X-macro NVIDIA builds its enum from; ours lists the values",
    "CUFILE_OP": "the same X-macro's element",
    "CUFILE_ERRSTR": "checked as a macro of ours (it is a function-like macro, not a value)",
}
VALUE_MACROS = [
    "CUFILEOP_BASE_ERR", "CU_FILE_RDMA_REGISTER", "CU_FILE_RDMA_RELAXED_ORDERING",
    "CU_FILE_STREAM_FIXED_BUF_OFFSET", "CU_FILE_STREAM_FIXED_FILE_OFFSET",
    "CU_FILE_STREAM_FIXED_FILE_SIZE", "CU_FILE_STREAM_PAGE_ALIGNED_INPUTS", "CUFILE_GPU_UUID_LEN",
]


def members(body):
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    tokens = re.findall(r"(struct\s*\{|union\s*\{|\}\s*\w+\s*;|[^;{}]+;)", body)
    stack = [[]]
    for t in tokens:
        t = " ".join(t.split())
        if re.match(r"(struct|union)\s*\{", t):
            stack.append([])
            continue
        m = re.match(r"\}\s*(\w+)\s*;", t)
        if m:
            inner, name = stack.pop(), m.group(1)
            stack[-1].append(name)
            stack[-1] += [name + "." + f for f in inner]
            continue
        m = re.search(r"\(\*(\w+)\)", t) or re.search(r"(\w+)(\[\w+\])?;$", t)
        stack[-1].append(m.group(1))
    return stack[0]


def main():
    ours, nvidia, out = sys.argv[1:4]
    h = open(ours).read()
    lines = []
    enums = re.findall(r"typedef enum (\w+) \{(.*?)\} (\w+);|enum (CUfileFileHandleType) \{(.*?)\};",
                       h, re.S)
    names = set(VALUE_MACROS)
    for e in enums:
        body, tname = e[1] or e[4], e[2] or ("enum " + e[3])
        if tname == "CUresult":  # <cuda.h>'s, not cuFile's
            continue
        lines.append(f"HIPFILE_CUFILE_SIZE({tname})")
        for m in re.finditer(r"^\s*([A-Z]\w+)\s*(=|,|$)", body, re.M):
            lines.append(f"HIPFILE_CUFILE_VALUE({m.group(1)})")
            names.add(m.group(1))
    lines += [f"HIPFILE_CUFILE_VALUE({m})" for m in VALUE_MACROS]
    for _, body, tname in re.findall(r"typedef struct (\w+) \{(.*?)\n\} (\w+);", h, re.S):
        lines.append(f"HIPFILE_CUFILE_SIZE({tname})")
        lines.append(f"HIPFILE_CUFILE_ALIGN({tname})")
        lines += [f"HIPFILE_CUFILE_MEMBER({tname}, {f})" for f in members(body)]
    functions = re.findall(r"CUFILE_API [^;(]*?\b(cu\w+)\(", h)
    functions.append("cufileop_status_error")
    lines += [f"HIPFILE_CUFILE_SIGNATURE({f})" for f in functions]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")

    theirs = open(nvidia).read()
    defined = set(re.findall(r"\b((?:CU_FILE|CUFILE)[A-Z0-9_]*)\b\s*(?:=|,|\))", theirs))
    defined |= set(re.findall(r"#define\s+((?:CU_FILE|CUFILE)[A-Z0-9_]*)\s+\S", theirs))
    missing = sorted(n for n in defined if n not in names and n not in ALLOWED
                     and not re.search(r"\b" + n + r"\b", h))
    if missing:
        print("cufile-abi: NVIDIA's header defines names ours lacks: " + ", ".join(missing))
        return 1
    print(f"cufile-abi: {len(lines)} facts of our header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
