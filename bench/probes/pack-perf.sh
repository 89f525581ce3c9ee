#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs this machine's perf and the shared libraries it needs (all but the C library's own) into
# a folder, so that it can travel to a machine without perf - the device machine, as a carried
# path - and run there:
#   bench/probes/pack-perf.sh .perf              # here; .perf must be git-ignored to be carried
#   .perf/perf record -g -p PID -- sleep 2       # there (the wrapper sets LD_LIBRARY_PATH)
# Whether it runs there depends on that machine's C library (not packed: it must be as new as
# this one's) and on perf_event_paranoid / the container's seccomp profile.
set -euo pipefail
out=${1:?usage: $0 OUT_DIR}
perf=$(readlink -f "$(command -v perf)")
mkdir -p "$out/lib"
cp "$perf" "$out/perf.bin"
ldd "$perf" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
cat > "$out/perf" <<'WRAP'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/perf.bin" "$@"
WRAP
chmod +x "$out/perf"
du -sh "$out"
