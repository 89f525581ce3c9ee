// SPDX-License-Identifier: MIT
// FileRegistry: the registered files, by handle and by the caller's descriptor.
//
// OpenFile does the system-call work of a registration (checks, the library's own descriptors,
// mount lookup) without touching the registry; the rest is bookkeeping the Driver calls under its
// lock.
//
// Handles are never reused within the process (for a registry that lives as long as it, as the
// Driver's does): a deregistered handle - or one dropped by the driver's close - is refused as
// unknown from then on, and never names a file registered later, even one under the same
// descriptor number. A handle encodes a slot index and that slot's generation: (generation << 32)
// | index, with generations counted from 1, so no handle is NULL or below 2^32 (small bogus values
// are refused), and a lookup is an index and a comparison - no hashing, no tree walk - which the
// batch path, looking up every entry of every submission, wants. A slot's generation moves on
// each time its file leaves; a slot whose generation is spent is retired, never handed out again.
#pragma once

#include <cstdint>
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
  // first_generation is where every slot's generation starts: 1, except in tests of what
  // happens when a slot's generations run out.
  explicit FileRegistry(uint32_t first_generation = 1);

  // Stores the file and returns its new handle; hipFileHandleAlreadyRegistered when the
  // descriptor is registered already.
  Result<void*> Insert(std::shared_ptr<File> file);
  bool ContainsFd(int fd) const { return by_fd_.count(fd) != 0; }
  // nullptr when `handle` is not the handle of a registered File.
  std::shared_ptr<File> Find(const void* handle) const;

  enum class RemoveResult { kRemoved, kUnknown, kBusy };
  // kBusy while an operation holds the File. `removed` receives the registry's reference so the
  // caller can drop it (closing descriptors) outside its lock.
  RemoveResult Remove(const void* handle, std::shared_ptr<File>* removed);
  // Empties the registry (every handle becomes stale); returns the references for the caller to
  // drop.
  std::vector<std::shared_ptr<File>> Clear();
  size_t size() const { return by_fd_.size(); }
  // Slots retired because their generations ran out.
  size_t retired() const { return retired_; }

 private:
  struct Slot {
    std::shared_ptr<File> file;  // null while free
    uint32_t generation = 0;     // of the handle that names the slot's file
  };
  // The slot `handle` names while it is live, or nullptr.
  Slot* Live(const void* handle);
  const Slot* Live(const void* handle) const;
  // Empties slot `index`, moving its generation on; frees it, or retires it when spent.
  std::shared_ptr<File> Vacate(uint32_t index);

  const uint32_t first_generation_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;     // free slots, reused last-freed first
  std::map<int, uint32_t> by_fd_;  // caller's descriptor -> slot
  size_t retired_ = 0;
};

}  // namespace hipfile::core
