#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Safetensors loaders side by side on one generated checkpoint (issue 20 item 4): ours
# (hipfile.safetensors.load), safetensors.torch.load_file, fastsafetensors, Run:ai Model
# Streamer and InstantTensor, each loading the whole checkpoint onto the GPU in a fresh process,
# warm (the shards in the page cache, read there by `cat`, never by a loader) and cold (page
# cache dropped before the row), REPS rounds in rotating order; every loader's tensors checked
# equal to ours; medians, memory, cores and the ratio to the pinned host-to-GPU link of the same
# run in OUT_DIR/results.md.
#
#   bench/run_loader_h200.sh OUT_DIR
#
# Needs root (cold rows write /proc/sys/vm/drop_caches), torch with CUDA, and the package
# importable by $PYTHON (PYTHONPATH) for the hipfile rows. Environment:
#   LOADER_WHEELS  folder of the other loaders' wheels (bench/competitors/fetch-loader-wheels.sh),
#                  installed once into OUT_DIR/site with pip --no-index --no-deps --target
#   LOADERS        "hipfile safetensors fastsafetensors runai instanttensor" (a subset is fine;
#                  hipfile-numpy and safetensors-numpy load into host memory, without torch)
#   SIZE_GB (32), SHARDS (16), CKPT (/var/tmp/hipfile-loader-ckpt-${SIZE_GB}g-${SHARDS}): the
#                  checkpoint, made by bench/python/make-checkpoint.py when missing
#   REPS (2), CACHES ("warm cold"), ROW_TIMEOUT (150 s a row), PYTHON (python3)
#   BUDGET_S (480): no row starts after this many seconds of the script; run the same command
#                  (same OUT_DIR) again and it does only the rows results.jsonl lacks, then
#                  summarises all of them
#
# Time at 32 GB: a warm row about 12-15 s (start, torch, the load, checksums), a cold row 20-40
# s at the H200 VM's 1.5-2 GB/s disk, the disk row 20 s: about 4 min a round of five loaders,
# and 1-2 min to make the checkpoint the first time; the default two rounds fit two calls of 10
# min (SIZE_GB=8 about a quarter of it). OUT_DIR holds results.jsonl, results.md,
# checkpoint.json, checksums-hipfile.json (per tensor) and each row's stderr.
#
# A round: link, every loader warm, disk, every loader cold (the loaders' order turns each round).
# Rows: LOADER warm|cold  loader-bench.py --loader LOADER (one JSON line; see its --help); hipfile
#                         rows save their per-tensor checksums, the others --check against them
#       link              pinned host-to-GPU copies of 1 GiB, the best of 5
#       disk              `cat` of the shards after dropping the page cache: the rate a cold load
#                         can reach
set -uo pipefail
OUT=${1:?usage: run_loader_h200.sh OUT_DIR}
SIZE_GB=${SIZE_GB:-32}
SHARDS=${SHARDS:-16}
CKPT=${CKPT:-/var/tmp/hipfile-loader-ckpt-${SIZE_GB}g-${SHARDS}}
REPS=${REPS:-2}
CACHES=${CACHES:-warm cold}
LOADERS=${LOADERS:-hipfile safetensors fastsafetensors runai instanttensor}
ROW_TIMEOUT=${ROW_TIMEOUT:-150}
BUDGET_S=${BUDGET_S:-480}
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=$HERE/python/loader-bench.py
JSONL=$OUT/results.jsonl
START=$SECONDS
mkdir -p "$OUT"
touch "$JSONL"
read -r -a ORDER <<< "$LOADERS"

if [[ -n ${LOADER_WHEELS:-} && ! -f $OUT/site/.installed ]]; then
  "$PYTHON" -m pip install -q --no-index --no-deps --target "$OUT/site" "$LOADER_WHEELS"/*.whl &&
    touch "$OUT/site/.installed"
fi
[[ -d $OUT/site ]] && export PYTHONPATH=$OUT/site${PYTHONPATH:+:$PYTHONPATH}

if [[ ! -f $CKPT/model.safetensors.index.json ]]; then
  echo "making the checkpoint: $CKPT ($SIZE_GB GB, $SHARDS shards)"
  "$PYTHON" "$HERE/python/make-checkpoint.py" "$CKPT" --gb "$SIZE_GB" --shards "$SHARDS" \
    > "$OUT/checkpoint.json" || { echo "make-checkpoint.py failed"; exit 1; }
fi
[[ -s $OUT/checkpoint.json ]] || "$PYTHON" - "$CKPT" > "$OUT/checkpoint.json" <<'PY'
import json, os, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "model.safetensors.index.json")))
print(json.dumps({"dir": d, "files": len(set(idx["weight_map"].values())),
                  "tensors": len(idx["weight_map"]), "bytes": idx["metadata"]["total_size"]}))
PY
SHARD_FILES=("$CKPT"/*.safetensors)

done_row() {  # done_row CASE CACHE REP: the row is in results.jsonl already
  grep -q "^{\"case\": \"$1\", \"cache\": \"$2\", \"rep\": $3," "$JSONL"
}

record() {  # record CASE CACHE REP LINE
  echo "{\"case\": \"$1\", \"cache\": \"$2\", \"rep\": $3, \"r\": $4}" >> "$JSONL"
  echo "$1 $2 rep $3: $(cut -c1-160 <<< "$4")"
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

over_budget() { (( SECONDS - START > BUDGET_S )); }

run_loader() {  # run_loader LOADER CACHE REP
  local name=$1 cache=$2 rep=$3 line args=()
  if [[ $name == hipfile || $name == hipfile-numpy ]]; then
    args=(--save-checksums "$OUT/checksums-hipfile.json")
  else
    args=(--check "$OUT/checksums-hipfile.json")
  fi
  if [[ $cache == cold ]]; then
    drop_caches
  else
    cat "${SHARD_FILES[@]}" > /dev/null  # in the page cache; no loader has read it
  fi
  line=$(timeout -k 10 "$ROW_TIMEOUT" "$PYTHON" "$BENCH" --loader "$name" "$CKPT" "${args[@]}" \
         2> "$OUT/stderr-$name-$cache-$rep.txt" | grep '^{"loader"' | tail -1)
  if [[ $line != \{* ]]; then
    line="{\"ok\": false, \"error\": \"no result line (exit or timeout after ${ROW_TIMEOUT} s): $(
      tail -c 300 "$OUT/stderr-$name-$cache-$rep.txt" | tr -d '"\\\n\t')\"}"
  fi
  record "$name" "$cache" "$rep" "$line"
}

disk_row() {  # disk_row REP: `cat` of every shard, timed, after dropping the page cache
  local t0 t1
  drop_caches
  t0=$(date +%s.%N)
  cat "${SHARD_FILES[@]}" > /dev/null
  t1=$(date +%s.%N)
  record disk cold "$1" "$("$PYTHON" - "$t0" "$t1" "${SHARD_FILES[@]}" <<'PY'
import json, os, sys
s, b = float(sys.argv[2]) - float(sys.argv[1]), sum(os.path.getsize(p) for p in sys.argv[3:])
print(json.dumps({"ok": True, "bytes": b, "seconds": round(s, 3), "gb_s": round(b / s / 1e9, 3),
                  "gib_s": round(b / s / 2**30, 3)}))
PY
)"
}

# A round: the link, every loader warm, the disk, every loader cold; the loaders' order turns
# by one each round.
for rep in $(seq 1 "$REPS"); do
  if ! done_row link warm "$rep" && ! over_budget; then
    line=$(timeout -k 10 120 "$PYTHON" "$BENCH" --loader link 2> "$OUT/stderr-link-$rep.txt" |
           grep '^{"loader"' | tail -1)
    [[ $line == \{* ]] || line='{"ok": false, "error": "the link probe printed no line"}'
    record link warm "$rep" "$line"
  fi
  n=${#ORDER[@]}
  for cache in $CACHES; do
    if [[ $cache == cold ]] && ! done_row disk cold "$rep" && ! over_budget; then
      disk_row "$rep"
    fi
    for ((k = 0; k < n; k++)); do
      name=${ORDER[$(((k + rep - 1) % n))]}
      done_row "$name" "$cache" "$rep" && continue
      if over_budget; then
        echo "budget of $BUDGET_S s spent: run the same command again for the rest"
        break 3
      fi
      run_loader "$name" "$cache" "$rep"
    done
  done
done

"$PYTHON" - "$JSONL" "$OUT/checkpoint.json" > "$OUT/results.md" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ckpt = json.load(open(sys.argv[2]))
by = collections.defaultdict(list)
for r in rows:
    by[(r["case"], r["cache"])].append(r["r"])

def med(got, key):
    v = [g[key] for g in got if g.get("ok") and g.get(key) is not None]
    return statistics.median(v) if v else None

def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"

link = med(by.get(("link", "warm"), []), "gb_s")
disk = med(by.get(("disk", "cold"), []), "gb_s")
# The reference: hipfile's checksum (the most common one of its rows), else the first of the
# others that has one.
def digest(loader):
    c = collections.Counter(g["checksum"] for cache in ("warm", "cold")
                            for g in by.get((loader, cache), []) if g.get("checksum"))
    return c.most_common(1)[0][0] if c else None
ref_name = next((n for n in ("hipfile", "hipfile-numpy", "safetensors", "safetensors-numpy")
                 if digest(n)), None)
ref = digest(ref_name) if ref_name else None

print(f"Checkpoint: {ckpt.get('dir')}, {ckpt.get('files')} files, {ckpt.get('tensors')} tensors, "
      f"{ckpt.get('bytes', 0) / 1e9:.2f} GB" + (f", {ckpt['dtype']}" if ckpt.get("dtype") else ""))
print(f"Link (pinned host-to-GPU, 1 GiB copies, best of 5; median of rounds): {fmt(link)} GB/s; "
      f"disk (`cat` after dropping the page cache): {fmt(disk)} GB/s")
print()
print("| loader | cache | GB/s (median) | GiB/s | s | runs (GB/s) | x link | x disk "
      "| host peak GiB | device peak GiB (driver / torch) | cores | cached before | check "
      "| error |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for cache in ("warm", "cold"):
    for (name, c), got in sorted(by.items()):
        if c != cache or name in ("link", "disk"):
            continue
        gbs = med(got, "gb_s")
        dev = [g["dev_used_peak_gib"] - g["dev_used_before_gib"] for g in got
               if g.get("ok") and g.get("dev_used_peak_gib") is not None]
        sums = {g.get("checksum") for g in got if g.get("checksum")}
        if not sums or ref is None:
            check = "-"
        elif name == ref_name:
            check = "reference" if sums == {ref} else "DIFFERS between runs"
        else:
            check = f"= {ref_name}" if sums == {ref} else f"DIFFERS from {ref_name}"
        err = next((g["error"] for g in got if g.get("error")), "")
        print(f"| {name} | {cache} | {fmt(gbs)} | {fmt(med(got, 'gib_s'))} "
              f"| {fmt(med(got, 'seconds'))} "
              f"| {', '.join(fmt(g.get('gb_s')) if g.get('ok') else 'failed' for g in got)} "
              f"| {fmt(gbs / link if gbs and link else None, 3)} "
              f"| {fmt(gbs / disk if gbs and disk else None, 3)} "
              f"| {fmt(med(got, 'host_peak_rss_gib'))} "
              f"| {fmt(statistics.median(dev) if dev else None)} "
              f"/ {fmt(med(got, 'dev_peak_alloc_gib'))} "
              f"| {fmt(med(got, 'cpu_cores'))} | {fmt(med(got, 'cached_before'))} | {check} "
              f"| {err[:120]} |")
print()
warm = {n: med(g, "gb_s") for (n, c), g in by.items() if c == "warm" and n not in ("link", "disk")}
ours = warm.get("hipfile")
if ours and link:
    others = [v for n, v in warm.items() if n != "hipfile" and v]
    print(f"- Goal, warm: hipfile / link = {ours / link:.3f} (goal >= 0.9); ahead of every other "
          f"loader: {'yes' if all(ours > v for v in others) else 'no'} "
          f"(best other: {max(others) if others else 0:.2f} GB/s)")
cold = med(by.get(("hipfile", "cold"), []), "gb_s")
if cold and disk:
    print(f"- Goal, cold: hipfile / disk = {cold / disk:.3f} (goal: the disk's rate)")
PY
cat "$OUT/results.md"
