// SPDX-License-Identifier: MIT
// Driver: what the library would do, asked before or after the driver opens - where each
// parameter's value came from, and the way a file's reads and writes would go (core/driver.h).
#include <algorithm>
#include <memory>

#include "core/driver.h"
#include "core/file_registry.h"

namespace hipfile::core {

Result<SettingSource> Driver::GetParameterSource(ParamKind kind, int param) const {
  MutexLock lock(mu_);
  return (count_ > 0 ? in_use_ : next_).Source(kind, param);
}

Result<Driver::IoRuleAnswer> Driver::DescribeIoRule(int fd) {
  // The file's facts as a registration learns them; its descriptors close with `file`.
  HF_ASSIGN_OR_RETURN(const std::shared_ptr<File> file, OpenFile(sys_, fd));
  IoRuleAnswer answer;
  engine::IoRuleInputs& in = answer.inputs;
  in.file = file->io();
  in.staged = !gpu_.DeviceMemoryIsHostMemory();
  in.page_size = static_cast<size_t>(std::max(sys_.PageSize(), 512L));
  {
    MutexLock lock(mu_);
    const bool open = count_ > 0;
    const ParamSet& params = open ? in_use_ : next_;
    in.options = open && engine_ != nullptr ? engine_->options() : params.ToEngineOptions();
    in.page_cache = open && engine_ != nullptr
                        ? engine_->page_cache_enabled()
                        : engine::PageCacheEnabled(in.options.page_cache, !in.staged);
    // ParamSet::ResolveForOpen: ForceCompatMode with AllowCompatMode off keeps it on.
    in.allow_compat = params.allow_compat_mode() || params.bool_value(hipFileParamForceCompatMode);
  }
  // Whether the engine's ring would be had: built with liburing, and the kernel allows one.
  in.ring = in.options.io_uring && sys_.CreateIoRing(1).ok();
  answer.rule = engine::DescribeIoRule(in);
  return answer;
}

}  // namespace hipfile::core
