// SPDX-License-Identifier: MIT
#include "core/file_registry.h"

#include <errno.h>
#include <sys/sysmacros.h>

#include <cstdint>
#include <string>

#include "platform/mountinfo.h"
#include "util/log.h"

namespace hipfile::core {
namespace {

// errno of a failed reopen of the caller's descriptor -> the registration's error.
Status ReopenError(Status status, int fd) {
  HF_LOG(kInfo, "reopening fd %d failed: %s", fd, status.ToString().c_str());
  if (status.IsErrno(EMFILE) || status.IsErrno(ENFILE)) return Status::Op(hipFileGetNewFDFailed);
  if (status.IsErrno(EACCES) || status.IsErrno(EPERM)) return Status::Op(hipFilePermissionDenied);
  return status;
}

FileSystemInfo LookUpFileSystem(platform::Sys& sys, const struct statx& stx) {
  Result<std::string> text = sys.ReadTextFile("/proc/self/mountinfo");
  if (!text.ok()) {
    HF_LOG(kInfo, "reading /proc/self/mountinfo failed: %s", text.status().ToString().c_str());
    return FileSystemInfo{};
  }
  const std::vector<platform::MountEntry> mounts = platform::ParseMountInfo(*text);
  return ClassifyMount(platform::FindMountByDevice(mounts, stx.stx_dev_major, stx.stx_dev_minor));
}

}  // namespace

Result<std::shared_ptr<File>> OpenFile(platform::Sys& sys, int fd) {
  // Used by hipFileHandleRegister only, so its refusals are logged under that name.
  if (fd < 0) {
    HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: fd %d is negative", fd);
    return Status::Op(hipFileInvalidValue);
  }
  Result<int> flags = sys.GetFileFlags(fd);
  if (!flags.ok()) {
    // EBADF: not an open descriptor - an argument error, as cuFile reports it.
    if (flags.status().IsErrno(EBADF)) {
      HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: fd %d is not an open descriptor", fd);
      return Status::Op(hipFileInvalidValue);
    }
    return flags.status();
  }
  FileInfo info;
  info.client_fd = fd;
  info.open_flags = *flags;
  // O_PATH descriptors cannot be read or written; with O_APPEND, pwrite ignores the offset.
  if ((*flags & O_PATH) != 0 || (*flags & O_APPEND) != 0) {
    HF_LOG_LIMITED(kWarn, "hipFileHandleRegister: fd %d was opened with %s", fd,
                   (*flags & O_PATH) != 0 ? "O_PATH (it cannot be read or written)"
                                          : "O_APPEND (writes would ignore their offsets)");
    return Status::Op(hipFileInvalidFileOpenFlag);
  }

  struct statx stx = {};
  const Status stat_status =
      sys.Statx(fd, STATX_TYPE | STATX_MODE | STATX_INO | STATX_DIOALIGN, &stx);
  if (!stat_status.ok()) return stat_status;
  mode_t mode = stx.stx_mode;
  info.io.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
  info.io.ino = static_cast<ino_t>(stx.stx_ino);
  if ((stx.stx_mask & (STATX_TYPE | STATX_INO)) != (STATX_TYPE | STATX_INO)) {
    struct stat st = {};
    HF_RETURN_IF_ERROR(sys.Fstat(fd, &st));
    mode = st.st_mode;
    info.io.dev = st.st_dev;
    info.io.ino = st.st_ino;
  }
  info.is_regular = S_ISREG(mode);
  info.is_block_device = S_ISBLK(mode);
  if (!info.is_regular && !info.is_block_device) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileHandleRegister: fd %d is neither a regular file nor a block device "
                   "(mode 0%o)",
                   fd, static_cast<unsigned>(mode & S_IFMT));
    return Status::Op(hipFileInvalidFileType);
  }

  // The library's own descriptors: an O_DIRECT one and a buffered one, both reopened through
  // /proc (same inode and access mode), O_CLOEXEC so that they do not leak into children, and
  // closed with the File. No I/O goes through the caller's descriptor: if the caller closes it
  // under an operation in flight and the next open reuses its number, the operation must not
  // read or write that other file.
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const int direct_flags = *flags | O_CLOEXEC | O_DIRECT;
  Result<int> direct = sys.Open(path.c_str(), direct_flags, 0);
  if (direct.ok()) {
    info.io.direct_fd = *direct;
  } else if (!direct.status().IsErrno(EINVAL) || (*flags & O_DIRECT) != 0) {
    return ReopenError(direct.status(), fd);
  } else {
    HF_LOG(kDebug, "fd %d: the file system refuses O_DIRECT; buffered I/O only", fd);
  }
  Result<int> buffered = sys.Open(path.c_str(), (*flags | O_CLOEXEC) & ~O_DIRECT, 0);
  if (!buffered.ok()) {
    if (info.io.direct_fd >= 0) (void)sys.Close(info.io.direct_fd);
    return ReopenError(buffered.status(), fd);
  }
  info.io.buffered_fd = *buffered;
  if (info.io.direct_fd >= 0) {
    const bool reported = (stx.stx_mask & STATX_DIOALIGN) != 0 && stx.stx_dio_mem_align != 0 &&
                          stx.stx_dio_offset_align != 0;
    info.io.dio_mem_align = reported ? stx.stx_dio_mem_align : kDefaultDioAlign;
    info.io.dio_offset_align = reported ? stx.stx_dio_offset_align : kDefaultDioAlign;
  }
  // The descriptors are this call's until the File owns them: what follows allocates, and memory
  // that runs out must not leave them open.
  try {
    info.fs = LookUpFileSystem(sys, stx);
    return std::make_shared<File>(sys, std::move(info));
  } catch (...) {
    for (const int own : {info.io.direct_fd, info.io.buffered_fd}) {
      if (own >= 0) (void)sys.Close(own);
    }
    throw;
  }
}

namespace {

static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "a handle holds 32-bit index and generation");

void* EncodeHandle(uint32_t index, uint32_t generation) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>((uint64_t{generation} << 32) | index));
}

}  // namespace

FileRegistry::FileRegistry(uint32_t first_generation)
    : first_generation_(first_generation == 0 ? 1 : first_generation) {}

Result<void*> FileRegistry::Insert(std::shared_ptr<File> file) {
  if (ContainsFd(file->client_fd())) return Status::Op(hipFileHandleAlreadyRegistered);
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    if (slots_.size() > UINT32_MAX) return Status::Op(hipFileInternalError);  // 2^32 files
    index = static_cast<uint32_t>(slots_.size());
    slots_.push_back(Slot{nullptr, first_generation_});
  }
  Slot& slot = slots_[index];
  // The descriptor's entry is the one allocation left: memory that runs out here leaves the
  // descriptor unregistered and the slot free (free_ keeps its capacity, so the push cannot
  // throw).
  try {
    by_fd_[file->client_fd()] = index;
  } catch (...) {
    free_.push_back(index);
    throw;
  }
  slot.file = std::move(file);
  return EncodeHandle(index, slot.generation);
}

FileRegistry::Slot* FileRegistry::Live(const void* handle) {
  return const_cast<Slot*>(static_cast<const FileRegistry*>(this)->Live(handle));
}

const FileRegistry::Slot* FileRegistry::Live(const void* handle) const {
  const uint64_t value = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
  const uint64_t index = value & UINT32_MAX;
  const uint64_t generation = value >> 32;
  if (index >= slots_.size()) return nullptr;
  const Slot& slot = slots_[index];
  if (slot.file == nullptr || slot.generation != generation) return nullptr;
  return &slot;
}

std::shared_ptr<File> FileRegistry::Find(const void* handle) const {
  const Slot* slot = Live(handle);
  return slot == nullptr ? nullptr : slot->file;
}

std::shared_ptr<File> FileRegistry::Vacate(uint32_t index) {
  Slot& slot = slots_[index];
  std::shared_ptr<File> file = std::move(slot.file);
  slot.file = nullptr;
  if (slot.generation == UINT32_MAX) {
    // Every handle this slot can name has been handed out: it is never used again.
    ++retired_;
  } else {
    ++slot.generation;
    free_.push_back(index);
  }
  return file;
}

FileRegistry::RemoveResult FileRegistry::Remove(const void* handle,
                                                std::shared_ptr<File>* removed) {
  Slot* slot = Live(handle);
  if (slot == nullptr) return RemoveResult::kUnknown;
  // Operations take their reference under the same lock as this check, so a count of 1 means
  // none is in flight.
  if (slot->file.use_count() > 1) return RemoveResult::kBusy;
  by_fd_.erase(slot->file->client_fd());
  *removed = Vacate(static_cast<uint32_t>(slot - slots_.data()));
  return RemoveResult::kRemoved;
}

std::vector<std::shared_ptr<File>> FileRegistry::Clear() {
  std::vector<std::shared_ptr<File>> files;
  files.reserve(by_fd_.size());
  for (const auto& [fd, index] : by_fd_) files.push_back(Vacate(index));
  by_fd_.clear();
  return files;
}

}  // namespace hipfile::core
