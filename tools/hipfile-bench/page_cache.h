// SPDX-License-Identifier: MIT
// How much of hipfile-bench's data set the page cache holds when a run starts: a warm run and a
// cold one of the same command differ by orders of magnitude, and a run can find the file cold
// without anyone asking (the library's O_DIRECT writes drop the pages they write), so the result
// says which it measured (docs/tools.md, "Cached").
#pragma once

#include <cstdint>
#include <string>

namespace hipfile_bench {

// The share, from 0 to 1, of the pages of bytes [0, size) of the file open as `fd` (readable) that
// are in the page cache now, by mincore over a read-only shared mapping, 1 GiB at a time; pages
// past the end of the file count as not cached (a new file for a write run: 0). Negative where the
// system cannot say (an empty range, a file that cannot be mapped).
double CachedShare(int fd, uint64_t size);

// "100.0%", "0.3%"; "unknown" for a negative share.
std::string CachedText(double share);
// The JSON value: "1.0000", "0.0031"; null for a negative share.
std::string CachedJson(double share);

}  // namespace hipfile_bench
