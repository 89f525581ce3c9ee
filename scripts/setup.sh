#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-step set-up on a fresh Debian/Ubuntu machine: installs the packages the build needs, builds
# the library, its tests, tools and examples into build/, and runs the main job: a round trip of a
# file through GPU memory (the CPU runtime stands in for the GPU on machines without one).
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and libclang-rt-dev (libFuzzer and the sanitizer runtimes clang links) are for
# scripts/fuzz.sh. On Debian 12 they bring clang-14 and libclang-rt-14-dev, the package that holds
# libclang_rt.fuzzer-x86_64.a; clang only recommends it, and recommends are not installed here.
# liburing-dev: io_uring for batched reads and writes (linked statically; the build works without
# it, on pread/pwrite only). fio: the fio engine (tools/fio, docs/fio.md) is built for it and tested
# with it; scripts/fio-source.sh fetches the headers it is built against. nlohmann-json3-dev:
# JSON, header only - the parser of the configuration file HIPFILE_CONFIG names (docs/config.md;
# the library builds without it, reading no configuration file) and hipfile-check's --json.
# python3-dev, python3-venv: the Python package (docs/python.md) builds its extension against
# Python's headers, and its tests install it into fresh virtual environments.
packages=(build-essential cmake ninja-build pkg-config libgtest-dev libgmock-dev liburing-dev clang
  libclang-rt-dev fio nlohmann-json3-dev python3-dev python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

scripts/fio-source.sh build/fio-source
# Warnings as errors, as scripts/test.sh configures build/: the same flags, so that the test
# command that follows reuses this build instead of compiling everything again (in CI that
# second build took a sixth of the run).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIPFILE_WERROR=ON
cmake --build build

scripts/main-job.sh build
