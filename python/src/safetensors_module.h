// SPDX-License-Identifier: MIT
// The safetensors header parser (safetensors_header.h) for hipfile.safetensors: bytes in, a
// ValueError naming the file and the problem out.
#pragma once

#include <nanobind/nanobind.h>

namespace hipfile::python {

void BindSafetensors(nanobind::module_& m);

}  // namespace hipfile::python
