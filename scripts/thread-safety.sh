#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the lock annotations (src/util/thread_annotations.h, src/util/mutex.h) with clang's
# thread-safety analysis:
#   1. no raw std::mutex, std::shared_mutex or std::condition_variable where the code is annotated
#      (the analysis cannot see them);
#   2. a clang build in build-thread-safety/ with HIPFILE_THREAD_SAFETY=ON (-Wthread-safety
#      -Werror=thread-safety) and warnings as errors, of everything: library, tests, tools,
#      examples, benchmarks. Debug without debug information (-g0): the analysis is the front
#      end's, nothing runs, and -O0 -g0 compiles fastest (a quarter less than -O0 -g);
#   3. that the check bites: a write of a GUARDED_BY member without its lock must not compile.
# Nothing runs; scripts/test.sh and scripts/sanitize.sh run the tests. Prints
# "thread-safety: build N s, clean".
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
start=$SECONDS

raw=$(grep -rnE 'std::(shared_)?mutex|std::condition_variable|std::(lock_guard|unique_lock|shared_lock)' \
  src tests/fakes --include='*.h' --include='*.cc' |
  grep -v -e '^src/util/mutex\.h:' -e '^src/util/thread_annotations\.h:' || true)
if [[ -n $raw ]]; then
  echo "$raw" >&2
  echo "thread-safety: FAILED: lock with Mutex, MutexLock, CondVar, SharedMutex (util/mutex.h) so" \
    "that the analysis sees it" >&2
  exit 1
fi

cmake -S . -B build-thread-safety -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-g0 -DCMAKE_CXX_FLAGS_DEBUG=-g0 \
  -DHIPFILE_THREAD_SAFETY=ON -DHIPFILE_WERROR=ON >/dev/null
cmake --build build-thread-safety -j "$jobs"

# Should the macros ever expand to nothing under clang, the build above would pass vacuously.
probe=build-thread-safety/unlocked_write.log
if clang++ -std=c++17 -fsyntax-only -Wthread-safety -Werror=thread-safety -Isrc -x c++ - \
  >"$probe" 2>&1 <<'EOF'; then
#include "util/mutex.h"
struct Counter {
  hipfile::Mutex mu;
  int value GUARDED_BY(mu) = 0;
  void Bump() { ++value; }  // no lock: must be refused
};
EOF
  echo "thread-safety: FAILED: an unlocked write of a GUARDED_BY member compiled" >&2
  exit 1
fi
if ! grep -q 'Werror,-Wthread-safety' "$probe"; then
  cat "$probe" >&2
  echo "thread-safety: FAILED: the unlocked write was refused for another reason" >&2
  exit 1
fi
echo "thread-safety: build $((SECONDS - start)) s, clean"
