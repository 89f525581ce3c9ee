#!/bin/sh
# SPDX-License-Identifier: MIT
# expect-exit.sh STATUS PATTERN... -- COMMAND [ARG...]: runs COMMAND as a user types it and passes
# when it exits with STATUS and every PATTERN (grep -E) matches a line of its output, stdout and
# stderr together; a PATTERN that starts with ! must match no line. For STATUS 2, a usage error,
# stderr must also be exactly one line. With EXPECT_NO_FILE=PATH in the environment, PATH must not
# exist afterwards (a refused command wrote nothing). The output
# is shown either way, and a failure says what differed. Temporary files go to the current folder
# (the tools' CTest entries run in the build tree). Used by tools/ and bench/ CMakeLists.
set -u
if [ $# -lt 3 ]; then
  echo "usage: expect-exit.sh STATUS PATTERN... -- COMMAND [ARG...]" >&2
  exit 2
fi
want=$1
shift
patterns=./expect-exit.$$.patterns
out=./expect-exit.$$.out
err=./expect-exit.$$.err
: > "$patterns"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  printf '%s\n' "$1" >> "$patterns"
  shift
done
if [ $# -lt 2 ]; then
  rm -f "$patterns"
  echo "expect-exit.sh: no -- COMMAND" >&2
  exit 2
fi
shift
"$@" > "$out" 2> "$err"
got=$?
cat "$out" "$err"
fail=""
if [ "$got" != "$want" ]; then
  fail="exit status $got, expected $want"
elif [ "$want" = 2 ] && [ "$(wc -l < "$err")" != 1 ]; then
  fail="stderr has $(wc -l < "$err") lines, expected one"
elif [ -n "${EXPECT_NO_FILE:-}" ] && [ -e "$EXPECT_NO_FILE" ]; then
  fail="$EXPECT_NO_FILE exists"
else
  while IFS= read -r p; do
    case $p in
      !*)
        if cat "$out" "$err" | grep -E -q -e "${p#!}"; then
          fail="a line matches: ${p#!}"
          break
        fi
        ;;
      *)
        if ! cat "$out" "$err" | grep -E -q -e "$p"; then
          fail="no line matches: $p"
          break
        fi
        ;;
    esac
  done < "$patterns"
fi
rm -f "$patterns" "$out" "$err"
if [ -n "$fail" ]; then
  echo "expect-exit: FAILED: $*: $fail"
  exit 1
fi
echo "expect-exit: ok: $*: exit $got"
