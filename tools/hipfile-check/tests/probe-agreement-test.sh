#!/bin/sh
# SPDX-License-Identifier: MIT
# probe-agreement-test.sh EXPECT HIPFILE_CHECK WORKDIR: hipfile-check's text and --json reports of
# directories on several file systems agree with a probe made here without it: the build tree's
# folder (ext4 on the CI machine), /dev/shm (tmpfs: O_DIRECT since Linux 6.6) and a ramfs mounted
# for the test (no O_DIRECT; skipped, with a message, where mounting is not allowed). The direct
# probe: `dd oflag=direct` of one 4 KiB block (then iflag=direct back), `stat -f -c %t` for
# statfs's type and `findmnt -T` for the mount's. Ends with "probe-agreement-test: ok".
set -u
expect=$1
check=$2
work=$3
rm -rf "$work"
mkdir -p "$work/ext" "$work/ramfs"
cd "$work" || exit 1
fail=0
ramfs_mounted=0

cleanup() {
  [ "$ramfs_mounted" = 1 ] && umount "$work/ramfs"
}
trap cleanup EXIT

# yes/no: whether O_DIRECT writes and reads a block in DIR.
direct_probe() {
  f="$1/direct-probe.$$"
  if dd if=/dev/zero of="$f" bs=4096 count=1 oflag=direct status=none 2>/dev/null &&
    dd if="$f" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null; then
    r=yes
  else
    r=no
  fi
  rm -f "$f"
  echo "$r"
}

# One directory: --json's facts against the direct probe, then the text report's lines.
agree() {
  dir=$1
  want_direct=$(direct_probe "$dir")
  want_magic=$(stat -f -c %t "$dir")
  want_fstype=$(findmnt -n -o FSTYPE -T "$dir" | tail -n 1)
  json=$("$check" --json "$dir")
  status=$?
  got=$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)
p = r["paths"][0]
d = {True: "yes", False: "no", None: "unknown"}[p["o_direct"]]
print(d, p["statfs_type"], p["mount_fstype"], p["usable"], r["can_do_io"], len(r["paths"]))
')
  want="$want_direct 0x$want_magic $want_fstype True True 1"
  echo "$dir: direct probe: $want; hipfile-check --json: $got (exit $status)"
  if [ "$got" != "$want" ] || [ "$status" != 0 ]; then
    echo "probe-agreement-test: FAILED: $dir: --json disagrees with the direct probe"
    fail=1
  fi
  if [ "$want_direct" = yes ]; then line="^  O_DIRECT       yes: "; else line="^  O_DIRECT       no: "; fi
  sh "$expect" 0 "^$dir\$" "$line" "^  usable         yes" "^hipFile can do I/O here \\(exit 0\\)" \
    -- "$check" "$dir" > text.out 2>&1 || { cat text.out; fail=1; }
  tail -n 1 text.out
  # The probe file is gone.
  if ls -a "$dir" | grep -q '^\.hipfile-check\.'; then
    echo "probe-agreement-test: FAILED: $dir: a probe file was left behind"
    fail=1
  fi
}

agree "$work/ext"
agree /dev/shm
if mount -t ramfs ramfs "$work/ramfs" 2>/dev/null; then
  ramfs_mounted=1
  agree "$work/ramfs"
  # ramfs has no O_DIRECT: said so, and why.
  "$check" "$work/ramfs" | grep -q "^  O_DIRECT       no: a probe file's open with O_DIRECT was refused (EINVAL)" ||
    { echo "probe-agreement-test: FAILED: ramfs's refusal not explained"; fail=1; }
  # Into GPU memory (cpu-staged takes a GPU's paths) with the compatibility path off, nothing can
  # read there: exit 1, and why.
  HIPFILE_RUNTIME=cpu-staged HIPFILE_ALLOW_COMPAT_MODE=false sh "$expect" 1 \
    "^                 read_cold +refused: buffered \\(no_direct\\), and the compatibility path is off" \
    "^  usable         no" "^hipFile cannot do I/O here \\(exit 1\\)" -- "$check" "$work/ramfs" \
    > text.out 2>&1 || { cat text.out; fail=1; }
  tail -n 1 text.out
else
  echo "probe-agreement-test: ramfs skipped: mount -t ramfs is not allowed here"
fi
if [ "$fail" = 0 ]; then echo "probe-agreement-test: ok"; fi
exit "$fail"
