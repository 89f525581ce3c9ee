// SPDX-License-Identifier: MIT
// The values behind the parameter API (hipFileGet/SetParameter*, hipFileDriverSet*). What each
// one controls is in docs/parameters.md.
//
// ParamSet is a plain value: the Driver keeps two (the values the next open will use, and the
// values in use while open) and serializes access to them.
#pragma once

#include <hipfile.h>

#include <array>
#include <cstddef>
#include <string>

#include "core/config.h"
#include "engine/sync_io.h"
#include "util/status.h"

namespace hipfile::core {

inline constexpr size_t kSizeTParamCount = hipFileParamPropertiesBatchIOTimeoutMs + 1;
inline constexpr size_t kBoolParamCount = hipFileParamStreamMemopsBypass + 1;
inline constexpr size_t kStringParamCount = hipFileParamLogDir + 1;
// The most entries one batch may hold (hipFileBatchIOSetUp's max_nr).
inline constexpr size_t kMaxBatchIoCount = 128;
// The most a string parameter may hold, terminator excluded.
inline constexpr size_t kMaxStringParamLength = 4095;

// The range SetSizeT accepts for `param`, in words ("0..3"), for the line that says why a value
// was refused; null for a parameter outside the enum.
const char* SizeTParamRule(int param);

// The least and the most value SetSizeT accepts for `param`, in the parameter's own unit (KiB for
// the ...SizeKB ones); false for a parameter outside the enum. The three page-sized parameters
// (MaxDirectIOSizeKB, PerBufferCacheSizeKB, MaxDevicePinnedMemSizeKB) also need a multiple of 4.
// cuFileGetParameterMinMaxValue reports it.
bool SizeTParamRange(int param, size_t* min, size_t* max);

// The three parameter APIs (hipFile{Get,Set}Parameter{SizeT,Bool,String}).
enum class ParamKind : uint8_t { kSizeT, kBool, kString };

class ParamSet {
 public:
  // Defaults, with the compat-mode switches, the stats level and the log level from config.
  explicit ParamSet(const Config& config);

  // hipFileInvalidValue for a parameter outside its enum or a value outside its range.
  Status SetSizeT(int param, size_t value);
  Status SetBool(int param, bool value);
  Status SetString(int param, const std::string& value);
  Result<size_t> GetSizeT(int param) const;
  Result<bool> GetBool(int param) const;
  Result<std::string> GetString(int param) const;
  // Where each value came from: kApi once set here, else what the Config said (its variable's
  // source, or the configuration file's key, or the default). hipFileInvalidValue as the getters.
  Result<SettingSource> SizeTSource(int param) const;
  Result<SettingSource> BoolSource(int param) const;
  Result<SettingSource> StringSource(int param) const;
  Result<SettingSource> Source(ParamKind kind, int param) const;

  // Typed views used by the library.
  size_t size_t_value(hipFileSizeTConfigParameter_t p) const { return sizes_[p]; }
  bool bool_value(hipFileBoolConfigParameter_t p) const { return bools_[p]; }
  bool allow_compat_mode() const { return bools_[hipFileParamPropertiesAllowCompatMode]; }
  bool profile_nvtx() const { return bools_[hipFileParamProfileNvtx]; }
  unsigned stats_level() const;
  LogLevel log_level() const;
  // Where log lines go from the next open: EnvLogfilePath, else LogDir's hipfile_<pid>.log, else
  // "" (stderr); core/log_file.h.
  std::string log_file() const;

  // What an open makes of these values: FORCE=true with ALLOW=false keeps the compatibility path
  // enabled (warning printed), as the environment does.
  void ResolveForOpen();

  // The SyncEngine's options: staging cap from PropertiesMaxDevicePinnedMemSizeKB (the whole
  // limit: the Driver gives the engine its share, engine::SplitStagingBudget), chunk size from
  // PropertiesPerBufferCacheSizeKB (no larger than the cap).
  engine::EngineOptions ToEngineOptions() const;

  void FillProperties(hipFileDriverProps_t* props) const;

  // The I/O threads (engine::WorkerPool) an open sizes the pool to: ExecutionMaxIOThreads, where
  // 0 means AutoIoThreads(), at most kMaxIoThreads.
  size_t io_threads() const;

 private:
  std::array<size_t, kSizeTParamCount> sizes_{};
  std::array<bool, kBoolParamCount> bools_{};
  std::array<std::string, kStringParamCount> strings_{};
  std::array<SettingSource, kSizeTParamCount> size_sources_{};  // all kDefault to begin with
  std::array<SettingSource, kBoolParamCount> bool_sources_{};
  std::array<SettingSource, kStringParamCount> string_sources_{};
  engine::PageCacheMode page_cache_ = engine::PageCacheMode::kAuto;  // HIPFILE_PAGE_CACHE
  unsigned page_cache_pin_after_ = 2;                                // HIPFILE_PAGE_CACHE_PIN_AFTER
  unsigned page_cache_pin_ahead_ = 32;                               // HIPFILE_PAGE_CACHE_PIN_AHEAD
  bool page_cache_pin_aside_ = false;                                // HIPFILE_PAGE_CACHE_PIN_ASIDE
  uint64_t page_cache_max_pinned_bytes_ = 0;  // HIPFILE_PAGE_CACHE_MAX_PINNED_MB
  unsigned copy_spin_us_ = 20;                // HIPFILE_COPY_SPIN_US
  unsigned copy_nap_us_ = 0;                  // HIPFILE_COPY_NAP_US
  bool copy_wait_word_ = false;               // HIPFILE_COPY_WAIT=word
  bool direct_writes_ = true;                 // HIPFILE_DIRECT_WRITES
  bool write_through_ = false;                // HIPFILE_WRITE_THROUGH
  bool io_uring_ = true;                      // HIPFILE_IO_URING
};

}  // namespace hipfile::core
