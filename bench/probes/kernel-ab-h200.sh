#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds of the library in one run, alternating, on the rows of at-submission-h200.sh named
# by ROWS (default `ahead`: reads copied ahead into device memory, 16 streams x 2 in flight,
# against the synchronous path; docs/async.md, "Reads copied ahead into device memory"): what a
# change to the library alone did, measured against its baseline on the same warm machine.
#   bench/probes/kernel-ab-h200.sh BASE_BUILD NEW_BUILD OUT_DIR
# Builds made elsewhere and unpacked side by side keep their binaries' RUNPATH (the build folder
# they were made in), so each build's tools run with LD_LIBRARY_PATH at its own library, which a
# RUNPATH yields to; each run records which library `ldd` finds first. About 5 minutes on
# this machine's CPU runtime with LIMIT=1 (two builds, two rounds each).
set -uo pipefail
base=$(realpath "${1:?usage: kernel-ab-h200.sh BASE_BUILD NEW_BUILD OUT_DIR}")
new=$(realpath "${2:?}")
out=${3:?}
rounds=${ROUNDS:-1}  # each run of at-submission-h200.sh makes two rounds of its rows already
mkdir -p "$out"
here=$(dirname "$0")
# MID=BUILD: a build between the two, run after the base one (three builds: what each of two
# changes did). WITH="VAR=VALUE ...": a last run, of the new build with those settings (e.g.
# WITH=HIPFILE_ASYNC_AHEAD_STREAM=1, reads' copies ahead on a companion stream).
runs=(base)
[[ -n ${MID:-} ]] && runs+=(mid) && mid=$(realpath "$MID")
runs+=(new)
[[ -n ${WITH:-} ]] && runs+=(with)
for round in $(seq "$rounds"); do
  for which in "${runs[@]}"; do
    build=$base settings=
    [[ $which == mid ]] && build=$mid
    [[ $which == new || $which == with ]] && build=$new
    [[ $which == with ]] && settings=$WITH
    echo "== round $round: $which ($build) $settings" | tee -a "$out/ab.txt"
    LD_LIBRARY_PATH=$build/src ldd "$build/tools/hipfile-bench/hipfile-bench" | grep libhipfile \
      | tee -a "$out/ab.txt"
    env $settings LD_LIBRARY_PATH="$build/src" ROWS="${ROWS:-ahead}" LIMIT="${LIMIT:-3}" \
      bash "$here/at-submission-h200.sh" "$build" "$out/$which-$round" > /dev/null 2>&1
    cat "$out/$which-$round/at-submission.txt" >> "$out/ab.txt"
  done
done
