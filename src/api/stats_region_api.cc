// SPDX-License-Identifier: MIT
// hipfile_ext.h's readers of another process's statistics (core/stats_region.h). They never touch
// the process's Driver: a tool that reads statistics publishes none.
#include <hipfile.h>
#include <hipfile_ext.h>

#include <cstring>
#include <memory>
#include <utility>

#include "api/status_map.h"
#include "core/stats_region.h"
#include "platform/sys.h"

using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::StatsRegion;

struct hipFileExtStatsRegion {
  std::unique_ptr<StatsRegion> region;
};

extern "C" {

HIPFILE_API hipFileError_t hipFileExtStatsRegionCreate(int* fd) {
  return hipfile::api::GuardError("hipFileExtStatsRegionCreate", [&] {
    if (fd == nullptr) return OpError(hipFileInvalidValue);
    hipfile::Result<std::unique_ptr<StatsRegion>> made =
        StatsRegion::Create(hipfile::platform::RealSys());
    if (!made.ok()) return ToError(made.status());
    // The mapping goes; the memory file stays, the caller's.
    *fd = (*made)->ReleaseFd();
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsOpen(int pid, int fd, hipFileExtStatsRegion_t** region) {
  return hipfile::api::GuardError("hipFileExtStatsOpen", [&] {
    if (region == nullptr || (pid > 0) == (fd >= 0) || pid < 0) {
      return OpError(hipFileInvalidValue);
    }
    hipfile::platform::Sys& sys = hipfile::platform::RealSys();
    hipfile::Result<std::unique_ptr<StatsRegion>> found =
        pid > 0 ? StatsRegion::Find(sys, pid) : StatsRegion::Map(sys, fd, false, false);
    if (!found.ok()) return ToError(found.status());
    *region = new hipFileExtStatsRegion{std::move(*found)};
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsRead(const hipFileExtStatsRegion_t* region,
                                               hipFileExtProcessStats_t* out) {
  return hipfile::api::GuardError("hipFileExtStatsRead", [&] {
    if (region == nullptr || out == nullptr) return OpError(hipFileInvalidValue);
    std::memset(out, 0, sizeof *out);
    const StatsRegion& r = *region->region;
    const hipfile::core::StatsCounters& c = r.counters();
    out->pid = r.header().pid.load(std::memory_order_acquire);
    out->level = c.level.load(std::memory_order_relaxed);
    out->published_unix_ns = r.header().published_unix_ns.load(std::memory_order_relaxed);
    hipfile::core::FillL3(c, &out->stats);
    hipfile::core::FillPaths(c, &out->paths);
    hipfile::core::FillProcessExtras(c, out);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsReadLatency(const hipFileExtStatsRegion_t* region,
                                                      hipFileExtLatencyStats_t* out) {
  return hipfile::api::GuardError("hipFileExtStatsReadLatency", [&] {
    if (region == nullptr || out == nullptr) return OpError(hipFileInvalidValue);
    hipfile::core::FillLatency(region->region->counters(), out);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsReadGpu(const hipFileExtStatsRegion_t* region, int device,
                                                  hipFileExtGpuStats_t* out) {
  return hipfile::api::GuardError("hipFileExtStatsReadGpu", [&] {
    if (region == nullptr || out == nullptr || device < 0 || device >= HIPFILE_MAX_GPUS) {
      return OpError(hipFileInvalidValue);
    }
    hipfile::core::FillGpu(region->region->counters(), device, out);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsReadAsyncWays(const hipFileExtStatsRegion_t* region,
                                                        hipFileExtAsyncWayStats_t* out) {
  return hipfile::api::GuardError("hipFileExtStatsReadAsyncWays", [&] {
    if (region == nullptr || out == nullptr) return OpError(hipFileInvalidValue);
    hipfile::core::FillAsyncWays(region->region->counters(), out);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtStatsReadCopyWaits(const hipFileExtStatsRegion_t* region,
                                                        hipFileExtCopyWaitStats_t* out) {
  return hipfile::api::GuardError("hipFileExtStatsReadCopyWaits", [&] {
    if (region == nullptr || out == nullptr) return OpError(hipFileInvalidValue);
    hipfile::core::FillCopyWaits(region->region->counters(), out);
    return Success();
  });
}

HIPFILE_API void hipFileExtStatsClose(hipFileExtStatsRegion_t* region) { delete region; }

}  // extern "C"
