// SPDX-License-Identifier: MIT
// cuFile's statistics calls: cuFileGetStatsL1/L2/L3 over hipFile's (the structs have the same
// members in the same order: copied whole), and cuFileSetStatsLevel, cuFileGetStatsLevel,
// cuFileStatsStart/Stop/Reset over the core's statistics, which hipFile's API does not reach.
#include <cufile/cufile.h>
#include <hipfile.h>

#include <cstddef>
#include <cstring>

#include "api/status_map.h"
#include "core/driver.h"
#include "cufile/error_map.h"

using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::api::ToError;
using hipfile::core::Driver;
using hipfile::cufile::ToCuFile;

namespace {

static_assert(sizeof(CUfileStatsLevel1_t) == sizeof(hipFileStatsLevel1_t));
static_assert(offsetof(CUfileStatsLevel1_t, last_batch_write_bytes) ==
              offsetof(hipFileStatsLevel1_t, last_batch_write_bytes));
static_assert(sizeof(CUfileStatsLevel2_t) == sizeof(hipFileStatsLevel2_t));
static_assert(offsetof(CUfileStatsLevel2_t, write_size_kb_hist) ==
              offsetof(hipFileStatsLevel2_t, write_size_kb_hist));
static_assert(sizeof(CUfileStatsLevel3_t) == sizeof(hipFileStatsLevel3_t));
static_assert(offsetof(CUfileStatsLevel3_t, per_gpu_stats) ==
              offsetof(hipFileStatsLevel3_t, per_gpu_stats));
static_assert(sizeof(CUfilePerGpuStats_t) == sizeof(hipFilePerGpuStats_t));
static_assert(offsetof(CUfilePerGpuStats_t, writes_bytes) ==
              offsetof(hipFilePerGpuStats_t, write_bytes));
static_assert(offsetof(CUfilePerGpuStats_t, reg_bytes) ==
              offsetof(hipFilePerGpuStats_t, reg_bytes));

// hipFile's counters read into hipFile's struct, then copied into cuFile's (same layout).
template <class Cu, class Hip>
CUfileError_t Fill(Cu* out, hipFileError_t (*get)(Hip*)) {
  if (out == nullptr) return ToCuFile(OpError(hipFileInvalidValue));
  Hip stats;
  const hipFileError_t status = get(&stats);
  if (status.err == hipFileSuccess) std::memcpy(out, &stats, sizeof stats);
  return ToCuFile(status);
}

// Start, Stop and Reset act on an open driver's counters.
template <class Fn>
CUfileError_t WhileOpen(const char* name, Fn&& fn) {
  return ToCuFile(hipfile::api::GuardError(name, [&] {
    Driver& driver = Driver::Global();
    if (driver.UseCount() <= 0) return OpError(hipFileDriverNotInitialized);
    fn(driver);
    return Success();
  }));
}

}  // namespace

extern "C" {

CUFILE_API CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t* stats) {
  return Fill(stats, &hipFileGetStatsL1);
}

CUFILE_API CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t* stats) {
  return Fill(stats, &hipFileGetStatsL2);
}

CUFILE_API CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t* stats) {
  return Fill(stats, &hipFileGetStatsL3);
}

CUFILE_API CUfileError_t cuFileSetStatsLevel(int level) {
  return ToCuFile(hipfile::api::GuardError("cuFileSetStatsLevel", [&] {
    if (level < 0 || level > 3) return OpError(hipFileInvalidValue);
    return ToError(Driver::Global().SetStatsLevel(static_cast<size_t>(level)));
  }));
}

CUFILE_API CUfileError_t cuFileGetStatsLevel(int* level) {
  return ToCuFile(hipfile::api::GuardError("cuFileGetStatsLevel", [&] {
    if (level == nullptr) return OpError(hipFileInvalidValue);
    *level = static_cast<int>(Driver::Global().StatsLevel());
    return Success();
  }));
}

CUFILE_API CUfileError_t cuFileStatsStart(void) {
  return WhileOpen("cuFileStatsStart", [](Driver& driver) { driver.stats().Resume(); });
}

CUFILE_API CUfileError_t cuFileStatsStop(void) {
  return WhileOpen("cuFileStatsStop", [](Driver& driver) { driver.stats().Pause(); });
}

CUFILE_API CUfileError_t cuFileStatsReset(void) {
  return WhileOpen("cuFileStatsReset", [](Driver& driver) { driver.stats().Reset(); });
}

}  // extern "C"
