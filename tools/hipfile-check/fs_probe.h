// SPDX-License-Identifier: MIT
// One path's file system: its type (statfs and the mount table), whether O_DIRECT works there (a
// probe file created, written, read back and removed), and its O_DIRECT alignment (statx
// STATX_DIOALIGN).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mounts.h"
#include "report.h"

namespace hipfile_check {

// The name of a statfs f_type, "unknown" when it is not one this table has.
const char* FileSystemName(uint64_t magic);

// Fills path's file-system facts (everything but read_path and usable). A directory is probed
// with a file created in it; one that cannot be written (EACCES, EROFS, EPERM) through a regular
// file already there, opened read-only; a file or block device through itself, read-only.
void ProbePath(const std::vector<Mount>& mounts, PathReport* r);

}  // namespace hipfile_check
