// SPDX-License-Identifier: MIT
// The threads behind FileHandle.pread / pwrite: each future is one synchronous library call
// (hipFileRead/Write, or hipFileExtReadHost/WriteHost for host memory) run off the caller's
// thread. The library's engine splits and parallelises each call itself; these threads only let
// Python carry on meanwhile and keep several calls in flight.
#pragma once

#include <nanobind/nanobind.h>

namespace hipfile::python {

void BindExecutor(nanobind::module_& m);

}  // namespace hipfile::python
