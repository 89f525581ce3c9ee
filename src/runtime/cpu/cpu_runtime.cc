// PLACEHOLDER until the CPU runtime lands: fails every call.
#include "runtime/cpu/cpu_runtime.h"

#include "runtime/failed_runtime.h"

namespace hipfile::runtime {

std::unique_ptr<GpuRuntime> CreateCpuRuntime() { return CreateFailedRuntime("cpu", hipErrorNotSupported); }

}  // namespace hipfile::runtime
