// SPDX-License-Identifier: MIT
#include "core/file.h"

#include "util/log.h"

namespace hipfile::core {

FileSystemInfo ClassifyMount(const platform::MountEntry* mount) {
  FileSystemInfo fs;
  if (mount == nullptr) return fs;
  fs.found = true;
  fs.name = mount->fs_type;
  if (mount->fs_type == "ext4") {
    fs.type = FsType::kExt4;
    const std::optional<std::string> data = platform::FindMountOption(mount->super_options, "data");
    if (!data || *data == "ordered") {
      fs.ext4_data = Ext4DataMode::kOrdered;
    } else if (*data == "journal") {
      fs.ext4_data = Ext4DataMode::kJournal;
    } else if (*data == "writeback") {
      fs.ext4_data = Ext4DataMode::kWriteback;
    } else {
      fs.ext4_data = Ext4DataMode::kUnknown;
    }
  } else if (mount->fs_type == "xfs") {
    fs.type = FsType::kXfs;
  } else if (mount->fs_type == "nfs" || mount->fs_type == "nfs4") {
    fs.type = FsType::kNfs;
    fs.nfs_proto = platform::FindMountOption(mount->super_options, "proto").value_or("");
  } else if (mount->fs_type == "tmpfs") {
    fs.type = FsType::kTmpfs;
  } else {
    fs.type = FsType::kOther;
  }
  return fs;
}

File::~File() {
  for (const int fd : {info_.io.direct_fd, info_.io.buffered_fd}) {
    if (fd < 0) continue;
    const Status status = sys_.Close(fd);
    if (!status.ok()) {
      HF_LOG(kWarn, "closing descriptor %d (opened for fd %d) failed: %s", fd, info_.client_fd,
             status.ToString().c_str());
    }
  }
}

}  // namespace hipfile::core
