// SPDX-License-Identifier: MIT
// Driver: the parameter API (hipFileSetParameter*, hipFileGetParameter*), cuFile's driver setters,
// the properties and the engine options an open uses (core/driver.h). The rest of the Driver
// is in driver.cc and driver_streams.cc.
#include <string>
#include <utility>

#include "core/driver.h"
#include "util/log.h"

namespace hipfile::core {

template <class Fn>
Status Driver::SetParameter(const char* name, int param, Fn&& set) {
  MutexLock lock(mu_);
  ParamSet candidate = next_;
  HF_RETURN_IF_ERROR(set(candidate));  // the setter logs its refusals (it knows the value)
  if (count_ > 0) {
    HF_LOG_LIMITED(kWarn, "%s: parameter %d: the driver is open; set it before the driver opens",
                   name, param);
    return Status::Op(hipFileDriverAlreadyOpen);
  }
  next_ = std::move(candidate);
  return Status::Ok();
}

Status Driver::SetStatsLevel(size_t level) {
  MutexLock lock(mu_);
  ParamSet candidate = next_;
  HF_RETURN_IF_ERROR(candidate.SetSizeT(hipFileParamProfileStats, level));
  next_ = std::move(candidate);
  if (count_ > 0) stats_.set_level(static_cast<unsigned>(level));
  return Status::Ok();
}

size_t Driver::StatsLevel() const {
  MutexLock lock(mu_);
  return count_ > 0 ? stats_.level() : next_.stats_level();
}

Status Driver::SetParameterSizeT(int param, size_t value) {
  return SetParameter("hipFileSetParameterSizeT", param, [&](ParamSet& p) {
    const Status status = p.SetSizeT(param, value);
    if (!status.ok()) {
      if (const char* rule = SizeTParamRule(param)) {
        HF_LOG_LIMITED(kWarn, "hipFileSetParameterSizeT: parameter %d: value %zu outside %s", param,
                       value, rule);
      } else {
        HF_LOG_LIMITED(kWarn, "hipFileSetParameterSizeT: parameter %d unknown (0..%zu)", param,
                       kSizeTParamCount - 1);
      }
    }
    return status;
  });
}

Status Driver::SetParameterBool(int param, bool value) {
  return SetParameter("hipFileSetParameterBool", param, [&](ParamSet& p) {
    const Status status = p.SetBool(param, value);
    if (!status.ok()) {
      HF_LOG_LIMITED(kWarn, "hipFileSetParameterBool: parameter %d unknown (0..%zu)", param,
                     kBoolParamCount - 1);
    }
    return status;
  });
}

Status Driver::SetParameterString(int param, const std::string& value) {
  return SetParameter("hipFileSetParameterString", param, [&](ParamSet& p) {
    const Status status = p.SetString(param, value);
    if (status.ok()) return status;
    if (param < 0 || static_cast<size_t>(param) >= kStringParamCount) {
      HF_LOG_LIMITED(kWarn, "hipFileSetParameterString: parameter %d unknown (0..%zu)", param,
                     kStringParamCount - 1);
    } else if (value.size() > kMaxStringParamLength) {
      HF_LOG_LIMITED(kWarn,
                     "hipFileSetParameterString: parameter %d: value of %zu characters longer "
                     "than %zu",
                     param, value.size(), kMaxStringParamLength);
    } else {
      HF_LOG_LIMITED(kWarn,
                     "hipFileSetParameterString: parameter %d: value \"%.64s\" is not a log "
                     "level (off, error, warn, info, debug, 0..4)",
                     param, value.c_str());
    }
    return status;
  });
}

Result<size_t> Driver::GetParameterSizeT(int param) const {
  MutexLock lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetSizeT(param);
}

Result<bool> Driver::GetParameterBool(int param) const {
  MutexLock lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetBool(param);
}

Result<std::string> Driver::GetParameterString(int param) const {
  MutexLock lock(mu_);
  return (count_ > 0 ? in_use_ : next_).GetString(param);
}

template <class Fn>
Status Driver::DriverSetter(const char* name, Fn&& set) {
  MutexLock lock(mu_);
  ParamSet candidate = next_;
  HF_RETURN_IF_ERROR(set(candidate));
  if (count_ > 0) {
    HF_LOG(kWarn, "%s: the driver is open; the value is ignored (set it before the driver opens)",
           name);
    return Status::Ok();
  }
  next_ = std::move(candidate);
  return Status::Ok();
}

Status Driver::SetPollMode(bool poll, size_t poll_threshold_kb) {
  return DriverSetter("hipFileDriverSetPollMode", [&](ParamSet& p) {
    HF_RETURN_IF_ERROR(p.SetBool(hipFileParamPropertiesUsePollMode, poll));
    return p.SetSizeT(hipFileParamPollthresholdSizeKB, poll_threshold_kb);
  });
}

Status Driver::SetMaxDirectIoSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxDirectIOSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, kb);
  });
}

Status Driver::SetMaxCacheSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxCacheSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB, kb);
  });
}

Status Driver::SetMaxPinnedMemSize(size_t kb) {
  return DriverSetter("hipFileDriverSetMaxPinnedMemSize", [&](ParamSet& p) {
    return p.SetSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, kb);
  });
}

Status Driver::GetProperties(hipFileDriverProps_t* props) const {
  MutexLock lock(mu_);
  if (count_ == 0) return Status::Op(hipFileDriverNotInitialized);
  in_use_.FillProperties(props);
  return Status::Ok();
}

engine::EngineOptions Driver::EngineOptionsForOpenLocked() {
  // One pinned staging limit, split between the engine's transfer buffers and the streams'
  // staging blocks (engine/stream_staging.h).
  engine::EngineOptions options = in_use_.ToEngineOptions();
  const engine::StagingBudget budget =
      engine::SplitStagingBudget(options.max_staging_bytes, sys_.PhysicalMemoryBytes(),
                                 options.chunk_bytes, options.io_threads);
  options.max_staging_bytes = budget.transfer_bytes;
  stream_staging_blocks_.store(budget.stream_blocks, std::memory_order_relaxed);
  // hipFile's "max device cache size": cuFile's GPU bounce buffers; here the device memory of
  // stream-ordered reads copied ahead (docs/async.md).
  const uint64_t scratch =
      uint64_t{in_use_.size_t_value(hipFileParamPropertiesMaxDeviceCacheSizeKB)} * 1024;
  device_scratch_bytes_.store(scratch, std::memory_order_relaxed);
  {
    MutexLock lock(async_mu_);  // after mu_, never before it
    if (async_ != nullptr) {
      async_->SetStagingBlocks(budget.stream_blocks);
      async_->SetDeviceScratchBytes(scratch);
    }
  }
  HF_LOG(kInfo,
         "pinned staging: %llu bytes, %llu for transfers (sync and batch), %zu stream blocks of "
         "%zu bytes",
         static_cast<unsigned long long>(budget.limit),
         static_cast<unsigned long long>(budget.transfer_bytes), budget.stream_blocks,
         engine::StreamStagingBlock::kBytes);
  return options;
}

std::optional<engine::EngineOptions> Driver::EngineOptionsInUse() const {
  MutexLock lock(mu_);
  if (engine_ == nullptr) return std::nullopt;
  return engine_->options();
}

}  // namespace hipfile::core
