// SPDX-License-Identifier: MIT
#include "report.h"

namespace hipfile_check {

const char* TriName(Tri t) {
  switch (t) {
    case Tri::kYes:
      return "yes";
    case Tri::kNo:
      return "no";
    case Tri::kUnknown:
      return "unknown";
  }
  return "unknown";
}

bool CanDoIo(const Report& r) {
  if (!r.platform.driver_opened) return false;
  if (r.paths.empty()) return !r.paths_given;
  bool all = true, any = false;
  for (const PathReport& p : r.paths) {
    all = all && p.usable;
    any = any || p.usable;
  }
  return r.paths_given ? all : any;
}

}  // namespace hipfile_check
