#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The windows' way on cpu-staged before (47db4e0's library) and after 1421a6e, interleaved, three
# rounds, with -x 0 each round: 4 streams x 1 x 256 MiB reads, budget 0, warm 2 GiB file.
#   bench/results/cpu-2026-12-07-windows/run.sh BASE_LIB_DIR NEW_LIB_DIR HIPFILE_BENCH FILE
set -u
base=$1 new=$2 B=$3 F=$4
echo '{"properties": {"max_device_cache_size_kb": 0}}' > /tmp/cache-0.json
cat "$F" > /dev/null
for r in 1 2 3; do
  for lib in "$base" "$new"; do
    line=$(LD_LIBRARY_PATH=$lib HIPFILE_RUNTIME=cpu-staged HIPFILE_CONFIG=/tmp/cache-0.json \
      HIPFILE_ASYNC_COPY_AT_SUBMISSION=0 HIPFILE_ASYNC_RUN_IDLE_KB=0 "$B" -f "$F" -s 2G -T 2 \
      --ramp 1 -w 4 -i 256M -I 0 -x 5 -Q 1 --stages --json)
    echo "$r $(basename "$(dirname "$lib")") $(python3 bench/probes/json-row.py '' "$line" | cut -c1-200)"
  done
  line=$(HIPFILE_RUNTIME=cpu-staged "$B" -f "$F" -s 2G -T 2 --ramp 1 -w 4 -i 256M -I 0 -x 0 --json)
  echo "$r sync $(python3 bench/probes/json-row.py '' "$line" | cut -c1-80)"
done
