// SPDX-License-Identifier: MIT
// hipfile_ext.h's path statistics: hipFileExtGetPathStats and the names of paths and reasons;
// the latency buckets and ais-stats' per-GPU tables (hipFileExtGetLatencyStats,
// hipFileExtGetGpuStats); where stream-ordered operations' time went and the way each went
// (hipFileExtGetAsyncStageStats, hipFileExtGetAsyncWayStats); the waits for the engine's copies
// (hipFileExtGetCopyWaitStats). Like the hipFileGetStats functions, they do not open the driver.
#include <hipfile.h>
#include <hipfile_ext.h>

#include "api/status_map.h"
#include "core/driver.h"
#include "engine/io_path.h"

using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::core::Driver;
namespace engine = hipfile::engine;

// hipfile_ext.h's values are the engine's.
static_assert(hipFileExtPathPageCache == static_cast<int>(engine::IoPath::kPageCache) &&
                  hipFileExtPathDirect == static_cast<int>(engine::IoPath::kDirect) &&
                  hipFileExtPathBuffered == static_cast<int>(engine::IoPath::kBuffered) &&
                  hipFileExtPathIoUring == static_cast<int>(engine::IoPath::kIoUring) &&
                  hipFileExtPathHost == static_cast<int>(engine::IoPath::kHost) &&
                  HIPFILE_EXT_PATH_COUNT == engine::kIoPathCount,
              "hipFileExtPath_t and engine::IoPath differ");
static_assert(hipFileExtFallbackNone == static_cast<int>(engine::Fallback::kNone) &&
                  hipFileExtFallbackNoDirect == static_cast<int>(engine::Fallback::kNoDirect) &&
                  hipFileExtFallbackDirectOff == static_cast<int>(engine::Fallback::kDirectOff) &&
                  hipFileExtFallbackPinnedPages ==
                      static_cast<int>(engine::Fallback::kPinnedPages) &&
                  hipFileExtFallbackUnaligned == static_cast<int>(engine::Fallback::kUnaligned) &&
                  hipFileExtFallbackSmall == static_cast<int>(engine::Fallback::kSmall) &&
                  hipFileExtFallbackWarm == static_cast<int>(engine::Fallback::kWarm) &&
                  hipFileExtFallbackNotPinned == static_cast<int>(engine::Fallback::kNotPinned) &&
                  hipFileExtFallbackDirectRefused ==
                      static_cast<int>(engine::Fallback::kDirectRefused) &&
                  hipFileExtFallbackNoRing == static_cast<int>(engine::Fallback::kNoRing) &&
                  HIPFILE_EXT_FALLBACK_COUNT == engine::kFallbackCount,
              "hipFileExtFallback_t and engine::Fallback differ");

extern "C" {

HIPFILE_API hipFileError_t hipFileExtGetPathStats(hipFileExtPathStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetPathStats", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillPaths(stats);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtGetLatencyStats(hipFileExtLatencyStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetLatencyStats", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillLatency(stats);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtGetAsyncStageStats(hipFileExtAsyncStageStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetAsyncStageStats", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().async_stage_stats().Fill(stats);
    return Success();
  });
}

HIPFILE_API const char* hipFileExtAsyncStageName(int stage) {
  static const char* const kNames[HIPFILE_EXT_ASYNC_STAGES] = {"submit",  "reach", "handoff", "io",
                                                               "release", "copy",  "total"};
  return stage >= 0 && stage < HIPFILE_EXT_ASYNC_STAGES ? kNames[stage] : "unknown";
}

HIPFILE_API hipFileError_t hipFileExtGetAsyncWayStats(hipFileExtAsyncWayStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetAsyncWayStats", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillAsyncWays(stats);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileExtGetCopyWaitStats(hipFileExtCopyWaitStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetCopyWaitStats", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillCopyWaits(stats);
    return Success();
  });
}

HIPFILE_API const char* hipFileExtAsyncWayName(int way) {
  static const char* const kNames[HIPFILE_EXT_ASYNC_WAY_COUNT] = {
      "run_at_once", "read_at_submission", "copied_at_submission", "staged",
      "worker",      "host_function"};
  return way >= 0 && way < HIPFILE_EXT_ASYNC_WAY_COUNT ? kNames[way] : "unknown";
}

HIPFILE_API hipFileError_t hipFileExtGetGpuStats(int device, hipFileExtGpuStats_t* stats) {
  return hipfile::api::GuardError("hipFileExtGetGpuStats", [&] {
    if (stats == nullptr || device < 0 || device >= HIPFILE_MAX_GPUS) {
      return OpError(hipFileInvalidValue);
    }
    Driver::Global().stats().FillGpu(device, stats);
    return Success();
  });
}

HIPFILE_API const char* hipFileExtPathName(int path) {
  if (path < 0 || path >= HIPFILE_EXT_PATH_COUNT) return "unknown";
  return engine::IoPathName(static_cast<engine::IoPath>(path));
}

HIPFILE_API const char* hipFileExtFallbackName(int why) {
  if (why < 0 || why >= HIPFILE_EXT_FALLBACK_COUNT) return "unknown";
  return engine::FallbackName(static_cast<engine::Fallback>(why));
}

}  // extern "C"
