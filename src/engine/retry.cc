// SPDX-License-Identifier: MIT
#include "engine/retry.h"

#include <errno.h>

namespace hipfile::engine {
namespace {

bool IsRetryable(Status s) { return s.IsErrno(EINTR) || s.IsErrno(EAGAIN); }

}  // namespace

Transfer PreadFull(platform::Sys& sys, int fd, void* buf, size_t size, off_t offset) {
  Transfer t;
  int retries = 0;
  while (t.bytes < size) {
    Result<size_t> n = sys.Pread(fd, static_cast<char*>(buf) + t.bytes, size - t.bytes,
                                 offset + static_cast<off_t>(t.bytes));
    if (!n.ok()) {
      if (IsRetryable(n.status()) && ++retries <= kMaxConsecutiveRetries) continue;
      t.status = n.status();
      break;
    }
    retries = 0;
    if (*n == 0) break;  // end of file
    t.bytes += *n;
  }
  return t;
}

Transfer PreadDirect(platform::Sys& sys, int fd, void* buf, size_t size, off_t offset,
                     size_t align) {
  Transfer t;
  int retries = 0;
  while (t.bytes < size) {
    Result<size_t> n = sys.Pread(fd, static_cast<char*>(buf) + t.bytes, size - t.bytes,
                                 offset + static_cast<off_t>(t.bytes));
    if (!n.ok()) {
      if (IsRetryable(n.status()) && ++retries <= kMaxConsecutiveRetries) continue;
      t.status = n.status();
      break;
    }
    retries = 0;
    t.bytes += *n;
    if (*n == 0 || *n % align != 0) break;  // end of file
  }
  return t;
}

Transfer PwriteFull(platform::Sys& sys, int fd, const void* buf, size_t size, off_t offset) {
  Transfer t;
  int retries = 0;
  int zero_writes = 0;
  while (t.bytes < size) {
    Result<size_t> n = sys.Pwrite(fd, static_cast<const char*>(buf) + t.bytes, size - t.bytes,
                                  offset + static_cast<off_t>(t.bytes));
    if (!n.ok()) {
      if (IsRetryable(n.status()) && ++retries <= kMaxConsecutiveRetries) continue;
      t.status = n.status();
      break;
    }
    retries = 0;
    if (*n == 0) {
      if (++zero_writes < 2) continue;
      t.status = Status::Errno(EIO);
      break;
    }
    zero_writes = 0;
    t.bytes += *n;
  }
  return t;
}

}  // namespace hipfile::engine
