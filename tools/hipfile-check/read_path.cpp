// SPDX-License-Identifier: MIT
#include "read_path.h"

namespace hipfile_check {

namespace {

// EngineOptions' defaults (src/engine/sync_io.h) and the planner's (src/engine/plan.h).
constexpr const char* kResidencyMin = "1 MiB";  // residency_min_bytes, page_cache_min_bytes
constexpr const char* kDirectMin = "64 KiB";    // direct_min_bytes
constexpr const char* kGroupedMax = "256 KiB";  // SyncEngine::kMaxGroupedBytes

std::string Nth(unsigned n) {
  if (n == 1) return "first";
  if (n == 2) return "second";
  if (n == 3) return "third";
  return std::to_string(n) + "th";
}

void BatchClause(const ReadPathInputs& in, ReadPath* p) {
  if (!in.compat_allowed) return;  // small entries are not grouped then
  std::string how;
  if (!in.io_uring) {
    how = "one pread after another (HIPFILE_IO_URING is off)";
  } else if (in.io_uring_usable == Tri::kYes) {
    how = "their preads in one io_uring submission (where the library was built with liburing)";
  } else {
    how = "one pread after another (io_uring cannot be used here)";
  }
  p->clauses.push_back(std::string("batch entries of at most ") + kGroupedMax +
                       " on one device: grouped through one staging buffer, " + how);
}

}  // namespace

ReadPath DescribeReadPath(const ReadPathInputs& in) {
  ReadPath p;
  const bool direct = in.o_direct == Tri::kYes;
  if (in.device_memory_is_host) {
    // Not staged: the syscalls fill the memory itself; the page-cache path is for staged reads
    // only, and host memory is never refused (allow_compat does not apply).
    p.usable = true;
    if (direct) {
      p.clauses.push_back(std::string("cold data, reads of ") + kResidencyMin +
                          " or more: O_DIRECT straight into the device memory (host memory on "
                          "the CPU runtime) for the aligned body where the memory is aligned");
      p.clauses.push_back("everything else: pread through the page cache straight into it");
    } else {
      p.clauses.push_back(
          "pread through the page cache straight into the device memory (host memory on the CPU "
          "runtime)" +
          std::string(in.o_direct == Tri::kNo ? "; no O_DIRECT here" : ""));
    }
    return p;
  }

  if (!in.compat_allowed) {
    // Direct-only (plan.h, "compat_allowed false"): no residency lookup, no window pinned.
    if (direct) {
      p.usable = true;
      p.clauses.push_back(
          "O_DIRECT only, into pinned staging, then copied to the GPU (cached data too; the last "
          "block of a read reaching an unaligned end of file is read whole)");
      p.clauses.push_back(
          "refused: offsets, sizes or memory off the O_DIRECT alignment "
          "(HIPFILE_ALLOW_COMPAT_MODE is off)");
    } else {
      p.usable = false;
      p.clauses.push_back(
          std::string("refused: ") +
          (in.o_direct == Tri::kNo ? "this file system has no O_DIRECT"
                                   : "O_DIRECT could not be probed here") +
          " and the compatibility path is off (HIPFILE_ALLOW_COMPAT_MODE); reads into pinned "
          "host memory still work");
    }
    return p;
  }

  p.usable = true;
  const bool page_cache = in.page_cache != PageCacheSetting::kOff;
  if (page_cache) {
    p.clauses.push_back(std::string("warm data (resident spans of ") + kResidencyMin +
                        " or more, reads of " + kResidencyMin +
                        " or more): the GPU copies from pinned page-cache windows, from a "
                        "window's " +
                        Nth(in.pin_after) + " read on (through staging before)");
  } else {
    p.clauses.push_back("warm data: as cold data (the page-cache path is off: HIPFILE_PAGE_CACHE)");
  }
  if (direct) {
    p.clauses.push_back(std::string("cold data: O_DIRECT into pinned staging, then copied to the "
                                    "GPU (aligned bodies of ") +
                        kDirectMin + " or more)");
    p.clauses.push_back(
        "the rest (unaligned heads and tails, small reads, data of unknown residency): pread "
        "through the page cache into pinned staging (the compatibility path)");
  } else {
    p.clauses.push_back(
        std::string("cold data: pread through the page cache into pinned staging, then copied "
                    "to the GPU (the compatibility path; ") +
        (in.o_direct == Tri::kNo ? "no O_DIRECT here)" : "O_DIRECT could not be probed here)"));
  }
  BatchClause(in, &p);
  return p;
}

}  // namespace hipfile_check
