// SPDX-License-Identifier: MIT
// hipFileBatchIO* for hipfile.Batch: entries in, events out, the GIL released around every call.
#pragma once

#include <nanobind/nanobind.h>

namespace hipfile::python {

void BindBatch(nanobind::module_& m);

}  // namespace hipfile::python
