#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cufile_roundtrip.c, a cuFile program written from NVIDIA's API reference, against the installed
# drop-in as a user would take it (docs/cufile.md):
#   1. the build installed into a scratch prefix;
#   2. the program compiled against <prefix>/include/hipfile-cufile/cufile.h, linked with -lcufile
#      from <prefix>/lib/hipfile-cufile, no run path;
#   3. run with nothing but LD_LIBRARY_PATH=<prefix>/lib/hipfile-cufile (and HIPFILE_RUNTIME,
#      from the test's environment), after checking that the loader resolves libcufile.so.0 there.
#
#   cufile_program_test.sh BUILD_DIR WORK_DIR CC [PROGRAM ARGS...]
#
# CUFILE_PROGRAM names another program of this folder (default cufile_roundtrip);
# CUFILE_EXPECT_STDERR, an extended regex its stderr must match (then its stderr is echoed).
# HIPFILE_LOG_LEVEL and CUFILE_ENV_PATH_JSON, when set, are passed on.
set -euo pipefail
build=$1
work=$2
cc=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > /dev/null
libdir=$(dirname "$(find "$prefix" -name libcufile.so.0 -path '*/hipfile-cufile/*' | head -n 1)")
"$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$prefix/include/hipfile-cufile" \
  "$here/${CUFILE_PROGRAM:-cufile_roundtrip}.c" -o "$work/program" -L"$libdir" -lcufile -ldl
resolved=$(env -i LD_LIBRARY_PATH="$libdir" ldd "$work/program" | awk '/libcufile/ {print $3}')
if [ "$resolved" != "$libdir/libcufile.so.0" ]; then
  echo "cufile-program: libcufile.so.0 resolves to '$resolved', not $libdir/libcufile.so.0"
  exit 1
fi
cd "$work"
if [ -z "${CUFILE_EXPECT_STDERR:-}" ]; then
  exec env -i LD_LIBRARY_PATH="$libdir" HIPFILE_RUNTIME="${HIPFILE_RUNTIME:-cpu}" \
    ${HIPFILE_LOG_LEVEL:+HIPFILE_LOG_LEVEL="$HIPFILE_LOG_LEVEL"} \
    ${CUFILE_ENV_PATH_JSON:+CUFILE_ENV_PATH_JSON="$CUFILE_ENV_PATH_JSON"} \
    "$work/program" "$work/roundtrip.bin" "$@"
fi
rc=0
env -i LD_LIBRARY_PATH="$libdir" HIPFILE_RUNTIME="${HIPFILE_RUNTIME:-cpu}" \
  ${HIPFILE_LOG_LEVEL:+HIPFILE_LOG_LEVEL="$HIPFILE_LOG_LEVEL"} \
  ${CUFILE_ENV_PATH_JSON:+CUFILE_ENV_PATH_JSON="$CUFILE_ENV_PATH_JSON"} \
  "$work/program" "$work/roundtrip.bin" "$@" 2> "$work/stderr" || rc=$?
cat "$work/stderr"
if ! grep -Eq "$CUFILE_EXPECT_STDERR" "$work/stderr"; then
  echo "cufile-program: stderr does not match '$CUFILE_EXPECT_STDERR'"
  exit 1
fi
exit "$rc"
