// SPDX-License-Identifier: MIT
// Whole-range pread/pwrite loops over Sys: the retry and short-count rules of the data path.
//
// EINTR and EAGAIN are retried, at most kMaxConsecutiveRetries times in a row (a descriptor that
// keeps answering EAGAIN is reported rather than spun on forever). Short counts are continued.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "platform/sys.h"
#include "util/status.h"

namespace hipfile::engine {

inline constexpr int kMaxConsecutiveRetries = 64;

// A transfer that may stop part way: the bytes that moved, and the error that stopped it
// (Ok when it completed or, for reads, reached end of file).
struct Transfer {
  size_t bytes = 0;
  Status status;
};

// Reads until `size` bytes arrived, end of file (pread returned 0), or an error.
Transfer PreadFull(platform::Sys& sys, int fd, void* buf, size_t size, off_t offset);

// Writes all `size` bytes or stops at an error. pwrite returning 0 for a nonzero request makes
// no progress and sets no errno; it is tried once more, then reported as EIO.
Transfer PwriteFull(platform::Sys& sys, int fd, const void* buf, size_t size, off_t offset);

// PreadFull on an O_DIRECT descriptor, whose offsets must stay aligned: a count that is not a
// multiple of `align` can only come from end of file, so it ends the transfer (asking again at
// the unaligned offset would fail with EINVAL rather than return 0).
Transfer PreadDirect(platform::Sys& sys, int fd, void* buf, size_t size, off_t offset,
                     size_t align);

}  // namespace hipfile::engine
