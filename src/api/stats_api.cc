// SPDX-License-Identifier: MIT
// Statistics: hipFileGetStatsL1/L2/L3. They do not open the driver.
#include <hipfile.h>

#include "api/status_map.h"
#include "core/driver.h"

using hipfile::api::OpError;
using hipfile::api::Success;
using hipfile::core::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t* stats) {
  return hipfile::api::GuardError("hipFileGetStatsL1", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillL1(stats);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t* stats) {
  return hipfile::api::GuardError("hipFileGetStatsL2", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver::Global().stats().FillL2(stats);
    return Success();
  });
}

HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t* stats) {
  return hipfile::api::GuardError("hipFileGetStatsL3", [&] {
    if (stats == nullptr) return OpError(hipFileInvalidValue);
    Driver& driver = Driver::Global();
    driver.stats().FillL3(stats, driver.gpu());
    return Success();
  });
}

}  // extern "C"
