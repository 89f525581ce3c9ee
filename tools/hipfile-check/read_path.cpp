// SPDX-License-Identifier: MIT
#include "read_path.h"

#include <cstdio>

namespace hipfile_check {

namespace {

std::string Size(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string Nth(unsigned n) {
  if (n == 1) return "first";
  if (n == 2) return "second";
  if (n == 3) return "third";
  return std::to_string(n) + "th";
}

std::string Summary(const hipFileExtIoRule_t& r) {
  std::string s = r.staged ? "GPU memory through pinned staging"
                           : "GPU memory is host memory (the CPU runtime): straight into it";
  s += "; reads under " + Size(r.residency_min_bytes) + " are small";
  if (r.ways[hipFileExtIoReadWarm].path == hipFileExtPathPageCache) {
    s += "; a page-cache window pinned at its " + Nth(r.pin_after) + " read";
  }
  if (r.grouped_max_bytes > 0) {
    s += "; batch entries up to " + Size(r.grouped_max_bytes) + " grouped" +
         (r.io_uring ? ", one io_uring submission" : ", one pread after another");
  }
  if (!r.compat_allowed) s += "; the compatibility path is off";
  return s;
}

}  // namespace

std::string WayText(const hipFileExtIoWay_t& way) {
  std::string text = hipFileExtPathName(way.path);
  if (way.o_direct && way.path == hipFileExtPathHost) text += ", O_DIRECT";
  if (way.fallback != hipFileExtFallbackNone) {
    text += std::string(" (") + hipFileExtFallbackName(way.fallback) + ")";
  }
  if (way.refused) text = "refused: " + text + ", and the compatibility path is off";
  return text;
}

ReadPath DescribeReadPath(const hipFileExtIoRule_t& rule) {
  ReadPath p;
  p.clauses.push_back(Summary(rule));
  for (int c = 0; c < HIPFILE_EXT_IO_CASE_COUNT; ++c) {
    char line[256];
    std::snprintf(line, sizeof line, "%-19s %s", hipFileExtIoCaseName(c),
                  WayText(rule.ways[c]).c_str());
    p.clauses.push_back(line);
  }
  p.usable = !rule.ways[hipFileExtIoReadCold].refused;
  return p;
}

}  // namespace hipfile_check
