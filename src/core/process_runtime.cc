// SPDX-License-Identifier: MIT
#include "core/process_runtime.h"

#include <strings.h>

#include <memory>
#include <optional>

#include "core/config.h"
#include "platform/env.h"
#include "platform/sys.h"
#include "runtime/cpu/cpu_runtime.h"
#include "runtime/cuda/cuda_runtime.h"
#include "runtime/failed_runtime.h"
#include "util/log.h"

namespace hipfile {
namespace {

// HIPFILE_RUNTIME=cpu-staged: fewer hardware queues than CUDA's default 8, so that programs with a
// handful of streams already share them; CUDA_DEVICE_MAX_CONNECTIONS sets their number, as on
// CUDA (1 to 32).
constexpr unsigned kCpuStagedHardwareQueues = 4;
constexpr unsigned kMaxHardwareQueues = 32;

unsigned CpuStagedHardwareQueues() {
  const char* value = platform::RealSys().Getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (value == nullptr || *value == '\0') return kCpuStagedHardwareQueues;
  const std::optional<uint64_t> n = platform::ParseUnsigned(value);
  if (!n || *n < 1 || *n > kMaxHardwareQueues) {
    HF_LOG(kWarn, "CUDA_DEVICE_MAX_CONNECTIONS=\"%s\" is not 1 to %u; cpu-staged uses %u queues",
           value, kMaxHardwareQueues, kCpuStagedHardwareQueues);
    return kCpuStagedHardwareQueues;
  }
  return static_cast<unsigned>(*n);
}
static_assert(core::kMaxCpuDevices == runtime::kMaxCpuDevices,
              "HIPFILE_CPU_DEVICES takes what the CPU runtime presents");

// The CPU runtime's options from the configuration (HIPFILE_CPU_DEVICES).
runtime::CpuRuntimeOptions CpuOptions() {
  runtime::CpuRuntimeOptions options;
  options.devices = core::ProcessConfig().cpu_devices;
  return options;
}

struct Chosen {
  runtime::GpuRuntime* runtime = nullptr;
  std::string reason;
  bool from_environment = false;  // HIPFILE_RUNTIME set to a value it takes
};

Chosen Choose() {
  const char* value = platform::RealSys().Getenv("HIPFILE_RUNTIME");
  std::string choice = value ? value : "auto";
  if (choice.empty()) choice = "auto";
  if (strcasecmp(choice.c_str(), "auto") != 0 && strcasecmp(choice.c_str(), "cuda") != 0 &&
      strcasecmp(choice.c_str(), "cpu") != 0 && strcasecmp(choice.c_str(), "cpu-staged") != 0) {
    HF_LOG(kError, "HIPFILE_RUNTIME=\"%s\" is not one of auto, cuda, cpu, cpu-staged; using auto",
           choice.c_str());
    choice = "auto";
  }

  Chosen chosen;
  chosen.from_environment = value != nullptr && choice == value;
  if (strcasecmp(choice.c_str(), "cpu") == 0) {
    chosen.runtime = runtime::CreateCpuRuntime(CpuOptions()).release();
    chosen.reason = "cpu: forced by HIPFILE_RUNTIME";
    return chosen;
  }
  if (strcasecmp(choice.c_str(), "cpu-staged") == 0) {
    // A GPU's data paths on the CPU, with streams sharing hardware queues as on a GPU.
    runtime::CpuRuntimeOptions options = CpuOptions();
    options.device_memory_is_host_memory = false;
    options.hardware_queues = CpuStagedHardwareQueues();
    chosen.runtime = runtime::CreateCpuRuntime(options).release();
    chosen.reason = "cpu-staged: forced by HIPFILE_RUNTIME";
    return chosen;
  }
  std::string why_not;
  runtime::CudaRuntimeOptions options;
  options.copy_kernel = core::ProcessConfig().copy_kernel;
  options.run_blocks = core::ProcessConfig().async_run_blocks;
  std::unique_ptr<runtime::GpuRuntime> cuda = runtime::CreateCudaRuntime(&why_not, options);
  if (cuda) {
    chosen.runtime = cuda.release();
    chosen.reason = strcasecmp(choice.c_str(), "cuda") == 0 ? "cuda: forced by HIPFILE_RUNTIME"
                                                            : "cuda: CUDA device found";
    return chosen;
  }
  if (strcasecmp(choice.c_str(), "cuda") == 0) {
    HF_LOG(kError, "HIPFILE_RUNTIME=cuda but CUDA is unusable: %s", why_not.c_str());
    chosen.runtime = runtime::CreateFailedRuntime("cuda", hipErrorNoDevice).release();
    chosen.reason = "cuda (unusable): " + why_not;
    return chosen;
  }
  chosen.runtime = runtime::CreateCpuRuntime(CpuOptions()).release();
  chosen.reason = "cpu: CUDA unavailable (" + why_not + ")";
  return chosen;
}

const Chosen& Get() {
  // Leaked on purpose: see the header.
  static const Chosen* chosen = [] {
    // The configuration first: its log level and log file apply to the line below, also in a
    // program whose first call is a HIP one (hipMalloc) rather than a hipFile one.
    (void)core::ProcessConfig();
    auto* c = new Chosen(Choose());
    HF_LOG(kInfo, "GPU runtime %s", c->reason.c_str());
    return c;
  }();
  return *chosen;
}

}  // namespace

runtime::GpuRuntime& ProcessRuntime() { return *Get().runtime; }

const std::string& ProcessRuntimeReason() { return Get().reason; }

bool ProcessRuntimeFromEnvironment() { return Get().from_environment; }

}  // namespace hipfile
