// SPDX-License-Identifier: MIT
#include "fs_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

// STATX_DIOALIGN and struct statx's stx_dio_*_align come from linux/stat.h (Linux 6.1), which the
// library's own build needs as well (src/core/file_registry.cc); an older kernel leaves the mask
// bit clear, which reads as "not reported".

namespace hipfile_check {

namespace {

// The alignment the library assumes where statx does not report one (src/core/file_registry.h,
// kDefaultDioAlign).
constexpr uint32_t kAssumedDioAlign = 4096;

struct DioAlign {
  bool reported = false;
  uint32_t mem = 0, offset = 0;
};

DioAlign StatxDioAlign(int fd) {
  DioAlign a;
  struct statx stx;
  std::memset(&stx, 0, sizeof stx);
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0) return a;
  if ((stx.stx_mask & STATX_DIOALIGN) == 0) return a;
  a.mem = stx.stx_dio_mem_align;
  a.offset = stx.stx_dio_offset_align;
  a.reported = a.mem != 0 && a.offset != 0;
  return a;
}

void RecordAlign(const DioAlign& a, PathReport* r) {
  if (a.reported) {
    r->dio_mem_align = a.mem;
    r->dio_offset_align = a.offset;
  } else {
    r->dio_align_note = "not reported by statx (the library then assumes " +
                        std::to_string(kAssumedDioAlign) + " for both)";
  }
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// An aligned block for O_DIRECT: large enough and aligned enough for either alignment.
std::unique_ptr<char, FreeDeleter> AlignedBlock(const DioAlign& a, size_t* size) {
  size_t block = kAssumedDioAlign;
  if (a.reported) block = std::max<size_t>({block, a.mem, a.offset});
  *size = block;
  void* p = nullptr;
  if (posix_memalign(&p, block, block) != 0) return nullptr;
  return std::unique_ptr<char, FreeDeleter>(static_cast<char*>(p));
}

std::string ErrnoText(int e) {
  return std::string(strerrordesc_np(e)) + " (" + strerrorname_np(e) + ")";
}

// The library's rule for a file here (hipFileExtGetIoRule), asked through `fd`.
void AskLibrary(int fd, PathReport* r) {
  const hipFileError_t e = hipFileExtGetIoRule(fd, &r->io_rule);
  r->io_rule_known = e.err == hipFileSuccess;
  if (!r->io_rule_known) {
    r->io_rule_error = std::string("hipFileExtGetIoRule: ") + hipFileExtOpErrorName(e.err);
  }
}

// Opens `file` read-only and asks the library about it.
void AskLibrary(const std::string& file, PathReport* r) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    r->io_rule_error = "opening " + file + " to ask the library failed: " + ErrnoText(errno);
    return;
  }
  AskLibrary(fd, r);
  close(fd);
}

// Reads one aligned block at offset 0 of an O_DIRECT descriptor (fewer bytes at end of file).
void ProbeReadOnly(int fd, const std::string& what, PathReport* r) {
  const DioAlign a = StatxDioAlign(fd);
  RecordAlign(a, r);
  size_t block = 0;
  auto buf = AlignedBlock(a, &block);
  const ssize_t got = buf ? pread(fd, buf.get(), block, 0) : -1;
  if (got >= 0) {
    r->o_direct = Tri::kYes;
    r->o_direct_detail = what + " opened with O_DIRECT and read (" + std::to_string(got) +
                         " bytes of a " + std::to_string(block) + "-byte block)";
  } else if (errno == EINVAL) {
    r->o_direct = Tri::kNo;
    r->o_direct_detail = what + " opened with O_DIRECT, but an aligned read was refused (EINVAL)";
  } else {
    r->o_direct = Tri::kUnknown;
    r->o_direct_detail = what + " opened with O_DIRECT, but the read failed: " + ErrnoText(errno);
  }
}

void ProbeFile(const std::string& file, const std::string& what, PathReport* r) {
  AskLibrary(file, r);
  const int fd = open(file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd >= 0) {
    ProbeReadOnly(fd, what, r);
    close(fd);
  } else if (errno == EINVAL) {
    r->o_direct = Tri::kNo;
    r->o_direct_detail = what + ": open with O_DIRECT refused (EINVAL)";
  } else {
    r->o_direct = Tri::kUnknown;
    r->o_direct_detail = what + ": cannot probe, open failed: " + ErrnoText(errno);
  }
}

// A directory that cannot be written: through the first regular file in it that opens.
void ProbeReadOnlyDirectory(const std::string& dir, int create_errno, PathReport* r) {
  const std::string why =
      "the directory cannot be written (" + std::string(strerrorname_np(create_errno)) + ")";
  DIR* d = opendir(dir.c_str());
  if (d != nullptr) {
    while (const dirent* e = readdir(d)) {
      const std::string file = dir + "/" + e->d_name;
      struct stat st;
      if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
      if (fd < 0) continue;
      close(fd);
      closedir(d);
      ProbeFile(file, why + "; probed on " + file + ", which", r);
      return;
    }
    closedir(d);
  }
  r->o_direct = Tri::kUnknown;
  r->o_direct_detail = "cannot probe: " + why + " and holds no readable regular file";
}

// A writable directory: a fresh file created with O_DIRECT, one block written and read back.
void ProbeDirectory(const std::string& dir, PathReport* r) {
  static std::atomic<unsigned> serial{0};
  const std::string probe =
      dir + "/.hipfile-check." + std::to_string(getpid()) + "." + std::to_string(serial++);
  const int fd = open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    if (e == EINVAL) {
      // Where the file system has no O_DIRECT, open creates the file before refusing the flag:
      // the library is asked about it, then it goes.
      AskLibrary(probe, r);
      (void)unlink(probe.c_str());
      r->o_direct = Tri::kNo;
      r->o_direct_detail = "a probe file's open with O_DIRECT was refused (EINVAL)";
    } else if (e == EACCES || e == EROFS || e == EPERM) {
      ProbeReadOnlyDirectory(dir, e, r);
    } else {
      r->o_direct = Tri::kUnknown;
      r->o_direct_detail = "cannot probe: creating a probe file failed: " + ErrnoText(e);
    }
    return;
  }
  AskLibrary(fd, r);
  const DioAlign a = StatxDioAlign(fd);
  RecordAlign(a, r);
  size_t block = 0;
  auto out = AlignedBlock(a, &block);
  auto in = AlignedBlock(a, &block);
  std::string detail;
  if (!out || !in) {
    r->o_direct = Tri::kUnknown;
    detail = "no memory for the probe's blocks";
  } else {
    for (size_t i = 0; i < block; ++i) out.get()[i] = static_cast<char>(i * 7 + 1);
    const ssize_t wrote = pwrite(fd, out.get(), block, 0);
    const int write_errno = errno;
    const ssize_t read = wrote == static_cast<ssize_t>(block) ? pread(fd, in.get(), block, 0) : -1;
    const int read_errno = errno;
    const std::string size = std::to_string(block) + "-byte block";
    if (wrote < 0) {
      r->o_direct = write_errno == EINVAL ? Tri::kNo : Tri::kUnknown;
      detail = "a probe file opened with O_DIRECT, but writing a " + size +
               " failed: " + ErrnoText(write_errno);
    } else if (wrote != static_cast<ssize_t>(block)) {
      r->o_direct = Tri::kUnknown;
      detail = "a probe file's O_DIRECT write of a " + size + " was short";
    } else if (read != static_cast<ssize_t>(block)) {
      r->o_direct = read < 0 && read_errno == EINVAL ? Tri::kNo : Tri::kUnknown;
      detail = "a probe file's O_DIRECT read of a " + size + " failed" +
               (read < 0 ? ": " + ErrnoText(read_errno) : std::string(" (short)"));
    } else if (std::memcmp(in.get(), out.get(), block) != 0) {
      r->o_direct = Tri::kNo;
      detail = "a probe file's O_DIRECT read returned other bytes than were written";
    } else {
      r->o_direct = Tri::kYes;
      detail = "a probe file created with O_DIRECT, a " + size + " written and read back";
    }
  }
  close(fd);
  if (unlink(probe.c_str()) != 0) {
    detail += "; removing " + probe + " failed: " + ErrnoText(errno);
  } else {
    detail += ", removed";
  }
  r->o_direct_detail = detail;
}

}  // namespace

const char* FileSystemName(uint64_t magic) {
  // linux/magic.h's numbers, and those of file systems outside the kernel tree.
  static const struct {
    uint64_t magic;
    const char* name;
  } kNames[] = {
      {0xEF53, "ext2/ext3/ext4"}, {0x58465342, "xfs"},
      {0x9123683E, "btrfs"},      {0x01021994, "tmpfs"},
      {0x858458F6, "ramfs"},      {0x6969, "nfs"},
      {0x794C7630, "overlayfs"},  {0x65735546, "fuse"},
      {0x2FC12FC1, "zfs"},        {0xF2F52010, "f2fs"},
      {0x00C36400, "ceph"},       {0x0BD00BD0, "lustre"},
      {0xFE534D42, "smb2"},       {0xFF534D42, "cifs"},
      {0x73717368, "squashfs"},   {0x47504653, "gpfs"},
      {0x19830326, "beegfs"},     {0x9FA0, "proc"},
      {0x62656572, "sysfs"},      {0x1CD1, "devpts"},
      {0x63677270, "cgroup2"},    {0x27E0EB, "cgroup"},
      {0x4D44, "vfat"},           {0x5346544E, "ntfs"},
      {0x9660, "iso9660"},        {0x3153464A, "jfs"},
      {0x52654973, "reiserfs"},   {0xCA451A4E, "bcachefs"},
      {0x958458F6, "hugetlbfs"},  {0x64626720, "debugfs"},
      {0x74726163, "tracefs"},    {0x42494E4D, "binfmt_misc"},
      {0x6E736673, "nsfs"},
  };
  for (const auto& n : kNames) {
    if (n.magic == magic) return n.name;
  }
  return "unknown";
}

void ProbePath(const std::vector<Mount>& mounts, PathReport* r) {
  struct stat st;
  if (stat(r->path.c_str(), &st) != 0) {
    r->exists = errno != ENOENT && errno != ENOTDIR;
    r->error = ErrnoText(errno);
    return;
  }
  struct statfs sf;
  if (statfs(r->path.c_str(), &sf) == 0) {
    r->statfs_magic = static_cast<uint64_t>(static_cast<unsigned long>(sf.f_type)) & 0xFFFFFFFFu;
    r->statfs_name = FileSystemName(r->statfs_magic);
  }
  if (const Mount* m = MountOf(mounts, r->path)) {
    r->mount_point = m->mount_point;
    r->mount_source = m->source;
    r->mount_fstype = m->fstype;
    r->mount_options = m->options;
  }
  if (S_ISDIR(st.st_mode)) {
    ProbeDirectory(r->path, r);
  } else if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
    ProbeFile(r->path, "the file", r);
  } else {
    r->error =
        "neither a directory, a regular file nor a block device (hipFile takes files and "
        "block devices)";
  }
}

}  // namespace hipfile_check
