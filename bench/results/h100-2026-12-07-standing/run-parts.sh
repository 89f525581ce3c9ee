#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Session 34, the second device call (build: 47db4e0's, carried as .carry/n.tgz): two calls of
# at-submission-h200.sh's rows partsteady and parts (each two rounds), steady state (RAMP=2).
set -u
[ -d build-new ] || tar xzf .carry/n.tgz
ln -sfn build-new build-h200t
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$OUT/card.txt"
for r in 1 2; do
  RAMP=2 ROWS="partsteady parts" LIMIT=2 timeout 270 bash bench/probes/at-submission-h200.sh \
    build-h200t "$OUT/r$r" > "$OUT/r$r.log" 2>&1
  echo "round $r rc=$?"
done
cat "$OUT"/r*/at-submission.txt | cut -c1-110
