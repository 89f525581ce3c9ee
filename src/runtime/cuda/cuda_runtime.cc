// PLACEHOLDER until the CUDA runtime lands.
#include "runtime/cuda/cuda_runtime.h"

namespace hipfile::runtime {

std::unique_ptr<GpuRuntime> CreateCudaRuntime(std::string* why_not) {
  if (why_not) *why_not = "CUDA runtime not built yet";
  return nullptr;
}

}  // namespace hipfile::runtime
