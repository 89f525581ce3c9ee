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

namespace {

std::string FileSystemText(const FileInfo& info) {
  std::string text = info.fs.found ? info.fs.name : std::string("file system unknown");
  if (info.fs.type == FsType::kExt4) {
    switch (info.fs.ext4_data) {
      case Ext4DataMode::kOrdered:
        text += " data=ordered";
        break;
      case Ext4DataMode::kJournal:
        text += " data=journal";
        break;
      case Ext4DataMode::kWriteback:
        text += " data=writeback";
        break;
      default:
        break;
    }
  } else if (info.fs.type == FsType::kNfs && !info.fs.nfs_proto.empty()) {
    text += " proto=" + info.fs.nfs_proto;
  }
  text += info.is_block_device ? ", block device" : ", regular file";
  return text;
}

std::string Bytes(size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

std::string DescribeRegistration(const FileInfo& info, const std::string& path,
                                 const IoPathChoice& c) {
  const bool has_direct = info.io.direct_fd >= 0;
  std::string text = "hipFileHandleRegister: fd " + std::to_string(info.client_fd) + " is " + path +
                     " (" + FileSystemText(info) + "); O_DIRECT: ";
  if (has_direct) {
    text += "yes, alignment " + std::to_string(info.io.dio_mem_align) + " B memory, " +
            std::to_string(info.io.dio_offset_align) + " B offset and size";
  } else {
    text += "no (the file system refuses it)";
  }
  const bool direct_reads = has_direct && c.direct_reads;
  const bool direct_writes = has_direct && c.direct_writes;
  const std::string staged_rest =
      c.allow_compat ? "through pinned staging"
                     : "refused (HIPFILE_ALLOW_COMPAT_MODE=false: no buffered I/O through staging)";
  if (c.device_memory_staged) {
    text += "; GPU memory: reads";
    if (c.page_cache || direct_reads) {
      text += " of " + Bytes(c.residency_min_bytes) + " and more: ";
      if (c.page_cache) {
        text += "resident data from pinned page-cache windows (a window pinned at read " +
                std::to_string(c.pin_after) + " of it), ";
      }
      if (direct_reads) text += "the aligned body of cold data by O_DIRECT into pinned staging, ";
      text += "the rest";
    } else {
      text += std::string(": (no page-cache windows, ") +
              (has_direct ? "direct reads off" : "no O_DIRECT") + ") all";
    }
    text += " by pread " + staged_rest;
    text += "; writes: ";
    text += direct_writes
                ? "the page-aligned body by O_DIRECT from pinned staging (buffered while pages "
                  "of the file are pinned), head and tail by pwrite "
                : std::string("by pwrite (") +
                      (has_direct ? "HIPFILE_DIRECT_WRITES=false" : "no O_DIRECT on this file") +
                      ") ";
    text += staged_rest;
  } else {
    text += "; GPU memory is host memory on this runtime: moved as host memory";
  }
  text += "; host memory: pread/pwrite straight into and out of the buffer";
  if (direct_reads || direct_writes) text += ", O_DIRECT for aligned cold data";
  if (c.write_through) text += "; every write followed by fdatasync (HIPFILE_WRITE_THROUGH)";
  return text;
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
