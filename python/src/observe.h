// SPDX-License-Identifier: MIT
// Statistics and parameters for hipfile.stats() and hipfile.config: hipFileGetStatsL1 and
// hipFileExtGetPathStats as dictionaries, hipFileGet/SetParameter* by name.
#pragma once

#include <nanobind/nanobind.h>

namespace hipfile::python {

void BindObserve(nanobind::module_& m);

}  // namespace hipfile::python
