// SPDX-License-Identifier: MIT
// The configuration in force: every HIPFILE_* variable of the environment, and every parameter's
// value through hipFileGetParameter*, with where it came from.
#pragma once

#include <string>

#include "read_path.h"
#include "report.h"

namespace hipfile_check {

// Reads the environment and the parameters (no driver open needed).
Config ReadConfig();

// The settings the read path depends on that no parameter exposes, from the environment as the
// library parses them (src/core/config.cc): HIPFILE_PAGE_CACHE, HIPFILE_PAGE_CACHE_PIN_AFTER,
// HIPFILE_IO_URING. A value the library would refuse reads as its default, as there.
void ReadPathSettings(ReadPathInputs* in);

// The value of a bool parameter in `c` ("true"/"false"), or `fallback`.
bool BoolParameter(const Config& c, const std::string& name, bool fallback);

}  // namespace hipfile_check
