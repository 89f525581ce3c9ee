// SPDX-License-Identifier: MIT
// FileRegistry: the registered files, by handle and by the caller's descriptor.
//
// OpenFile does the system-call work of a registration (checks, the library's own descriptors,
// mount lookup) without touching the registry; the rest is bookkeeping the Driver calls under its
// lock.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "core/file.h"
#include "platform/sys.h"
#include "util/status.h"

namespace hipfile::core {

// The alignment assumed for O_DIRECT when statx does not report STATX_DIOALIGN.
inline constexpr uint32_t kDefaultDioAlign = 4096;

// Validates `fd` and builds its File:
//   fd < 0 or not open                        -> hipFileInvalidValue
//   O_PATH or O_APPEND descriptor             -> hipFileInvalidFileOpenFlag
//   not a regular file nor a block device     -> hipFileInvalidFileType
//   out of descriptors for its own            -> hipFileGetNewFDFailed
//   reopening the file refused (EACCES/EPERM) -> hipFilePermissionDenied
//   other system failures                     -> Status::Errno
Result<std::shared_ptr<File>> OpenFile(platform::Sys& sys, int fd);

class FileRegistry {
 public:
  // hipFileHandleAlreadyRegistered when the descriptor is registered already.
  Status Insert(std::shared_ptr<File> file);
  bool ContainsFd(int fd) const { return by_fd_.count(fd) != 0; }
  // nullptr when `handle` is not a registered File.
  std::shared_ptr<File> Find(const void* handle) const;

  enum class RemoveResult { kRemoved, kUnknown, kBusy };
  // kBusy while an operation holds the File. `removed` receives the registry's reference so the
  // caller can drop it (closing descriptors) outside its lock.
  RemoveResult Remove(const void* handle, std::shared_ptr<File>* removed);
  // Empties the registry; returns the references for the caller to drop.
  std::vector<std::shared_ptr<File>> Clear();
  size_t size() const { return by_handle_.size(); }

 private:
  std::map<const void*, std::shared_ptr<File>> by_handle_;
  std::map<int, const void*> by_fd_;
};

}  // namespace hipfile::core
