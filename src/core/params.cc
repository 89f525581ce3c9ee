// SPDX-License-Identifier: MIT
#include "core/params.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/log_file.h"

namespace hipfile::core {
namespace {

constexpr Status kInvalid = Status::Op(hipFileInvalidValue);
constexpr size_t kMaxKiB = SIZE_MAX / 1024;

bool IsPageMultipleKiB(size_t kib) { return kib > 0 && kib % 4 == 0 && kib <= kMaxKiB; }

}  // namespace

const char* SizeTParamRule(int param) {
  if (param < 0 || static_cast<size_t>(param) >= kSizeTParamCount) return nullptr;
  // Each the words for the case of the same parameter in SetSizeT below.
  switch (static_cast<hipFileSizeTConfigParameter_t>(param)) {
    case hipFileParamProfileStats:
      return "0..3";
    case hipFileParamExecutionMaxIOQueueDepth:
      return "1..SIZE_MAX";
    case hipFileParamPropertiesMaxDirectIOSizeKB:
    case hipFileParamPropertiesPerBufferCacheSizeKB:
    case hipFileParamPropertiesMaxDevicePinnedMemSizeKB:
      return "positive multiples of 4 KiB up to SIZE_MAX bytes";
    case hipFileParamPropertiesMaxDeviceCacheSizeKB:
    case hipFileParamPollthresholdSizeKB:
    case hipFileParamExecutionMinIOThresholdSizeKB:
      return "0..SIZE_MAX/1024";
    case hipFileParamPropertiesIOBatchsize:
      return "1..kMaxBatchIoCount";
    case hipFileParamPropertiesBatchIOTimeoutMs:
      return "0..UINT_MAX";
    case hipFileParamExecutionMaxIOThreads:
    case hipFileParamExecutionMaxRequestParallelism:
      return "any value";
  }
  return nullptr;
}

bool SizeTParamRange(int param, size_t* min, size_t* max) {
  if (param < 0 || static_cast<size_t>(param) >= kSizeTParamCount) return false;
  // Each as the words of SizeTParamRule above; SetSizeT checks against these.
  size_t lo = 0, hi = SIZE_MAX;
  switch (static_cast<hipFileSizeTConfigParameter_t>(param)) {
    case hipFileParamProfileStats:
      hi = 3;  // cuFile's levels; 2 and 3 record the same as 1 here
      break;
    case hipFileParamExecutionMaxIOQueueDepth:
      lo = 1;
      break;
    case hipFileParamPropertiesMaxDirectIOSizeKB:
    case hipFileParamPropertiesPerBufferCacheSizeKB:
    case hipFileParamPropertiesMaxDevicePinnedMemSizeKB:
      lo = 4;
      hi = kMaxKiB / 4 * 4;
      break;
    case hipFileParamPropertiesMaxDeviceCacheSizeKB:
    case hipFileParamPollthresholdSizeKB:
    case hipFileParamExecutionMinIOThresholdSizeKB:
      hi = kMaxKiB;
      break;
    case hipFileParamPropertiesIOBatchsize:
      lo = 1;
      hi = kMaxBatchIoCount;
      break;
    case hipFileParamPropertiesBatchIOTimeoutMs:
      hi = UINT_MAX;  // reported in an unsigned field
      break;
    case hipFileParamExecutionMaxIOThreads:
    case hipFileParamExecutionMaxRequestParallelism:
      break;
  }
  *min = lo;
  *max = hi;
  return true;
}

ParamSet::ParamSet(const Config& config)
    : page_cache_(config.page_cache),
      page_cache_pin_after_(config.page_cache_pin_after),
      page_cache_pin_ahead_(config.page_cache_pin_ahead),
      page_cache_pin_aside_(config.page_cache_pin_aside),
      page_cache_max_pinned_bytes_(config.page_cache_max_pinned_mb << 20),
      copy_spin_us_(config.copy_spin_us),
      copy_nap_us_(config.copy_nap_us),
      copy_wait_word_(config.copy_wait_word),
      direct_writes_(config.direct_writes),
      write_through_(config.write_through),
      io_uring_(config.io_uring) {
  sizes_[hipFileParamProfileStats] = config.stats_level;
  sizes_[hipFileParamExecutionMaxIOQueueDepth] = 128;
  // What the process gets unless set: HIPFILE_IO_THREADS, else one per hardware thread.
  sizes_[hipFileParamExecutionMaxIOThreads] = IoThreadsOf(config);
  sizes_[hipFileParamExecutionMinIOThresholdSizeKB] = 8192;
  sizes_[hipFileParamExecutionMaxRequestParallelism] = 4;
  sizes_[hipFileParamPropertiesMaxDirectIOSizeKB] = 16384;
  sizes_[hipFileParamPropertiesMaxDeviceCacheSizeKB] = 131072;
  // 8 MiB chunks (engine::EngineOptions' default), and 1 GiB of pinned staging: split at each open
  // into 256 MiB of transfer buffers (two per I/O thread, 16 threads) and stream-ordered
  // staging for 191 streams (engine::SplitStagingBudget).
  sizes_[hipFileParamPropertiesPerBufferCacheSizeKB] = 8192;
  sizes_[hipFileParamPropertiesMaxDevicePinnedMemSizeKB] = 1048576;
  sizes_[hipFileParamPropertiesIOBatchsize] = kMaxBatchIoCount;
  sizes_[hipFileParamPollthresholdSizeKB] = 4;
  sizes_[hipFileParamPropertiesBatchIOTimeoutMs] = 10000;

  bools_[hipFileParamPropertiesAllowCompatMode] = config.allow_compat_mode;
  bools_[hipFileParamForceCompatMode] = config.force_compat_mode;
  bools_[hipFileParamProfileNvtx] = config.profile_nvtx;
  bools_[hipFileParamExecutionParallelIO] = true;

  strings_[hipFileParamLoggingLevel] = LogLevelName(config.log_level);
  strings_[hipFileParamEnvLogfilePath] = config.log_file_path;
  strings_[hipFileParamLogDir] = config.log_dir;

  // The configuration file's parameters that no variable has: checked when the file was read.
  for (const auto& [param, value] : config.file_sizes) {
    sizes_[param] = value;
    size_sources_[param] = SettingSource::kConfigFile;
  }
  for (const auto& [param, value] : config.file_bools) {
    bools_[param] = value;
    bool_sources_[param] = SettingSource::kConfigFile;
  }

  // Those a variable (or the file's key for the same setting) gives.
  size_sources_[hipFileParamProfileStats] = config.SourceOf(kEnvStatsLevel);
  size_sources_[hipFileParamExecutionMaxIOThreads] = config.io_threads_from_batch_workers
                                                         ? SettingSource::kEnvironment
                                                         : config.SourceOf(kEnvIoThreads);
  bool_sources_[hipFileParamPropertiesAllowCompatMode] = config.SourceOf(kEnvAllowCompatMode);
  bool_sources_[hipFileParamForceCompatMode] = config.SourceOf(kEnvForceCompatMode);
  bool_sources_[hipFileParamProfileNvtx] = config.SourceOf(kEnvProfileNvtx);
  string_sources_[hipFileParamLoggingLevel] = config.SourceOf(kEnvLogLevel);
  string_sources_[hipFileParamEnvLogfilePath] = config.SourceOf(kEnvLogfilePath);
  // logging.dir has no variable: only the file sets it.
  if (!config.log_dir.empty()) string_sources_[hipFileParamLogDir] = SettingSource::kConfigFile;
}

Status ParamSet::SetSizeT(int param, size_t value) {
  size_t min = 0, max = 0;
  if (!SizeTParamRange(param, &min, &max) || value < min || value > max) return kInvalid;
  switch (static_cast<hipFileSizeTConfigParameter_t>(param)) {
    case hipFileParamPropertiesMaxDirectIOSizeKB:
    case hipFileParamPropertiesPerBufferCacheSizeKB:
    case hipFileParamPropertiesMaxDevicePinnedMemSizeKB:
      if (!IsPageMultipleKiB(value)) return kInvalid;
      break;
    default:
      break;
  }
  sizes_[param] = value;
  size_sources_[param] = SettingSource::kApi;
  return Status::Ok();
}

Status ParamSet::SetBool(int param, bool value) {
  if (param < 0 || static_cast<size_t>(param) >= kBoolParamCount) return kInvalid;
  bools_[param] = value;
  bool_sources_[param] = SettingSource::kApi;
  return Status::Ok();
}

Status ParamSet::SetString(int param, const std::string& value) {
  if (param < 0 || static_cast<size_t>(param) >= kStringParamCount) return kInvalid;
  if (value.size() > kMaxStringParamLength) return kInvalid;
  if (param == hipFileParamLoggingLevel) {
    LogLevel level;
    if (!ParseLogLevel(value, &level)) return kInvalid;
  }
  strings_[param] = value;
  string_sources_[param] = SettingSource::kApi;
  return Status::Ok();
}

Result<size_t> ParamSet::GetSizeT(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kSizeTParamCount) return kInvalid;
  return sizes_[param];
}

Result<bool> ParamSet::GetBool(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kBoolParamCount) return kInvalid;
  return bools_[param];
}

Result<std::string> ParamSet::GetString(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kStringParamCount) return kInvalid;
  return strings_[param];
}

Result<SettingSource> ParamSet::SizeTSource(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kSizeTParamCount) return kInvalid;
  return size_sources_[param];
}

Result<SettingSource> ParamSet::BoolSource(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kBoolParamCount) return kInvalid;
  return bool_sources_[param];
}

Result<SettingSource> ParamSet::StringSource(int param) const {
  if (param < 0 || static_cast<size_t>(param) >= kStringParamCount) return kInvalid;
  return string_sources_[param];
}

Result<SettingSource> ParamSet::Source(ParamKind kind, int param) const {
  switch (kind) {
    case ParamKind::kSizeT:
      return SizeTSource(param);
    case ParamKind::kBool:
      return BoolSource(param);
    case ParamKind::kString:
      return StringSource(param);
  }
  return kInvalid;
}

unsigned ParamSet::stats_level() const {
  return static_cast<unsigned>(sizes_[hipFileParamProfileStats]);
}

std::string ParamSet::log_file() const {
  return LogFilePathFor(strings_[hipFileParamEnvLogfilePath], strings_[hipFileParamLogDir],
                        static_cast<int>(::getpid()));
}

LogLevel ParamSet::log_level() const {
  LogLevel level = LogLevel::kWarn;
  ParseLogLevel(strings_[hipFileParamLoggingLevel], &level);  // validated when set
  return level;
}

void ParamSet::ResolveForOpen() {
  if (bools_[hipFileParamForceCompatMode] && !bools_[hipFileParamPropertiesAllowCompatMode]) {
    Log(LogLevel::kWarn,
        "ForceCompatMode=true and AllowCompatMode=false would disable all I/O paths; keeping the "
        "compatibility path enabled");
    bools_[hipFileParamPropertiesAllowCompatMode] = true;
  }
}

engine::EngineOptions ParamSet::ToEngineOptions() const {
  engine::EngineOptions options;
  options.page_cache = page_cache_;
  options.page_cache_pin_after_uses = page_cache_pin_after_;
  options.page_cache_pin_ahead_windows = page_cache_pin_ahead_;
  options.page_cache_pin_aside = page_cache_pin_aside_;
  options.page_cache_max_pinned_bytes = page_cache_max_pinned_bytes_;
  options.copy_spin_us = copy_spin_us_;
  options.copy_nap_us = copy_nap_us_;
  options.copy_wait_words = copy_wait_word_;
  options.direct_writes = direct_writes_;
  options.write_through = write_through_;
  options.io_uring = io_uring_;
  options.io_threads = std::min(io_threads(), engine::kMaxAutoIoThreads);
  options.max_staging_bytes = sizes_[hipFileParamPropertiesMaxDevicePinnedMemSizeKB] * 1024;
  options.chunk_bytes = sizes_[hipFileParamPropertiesPerBufferCacheSizeKB] * 1024;
  if (options.chunk_bytes > options.max_staging_bytes) {
    options.chunk_bytes = options.max_staging_bytes;
  }
  return options;
}

size_t ParamSet::io_threads() const {
  const size_t asked = sizes_[hipFileParamExecutionMaxIOThreads];
  return asked == 0 ? AutoIoThreads() : std::min(asked, kMaxIoThreads);
}

void ParamSet::FillProperties(hipFileDriverProps_t* props) const {
  *props = hipFileDriverProps_t{};
  props->nvfs.major_version = HIPFILE_VERSION_MAJOR;
  props->nvfs.minor_version = HIPFILE_VERSION_MINOR;
  props->nvfs.poll_thresh_size = sizes_[hipFileParamPollthresholdSizeKB];
  props->nvfs.max_direct_io_size = sizes_[hipFileParamPropertiesMaxDirectIOSizeKB];
  // No file system has a kernel GPU-direct path here, so no driver_status_flags bit is set.
  props->nvfs.driver_status_flags = 0;
  unsigned control = 0;
  if (bools_[hipFileParamPropertiesUsePollMode]) control |= 1u << hipFileUsePollMode;
  if (bools_[hipFileParamPropertiesAllowCompatMode]) control |= 1u << hipFileAllowCompatMode;
  props->nvfs.driver_control_flags = control;
  // Batch I/O, stream-ordered I/O and parallel execution of one request exist.
  props->feature_flags = (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) |
                         (1u << hipFileParallelIOSupported);
  props->max_device_cache_size = sizes_[hipFileParamPropertiesMaxDeviceCacheSizeKB];
  props->per_buffer_cache_size = sizes_[hipFileParamPropertiesPerBufferCacheSizeKB];
  props->max_device_pinned_mem_size = sizes_[hipFileParamPropertiesMaxDevicePinnedMemSizeKB];
  props->max_batch_io_count = static_cast<unsigned>(sizes_[hipFileParamPropertiesIOBatchsize]);
  props->max_batch_io_timeout_msecs =
      static_cast<unsigned>(sizes_[hipFileParamPropertiesBatchIOTimeoutMs]);
}

}  // namespace hipfile::core
