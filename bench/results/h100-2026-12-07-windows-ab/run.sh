#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The device call that made ab.txt (bench/results/h100-2026-12-07-windows-ab): 47db4e0's Release
# build as the base, 6234bde's as the new one (each packed without objects and carried), one
# round of bench/probes/windows-ab-h200.sh.
set -u
[ -d build-new ] || tar xzf .carry/n.tgz    # 47db4e0
[ -d build-new3 ] || tar xzf .carry/n3.tgz  # 6234bde
ln -sfn build-new3 build-h200t
ROUNDS=1 bash bench/probes/windows-ab-h200.sh build-new build-new3 "$OUT" 2>&1 | tail -60
