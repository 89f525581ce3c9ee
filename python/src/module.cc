// SPDX-License-Identifier: MIT
// hipfile._hipfile: the extension module under the Python package (python/hipfile).
#include <nanobind/nanobind.h>

#include "array_view.h"
#include "batch.h"
#include "executor.h"
#include "low_level.h"
#include "observe.h"
#include "safetensors_module.h"

NB_MODULE(_hipfile, m) {
  m.doc() =
      "Low-level bindings of the hipFile C API (AMD's names, signatures and (err, hip_err) tuple "
      "returns), and the pieces the package's array API is built on.";
  hipfile::python::BindLowLevel(m);
  hipfile::python::BindArrayView(m);
  hipfile::python::BindExecutor(m);
  hipfile::python::BindBatch(m);
  hipfile::python::BindObserve(m);
  hipfile::python::BindSafetensors(m);
}
