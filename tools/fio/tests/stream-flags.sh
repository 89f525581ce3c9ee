#!/bin/sh
# SPDX-License-Identifier: MIT
# stream-flags.sh FIO ENGINE HIPFILE_STATS DIR: which way hipfile_mode=stream's reads go, read
# from the installed hipfile-stats' report of fio (--json, "async_ways"). fio writes 4 MiB with
# crc32c headers through the page cache, then reads it back at random in 4 KiB blocks, 8 in
# flight, verifying every block: with the default hipfile_stream_fixed=1 (the stream registered
# with the HIPFILE_STREAM_FIXED_* flags) no read waits to be staged - each is taken at submission
# or run at once; with hipfile_stream_fixed=0 the library must read the values when the stream
# gets there, so reads on a busy stream are staged. Run on cpu-staged (a GPU's data paths).
# Exit 77 (a skip) where the file system cannot say what is in the page cache (tmpfs).
set -eu
fio=$1 engine=$2 stats=$3 dir=$4
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
unset LD_LIBRARY_PATH
export HIPFILE_RUNTIME=cpu-staged
common="--ioengine=external:$engine --filename=data.bin --size=4M --bs=4k --gpu_dev_ids=0
  --verify=crc32c --invalidate=0"
# shellcheck disable=SC2086
"$fio" --name=w $common --rw=write --do_verify=0 > w.log 2>&1 || { cat w.log; exit 1; }
ways() {  # ways FIXED: fio's verifying random reads in stream mode; prints "staged at_submission"
  # shellcheck disable=SC2086
  "$stats" --json -o "ways$1.json" "$fio" --name=r $common --hipfile_mode=stream \
    --hipfile_stream_fixed="$1" --rw=randread --iodepth=8 --verify_fatal=1 > "r$1.log" 2>&1 ||
    { cat "r$1.log"; exit 1; }
  if ! grep -q "err= 0" "r$1.log" || grep -q "verify failed" "r$1.log"; then
    cat "r$1.log"
    exit 1
  fi
  python3 - "ways$1.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["async_ways"]
r = {k: v["read_ops"] for k, v in w.items() if isinstance(v, dict)}
print(r["staged"], r["read_at_submission"] + r["run_at_once"] + r["copied_at_submission"],
      sum(r.values()))
PY
}
read -r staged1 early1 total1 <<END
$(ways 1)
END
read -r staged0 early0 total0 <<END
$(ways 0)
END
echo "fixed: $staged1 staged, $early1 at submission, of $total1; unfixed: $staged0 staged, $early0 at submission, of $total0"
if [ "$total1" -lt 1024 ] || [ "$total0" -lt 1024 ]; then
  echo "fewer reads counted than fio made (1024 each)"
  exit 1
fi
if [ "$(stat -f -c %T .)" = tmpfs ]; then
  echo "SKIP: tmpfs cannot say what is in the page cache"
  exit 77
fi
if [ "$staged1" -ne 0 ] || [ "$early1" -ne "$total1" ]; then
  echo "fixed: not every read was taken at submission or run at once"
  exit 1
fi
if [ "$staged0" -eq 0 ]; then
  echo "unfixed: no read was staged (were the values read at submission?)"
  exit 1
fi
echo "stream-flags: fixed streams take reads at submission"
