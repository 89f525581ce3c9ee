#!/usr/bin/env bash
# The main job: a file's round trip through GPU memory on the default runtime (CUDA where a GPU
# is usable, else the CPU runtime). Usage: scripts/main-job.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-main.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/tools/hipfile-info" --brief
"$build/examples/roundtrip-sync" "$work/read.bin" "$work/write.bin"
