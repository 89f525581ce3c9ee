// SPDX-License-Identifier: MIT
#include "util/trace.h"

#include <atomic>

#if defined(HIPFILE_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace hipfile {
namespace {

std::atomic<bool> g_tracing{false};

}  // namespace

void SetTracing(bool on) { g_tracing.store(on && TracingBuilt(), std::memory_order_relaxed); }

bool Tracing() { return g_tracing.load(std::memory_order_relaxed); }

bool TracingBuilt() {
#if defined(HIPFILE_HAVE_NVTX)
  return true;
#else
  return false;
#endif
}

bool TraceRange::Push(const char* name) noexcept {
#if defined(HIPFILE_HAVE_NVTX)
  nvtxRangePushA(name);
  return true;
#else
  (void)name;
  return false;
#endif
}

void TraceRange::Pop() noexcept {
#if defined(HIPFILE_HAVE_NVTX)
  nvtxRangePop();
#endif
}

}  // namespace hipfile
