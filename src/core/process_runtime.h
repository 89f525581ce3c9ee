// SPDX-License-Identifier: MIT
// The process's GPU runtime: the one process global below the C boundary.
//
// Chosen on first use from HIPFILE_RUNTIME (auto | cuda | cpu; see docs/environment.md):
//   auto - CUDA when libcuda loads and reports at least one device, else the CPU runtime;
//   cuda - CUDA, or a runtime whose every call fails with hipErrorNoDevice when CUDA is unusable
//          (the reason is logged), so a forced choice never silently runs elsewhere;
//   cpu  - the CPU runtime.
// An unparsable value is reported and treated as auto. The runtime lives until process exit and
// is never destroyed (work may still be in flight in other threads during static destruction).
#pragma once

#include <string>

#include "runtime/gpu_runtime.h"

namespace hipfile {

runtime::GpuRuntime& ProcessRuntime();

// Why the runtime in use was chosen, e.g. "auto: CUDA unavailable (libcuda.so.1 not found)".
const std::string& ProcessRuntimeReason();

// Whether HIPFILE_RUNTIME chose it (set to one of its values), not the automatic choice.
bool ProcessRuntimeFromEnvironment();

}  // namespace hipfile
