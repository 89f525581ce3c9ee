// SPDX-License-Identifier: MIT
// NVTX ranges: each C API call and the engine's stages show in Nsight Systems (or any tool that
// injects NVTX) while tracing is on - the hipFileParamProfileNvtx parameter, default from
// HIPFILE_PROFILE_NVTX. Off, a range costs one relaxed load; built without NVTX headers
// (HIPFILE_HAVE_NVTX unset), nothing. The NVTX library loads the profiler's injection library
// (NVTX_INJECTION64_PATH) at the first range, never before tracing is on.
#pragma once

namespace hipfile {

void SetTracing(bool on);
bool Tracing();
// Whether this build can trace at all.
bool TracingBuilt();

// A range named `name` (a string that outlives it) on the calling thread, from here to the end
// of the scope.
class TraceRange {
 public:
  explicit TraceRange(const char* name) noexcept : pushed_(Tracing() && Push(name)) {}
  ~TraceRange() {
    if (pushed_) Pop();
  }
  TraceRange(const TraceRange&) = delete;
  TraceRange& operator=(const TraceRange&) = delete;

 private:
  static bool Push(const char* name) noexcept;
  static void Pop() noexcept;
  const bool pushed_;
};

}  // namespace hipfile
