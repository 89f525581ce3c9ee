// SPDX-License-Identifier: MIT
// File: one registered file handle (hipFileHandleRegister), and what registration learned about
// it for the engine's later choice of path.
#pragma once

#include <string>

#include "engine/sync_io.h"
#include "platform/mountinfo.h"
#include "platform/sys.h"

namespace hipfile::core {

enum class FsType { kUnknown, kExt4, kXfs, kNfs, kTmpfs, kOther };
// ext4's data= mount option; kNotExt4 for other file systems.
enum class Ext4DataMode { kNotExt4, kOrdered, kJournal, kWriteback, kUnknown };

struct FileSystemInfo {
  bool found = false;  // false when the mount could not be found (then type is kUnknown)
  FsType type = FsType::kUnknown;
  std::string name;  // the type as mountinfo writes it ("ext4", "nfs4", "fuse.sshfs"...)
  Ext4DataMode ext4_data = Ext4DataMode::kNotExt4;
  std::string nfs_proto;  // proto= of an NFS mount ("tcp", "rdma"...); "" when absent
};

// What a mountinfo entry says about the file system (nullptr: not found). An ext4 mount without
// data= journals in ordered mode (the kernel's default).
FileSystemInfo ClassifyMount(const platform::MountEntry* mount);

struct FileInfo {
  // The caller's descriptor: the registry's key, never used for I/O nor closed by the library.
  // The descriptors in `io` are the library's own, closed with the File.
  int client_fd = -1;
  int open_flags = 0;  // fcntl(client_fd, F_GETFL)
  bool is_regular = false;
  bool is_block_device = false;
  engine::IoFile io;
  FileSystemInfo fs;
};

// How the engine will move a registered file's bytes, for the line that says so at registration.
struct IoPathChoice {
  bool device_memory_staged =
      true;                 // GPU memory passes through pinned staging (not the CPU runtime)
  bool page_cache = false;  // the page-cache path is on (engine::SyncEngine)
  unsigned pin_after = 2;   // a window is pinned at its n-th read
  size_t residency_min_bytes = 1u << 20;  // smaller reads are read buffered
  bool direct_reads = true;
  bool direct_writes = true;
  bool write_through = false;
  bool allow_compat = true;  // buffered I/O through staging allowed (HIPFILE_ALLOW_COMPAT_MODE)
};

// The info line of a registration: the file (descriptor, path, file system, O_DIRECT and its
// alignments) and what its reads and writes will take, and why (engine/sync_io.h, engine/plan.h).
std::string DescribeRegistration(const FileInfo& info, const std::string& path,
                                 const IoPathChoice& choice);

// Shared by the registry and by each operation in flight on it, so that deregistration or a
// driver close never closes a descriptor under a running operation.
class File {
 public:
  File(platform::Sys& sys, FileInfo info) : sys_(sys), info_(std::move(info)) {}
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  const FileInfo& info() const { return info_; }
  int client_fd() const { return info_.client_fd; }
  const engine::IoFile& io() const { return info_.io; }

 private:
  platform::Sys& sys_;
  FileInfo info_;
};

}  // namespace hipfile::core
