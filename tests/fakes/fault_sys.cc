// SPDX-License-Identifier: MIT
#include "fakes/fault_sys.h"

#include <algorithm>
#include <cassert>

namespace hipfile::testing {

void FaultSys::ShortTransfers(SysOp op, size_t max_bytes) {
  MutexLock lock(mu_);
  switch (op) {
    case SysOp::kPread:
      pread_cap_ = max_bytes;
      break;
    case SysOp::kPwrite:
      pwrite_cap_ = max_bytes;
      break;
    case SysOp::kRingRead:
      ring_read_cap_ = max_bytes;
      break;
    case SysOp::kRingWrite:
      ring_write_cap_ = max_bytes;
      break;
    default:
      assert(false && "only reads and writes can be short");
  }
}

void FaultSys::Reset() {
  plan_.Reset();
  MutexLock lock(mu_);
  pread_cap_ = kNoCap;
  pwrite_cap_ = kNoCap;
  ring_read_cap_ = kNoCap;
  ring_write_cap_ = kNoCap;
}

size_t FaultSys::Cap(SysOp op) const {
  MutexLock lock(mu_);
  switch (op) {
    case SysOp::kPread:
      return pread_cap_;
    case SysOp::kPwrite:
      return pwrite_cap_;
    case SysOp::kRingRead:
      return ring_read_cap_;
    case SysOp::kRingWrite:
      return ring_write_cap_;
    default:
      return kNoCap;
  }
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

Result<size_t> FaultSys::PreadCached(int fd, void* buf, size_t size, off_t offset) {
  if (const int e = plan_.OnCall(Index(SysOp::kPreadCached))) return Status::Errno(e);
  const size_t cap = Cap(SysOp::kPread);
  if (cap == 0 && size > 0) return size_t{0};
  return base_.PreadCached(fd, buf, std::min(size, cap), offset);
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

Status FaultSys::Madvise(void* addr, size_t length, int advice) {
  if (const int e = plan_.OnCall(Index(SysOp::kMadvise))) return Status::Errno(e);
  return base_.Madvise(addr, length, advice);
}

Result<std::string> FaultSys::ReadLink(const char* path) {
  if (const int e = plan_.OnCall(Index(SysOp::kReadLink))) return Status::Errno(e);
  return base_.ReadLink(path);
}

Result<std::string> FaultSys::ReadTextFile(const char* path) {
  if (const int e = plan_.OnCall(Index(SysOp::kReadTextFile))) return Status::Errno(e);
  return base_.ReadTextFile(path);
}

Result<int> FaultSys::CreateMemoryFile(const char* name, unsigned flags) {
  if (const int e = plan_.OnCall(Index(SysOp::kCreateMemoryFile))) return Status::Errno(e);
  return base_.CreateMemoryFile(name, flags);
}

Status FaultSys::Ftruncate(int fd, off_t length) {
  if (const int e = plan_.OnCall(Index(SysOp::kFtruncate))) return Status::Errno(e);
  return base_.Ftruncate(fd, length);
}

Result<std::vector<std::string>> FaultSys::ListDirectory(const char* path) {
  if (const int e = plan_.OnCall(Index(SysOp::kListDirectory))) return Status::Errno(e);
  return base_.ListDirectory(path);
}

Result<std::thread> FaultSys::StartThread(std::function<void()> body) {
  if (const int e = plan_.OnCall(Index(SysOp::kStartThread))) return Status::Errno(e);
  return base_.StartThread(std::move(body));
}

}  // namespace hipfile::testing

namespace hipfile::testing {

Result<std::unique_ptr<platform::IoRing>> FaultSys::CreateIoRing(unsigned depth) {
  if (const int e = plan_.OnCall(Index(SysOp::kRingSetup))) return Status::Errno(e);
  Result<std::unique_ptr<platform::IoRing>> base = base_.CreateIoRing(depth);
  if (!base.ok()) return base.status();
  return std::unique_ptr<platform::IoRing>(new FaultRing(*this, std::move(base).value()));
}

Result<size_t> FaultRing::Submit(const platform::RingOp* ops, size_t n) {
  if (const int e = sys_.plan_.OnCall(FaultSys::Index(SysOp::kRingSubmit))) {
    return Status::Errno(e);
  }
  // Each op is one call of kRingRead or kRingWrite. Those that pass go to the base ring, capped;
  // the others complete here.
  std::vector<platform::RingOp> forwarded;
  std::vector<size_t> forwarded_index;  // forwarded[i] is ops[forwarded_index[i]]
  std::vector<std::pair<size_t, platform::RingCompletion>> made;
  for (size_t i = 0; i < n; ++i) {
    const SysOp op =
        ops[i].kind == platform::RingOp::Kind::kRead ? SysOp::kRingRead : SysOp::kRingWrite;
    if (const int e = sys_.plan_.OnCall(FaultSys::Index(op))) {
      made.push_back({i, {ops[i].tag, -static_cast<int64_t>(e)}});
      continue;
    }
    const size_t cap = sys_.Cap(op);
    if (cap == 0 && ops[i].size > 0) {
      made.push_back({i, {ops[i].tag, 0}});
      continue;
    }
    platform::RingOp capped = ops[i];
    capped.size = std::min(capped.size, cap);
    forwarded.push_back(capped);
    forwarded_index.push_back(i);
  }
  // The ops taken are a prefix of ops: all of them, or those before the first forwarded op the
  // base ring did not take.
  size_t taken = n;
  if (!forwarded.empty()) {
    Result<size_t> base_taken = base_->Submit(forwarded.data(), forwarded.size());
    const size_t k = base_taken.ok() ? *base_taken : 0;
    if (k < forwarded.size()) taken = forwarded_index[k];
    if (taken == 0) return base_taken.ok() ? Status::Errno(EBUSY) : base_taken.status();
  }
  for (const auto& [index, completion] : made) {
    if (index < taken) made_.push_back(completion);
  }
  return taken;
}

Result<size_t> FaultRing::Wait(platform::RingCompletion* out, size_t max, size_t min) {
  if (const int e = sys_.plan_.OnCall(FaultSys::Index(SysOp::kRingWait))) return Status::Errno(e);
  const size_t own = std::min(made_.size(), max);
  std::copy(made_.begin(), made_.begin() + static_cast<ptrdiff_t>(own), out);
  made_.erase(made_.begin(), made_.begin() + static_cast<ptrdiff_t>(own));
  if (own >= min && own > 0) return own;
  Result<size_t> base = base_->Wait(out + own, max - own, min - own);
  if (!base.ok()) {
    // Keep the completions already taken for the next Wait.
    made_.insert(made_.begin(), out, out + own);
    return base.status();
  }
  return own + *base;
}

}  // namespace hipfile::testing
