// SPDX-License-Identifier: MIT
#include "page_cache.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace hipfile_bench {

double CachedShare(int fd, uint64_t size) {
  struct stat st = {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return -1;
  const uint64_t end = std::min(size, static_cast<uint64_t>(std::max<off_t>(st.st_size, 0)));
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (size == 0 || page_size <= 0) return -1;
  const auto page = static_cast<uint64_t>(page_size);
  // The data set's pages past the end of the file count, as not cached.
  const uint64_t pages = (size + page - 1) / page;
  // A window a multiple of the page size, so that each mapping's offset is one too.
  const uint64_t window = (uint64_t{1} << 30) / page * page;
  std::vector<unsigned char> resident;
  uint64_t cached = 0;
  for (uint64_t at = 0; at < end; at += window) {
    const auto length = static_cast<size_t>(std::min(window, end - at));
    void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(at));
    if (map == MAP_FAILED) return -1;
    resident.resize((length + page - 1) / page);
    const int rc = ::mincore(map, length, resident.data());
    ::munmap(map, length);
    if (rc != 0) return -1;
    for (const unsigned char r : resident) cached += r & 1u;
  }
  return static_cast<double>(cached) / static_cast<double>(pages);
}

std::string CachedText(double share) {
  if (share < 0) return "unknown";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

std::string CachedJson(double share) {
  if (share < 0) return "null";
  char text[16];
  std::snprintf(text, sizeof text, "%.4f", share);
  return text;
}

}  // namespace hipfile_bench
