// SPDX-License-Identifier: MIT
// hipfile._hipfile's low-level layer: AMD's wrappers of the C API under their names, with their
// signatures and tuple returns (../shared/reference/hipfile-spec.md §6), so AMD's pure-Python
// layer - and code written against it - runs unchanged. Every call into the library releases the
// GIL.
#pragma once

#include <nanobind/nanobind.h>

namespace hipfile::python {

void BindLowLevel(nanobind::module_& m);

}  // namespace hipfile::python
