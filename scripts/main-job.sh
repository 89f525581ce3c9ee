#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: the tutorial's round trip (roundtrip-async-multi-stream-registered: 4 registered
# streams, each reading its 1 MiB slice into GPU memory and writing it back) on the default
# runtime - CUDA where a GPU is usable, else the CPU runtime. Usage: scripts/main-job.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-main.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/tools/hipfile-info" --brief
"$build/examples/roundtrip-async-multi-stream-registered" "$work/read.bin" "$work/write.bin"
