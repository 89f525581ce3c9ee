// SPDX-License-Identifier: MIT
// The configuration in force: every HIPFILE_* variable of the environment, and every parameter's
// value through hipFileGetParameter*, with where it came from (hipFileExtGet*Source).
#pragma once

#include <string>

#include "report.h"

namespace hipfile_check {

// Reads the environment and the parameters (no driver open needed).
Config ReadConfig();

// The value of a bool parameter in `c` ("true"/"false"), or `fallback`.
bool BoolParameter(const Config& c, const std::string& name, bool fallback);

}  // namespace hipfile_check
