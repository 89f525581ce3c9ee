// SPDX-License-Identifier: MIT
// The mount table (/proc/self/mountinfo): which mount holds a path, and which mounts hold files
// worth probing.
#pragma once

#include <string>
#include <vector>

namespace hipfile_check {

struct Mount {
  unsigned major = 0, minor = 0;  // the device of the file system
  std::string mount_point;        // octal escapes (\040) decoded
  std::string fstype;             // "ext4", "tmpfs", "fuse.sshfs"
  std::string source;             // "/dev/vda"
  std::string options;            // the super block's options
};

// The entries of mountinfo text, in its order; lines that do not parse are skipped.
std::vector<Mount> ParseMountInfo(const std::string& text);

// /proc/self/mountinfo parsed; empty when it cannot be read.
std::vector<Mount> ReadMounts();

// The mount that holds `path` (which exists): among the mounts of its device, the one whose mount
// point is the longest prefix of the path's real path; nullptr when none is of its device.
const Mount* MountOf(const std::vector<Mount>& mounts, const std::string& path);

// File systems that hold no files to read (proc, sysfs, cgroup, ...): skipped when no PATH is
// given.
bool IsPseudoFileSystem(const std::string& fstype);

// The mounts to probe when no PATH is given: no pseudo file systems, nothing under /proc or /sys,
// and only the mount visible
// at each mount point (a later mount over the same point hides the earlier one).
std::vector<Mount> MountsToProbe(const std::vector<Mount>& mounts);

}  // namespace hipfile_check
