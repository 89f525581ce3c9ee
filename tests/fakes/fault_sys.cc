#include "fakes/fault_sys.h"

#include <algorithm>
#include <cassert>

namespace hipfile::testing {

void FaultSys::ShortTransfers(SysOp op, size_t max_bytes) {
  assert(op == SysOp::kPread || op == SysOp::kPwrite);
  std::lock_guard<std::mutex> lock(mu_);
  (op == SysOp::kPread ? pread_cap_ : pwrite_cap_) = max_bytes;
}

void FaultSys::Reset() {
  plan_.Reset();
  std::lock_guard<std::mutex> lock(mu_);
  pread_cap_ = kNoCap;
  pwrite_cap_ = kNoCap;
}

size_t FaultSys::Cap(SysOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return op == SysOp::kPread ? pread_cap_ : pwrite_cap_;
}

Result<int> FaultSys::Open(const char* path, int flags, mode_t mode) {
  if (const int e = plan_.OnCall(Index(SysOp::kOpen))) return Status::Errno(e);
  return base_.Open(path, flags, mode);
}

Status FaultSys::Close(int fd) {
  if (const int e = plan_.OnCall(Index(SysOp::kClose))) return Status::Errno(e);
  return base_.Close(fd);
}

Result<size_t> FaultSys::Pread(int fd, void* buf, size_t size, off_t offset) {
  if (const int e = plan_.OnCall(Index(SysOp::kPread))) return Status::Errno(e);
  const size_t cap = Cap(SysOp::kPread);
  if (cap == 0 && size > 0) return size_t{0};
  return base_.Pread(fd, buf, std::min(size, cap), offset);
}

Result<size_t> FaultSys::Pwrite(int fd, const void* buf, size_t size, off_t offset) {
  if (const int e = plan_.OnCall(Index(SysOp::kPwrite))) return Status::Errno(e);
  const size_t cap = Cap(SysOp::kPwrite);
  if (cap == 0 && size > 0) return size_t{0};
  return base_.Pwrite(fd, buf, std::min(size, cap), offset);
}

Status FaultSys::Fsync(int fd) {
  if (const int e = plan_.OnCall(Index(SysOp::kFsync))) return Status::Errno(e);
  return base_.Fsync(fd);
}

Status FaultSys::Fdatasync(int fd) {
  if (const int e = plan_.OnCall(Index(SysOp::kFdatasync))) return Status::Errno(e);
  return base_.Fdatasync(fd);
}

Result<int> FaultSys::GetFileFlags(int fd) {
  if (const int e = plan_.OnCall(Index(SysOp::kGetFileFlags))) return Status::Errno(e);
  return base_.GetFileFlags(fd);
}

Status FaultSys::Fstat(int fd, struct stat* st) {
  if (const int e = plan_.OnCall(Index(SysOp::kFstat))) return Status::Errno(e);
  return base_.Fstat(fd, st);
}

Status FaultSys::Statx(int fd, unsigned mask, struct statx* out) {
  if (const int e = plan_.OnCall(Index(SysOp::kStatx))) return Status::Errno(e);
  return base_.Statx(fd, mask, out);
}

Result<void*> FaultSys::Mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (const int e = plan_.OnCall(Index(SysOp::kMmap))) return Status::Errno(e);
  return base_.Mmap(addr, length, prot, flags, fd, offset);
}

Status FaultSys::Munmap(void* addr, size_t length) {
  if (const int e = plan_.OnCall(Index(SysOp::kMunmap))) return Status::Errno(e);
  return base_.Munmap(addr, length);
}

Status FaultSys::Mincore(void* addr, size_t length, unsigned char* vec) {
  if (const int e = plan_.OnCall(Index(SysOp::kMincore))) return Status::Errno(e);
  return base_.Mincore(addr, length, vec);
}

Result<std::string> FaultSys::ReadTextFile(const char* path) {
  if (const int e = plan_.OnCall(Index(SysOp::kReadTextFile))) return Status::Errno(e);
  return base_.ReadTextFile(path);
}

}  // namespace hipfile::testing
