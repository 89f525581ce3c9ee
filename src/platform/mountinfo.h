// SPDX-License-Identifier: MIT
// /proc/self/mountinfo parsing (proc(5)): which file system holds a device, with its options.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hipfile::platform {

struct MountEntry {
  unsigned major = 0;  // st_dev of files on this mount
  unsigned minor = 0;
  std::string mount_point;    // octal escapes (\040 ...) decoded
  std::string fs_type;        // "ext4", "xfs", "nfs4", "tmpfs", "fuse.sshfs" ...
  std::string source;         // "/dev/vda1", "server:/export", ...
  std::string mount_options;  // per-mount options ("rw,noatime")
  std::string super_options;  // per-superblock options ("rw,data=ordered")
};

// One entry per well-formed line; malformed lines are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);

// The last entry for the device (a later mount of the same device is the one most recently made;
// all entries of one device share the superblock, so its type and super options agree anyway).
// nullptr when none.
const MountEntry* FindMountByDevice(const std::vector<MountEntry>& mounts, unsigned major,
                                    unsigned minor);

// The value of `key` in a comma-separated option list: "ordered" for key "data" in
// "rw,data=ordered"; "" for a bare "key"; nullopt when absent.
std::optional<std::string> FindMountOption(std::string_view options, std::string_view key);

}  // namespace hipfile::platform
