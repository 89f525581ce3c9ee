// SPDX-License-Identifier: MIT
// Config: the environment and the configuration file it names (HIPFILE_CONFIG), read once.
// Every variable is documented in docs/environment.md, the file in docs/config.md.
//
// Precedence, lowest first: the defaults, the configuration file, the environment, then the
// parameter API (hipFileSetParameter*, applied at the next driver open; core/params.h).
#pragma once

#include <hipfile.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/async/copy_runs.h"
#include "engine/sync_io.h"
#include "platform/sys.h"
#include "util/log.h"

namespace hipfile::core {

// Variable names.
// Enables the compatibility (bounce-buffer) path; the only path this library has without kernel
// GPU-direct support, so "false" makes I/O fail.
inline constexpr char kEnvAllowCompatMode[] = "HIPFILE_ALLOW_COMPAT_MODE";
// Disables the GPU-direct path.
inline constexpr char kEnvForceCompatMode[] = "HIPFILE_FORCE_COMPAT_MODE";
// NVTX ranges around API calls and engine stages (util/trace.h); default of
// hipFileParamProfileNvtx.
inline constexpr char kEnvProfileNvtx[] = "HIPFILE_PROFILE_NVTX";
// Lifts the ext4(data=ordered)/xfs restriction of the GPU-direct path.
inline constexpr char kEnvUnsupportedFileSystems[] = "HIPFILE_UNSUPPORTED_FILE_SYSTEMS";
// 0 = no statistics, 1 = basic, 2 = detailed (same as 1); larger values are clamped to 2.
inline constexpr char kEnvStatsLevel[] = "HIPFILE_STATS_LEVEL";
// true | false: stamp every stream-ordered operation's round trip (hipFileExtGetAsyncStageStats)
// below HIPFILE_STATS_LEVEL 2, which turns it on too. Read once, at the first driver's making.
inline constexpr char kEnvAsyncStageTimes[] = "HIPFILE_ASYNC_STAGE_TIMES";
// auto | on | off: the engine's page-cache path (pinning windows of resident file pages and
// letting the GPU copy from them). auto: on a GPU, off on the CPU runtime.
inline constexpr char kEnvPageCache[] = "HIPFILE_PAGE_CACHE";
// n >= 1: a page-cache window is pinned on its n-th read (default 2: data read once is staged).
inline constexpr char kEnvPageCachePinAfter[] = "HIPFILE_PAGE_CACHE_PIN_AFTER";
inline constexpr char kEnvPageCachePinAhead[] = "HIPFILE_PAGE_CACHE_PIN_AHEAD";
inline constexpr char kEnvPageCachePinAside[] = "HIPFILE_PAGE_CACHE_PIN_ASIDE";
// Cap on pinned page-cache windows in MiB; 0 (default): a quarter of the machine's memory.
inline constexpr char kEnvPageCacheMaxPinnedMb[] = "HIPFILE_PAGE_CACHE_MAX_PINNED_MB";
// Microseconds a wait for a copy polls its stream before sleeping on an event (default 20).
inline constexpr char kEnvCopySpinUs[] = "HIPFILE_COPY_SPIN_US";
// Microseconds slept between two polls of that wait (default 0: polls back to back).
inline constexpr char kEnvCopyNapUs[] = "HIPFILE_COPY_NAP_US";
// What that wait polls: `stream` (hipStreamQuery, the default) or `word` (a word of pinned host
// memory the copy's stream writes after it, where the device has stream memory operations).
inline constexpr char kEnvCopyWait[] = "HIPFILE_COPY_WAIT";
// Whether writes use O_DIRECT for their aligned body (default true; false: through the page
// cache).
inline constexpr char kEnvDirectWrites[] = "HIPFILE_DIRECT_WRITES";
// Boolean: every successful write (sync, stream-ordered, batch) is followed by fdatasync of its
// file before it is reported done, so a write reported done survives a crash - what AMD's
// compatibility path does after each write (default false: written bytes may still be in the
// page cache, as with pwrite).
inline constexpr char kEnvWriteThrough[] = "HIPFILE_WRITE_THROUGH";
// Boolean: run batches of reads and writes through io_uring (engine::RingIo) where the kernel
// allows it (default true); false: one pread/pwrite after another.
inline constexpr char kEnvIoUring[] = "HIPFILE_IO_URING";
// Boolean: the CUDA runtime copies a group of small transfers with one gather-kernel launch
// (default true); false: cuMemcpyBatchAsync or one copy each.
inline constexpr char kEnvCopyKernel[] = "HIPFILE_COPY_KERNEL";
// Boolean: stream-ordered operations on device memory copy on their own stream (default true;
// docs/async.md); false: on the engine's streams, as before 2026-12-01.
inline constexpr char kEnvAsyncStaged[] = "HIPFILE_ASYNC_STAGED";
// KiB: a stream-ordered read or write of at most this size, submitted to a stream with nothing
// left to run (and, for a stream that syncs with the legacy default stream, that one idle too),
// runs at once on the submitting thread, as the synchronous call would (default 64; 0: never;
// docs/async.md, "Operations on an idle stream").
inline constexpr char kEnvAsyncRunIdleKb[] = "HIPFILE_ASYNC_RUN_IDLE_KB";
// Boolean: a stream-ordered read whose parameters are known at submission (the stream registered
// with every HIPFILE_STREAM_FIXED_* flag, or idle) and whose bytes are all in pinned page-cache
// windows has its copies queued on the stream at submission (default true; docs/async.md, "Reads
// copied from windows at submission").
inline constexpr char kEnvAsyncCopyAtSubmission[] = "HIPFILE_ASYNC_COPY_AT_SUBMISSION";
inline constexpr char kEnvAsyncReadAtSubmission[] = "HIPFILE_ASYNC_READ_AT_SUBMISSION";
// Boolean: every stream-ordered operation is taken as on a stream registered with all three
// HIPFILE_STREAM_FIXED_* flags - the program's promise that it never changes a queued operation's
// size or offsets (default false; docs/async.md, "Values fixed per operation").
inline constexpr char kEnvAsyncAssumeFixed[] = "HIPFILE_ASYNC_ASSUME_FIXED";
// Boolean: a read copied ahead into device memory has its copies ahead queued on a stream of the
// library's own beside its stream (one per stream), which its stream waits for by an event, so
// that the copy runs while the stream is still busy with the reads before it (default false;
// docs/async.md, "Reads copied ahead into device memory").
inline constexpr char kEnvAsyncAheadStream[] = "HIPFILE_ASYNC_AHEAD_STREAM";
// windows | ahead | reads | off: which staged chains queue one launch of the copy kernel for all
// their tokens instead of one each - reads copied ahead or served whole from pinned windows
// (default), reads copied ahead, every staged read, none (docs/async.md, "One launch per read
// copied ahead").
inline constexpr char kEnvAsyncCopyRuns[] = "HIPFILE_ASYNC_COPY_RUNS";
// host | device: where that launch reads its first table - the host table itself (default), or
// device memory the stream copies it into first (docs/async.md, "The run's first table in device
// memory"; the default until a GPU run of the library measures it).
inline constexpr char kEnvAsyncRunTable[] = "HIPFILE_ASYNC_RUN_TABLE";
// 1..65535: the blocks of that launch's grid where it copies its first table whole (default 32,
// runtime::kCopyTableBlocks): on CUDA, what the stream's copy kernel may take of the GPU to move
// a read from pinned page-cache windows or from device memory (docs/async.md, "The run
// kernel's grid").
inline constexpr char kEnvAsyncRunBlocks[] = "HIPFILE_ASYNC_RUN_BLOCKS";
// MiB, 0..1048576: a staged stream-ordered operation on device memory of at least this size (and
// more than 4 MiB) moves in 8 MiB chunks through a large staging block where one is free or can
// be pinned (default 64; 0: never, every operation in 2 MiB chunks; docs/async.md "Large staging
// blocks": pinning a large block while I/O runs costs every stream's copies, so only operations
// large enough to gain from fewer chunks take one).
inline constexpr char kEnvAsyncLargeChunksMb[] = "HIPFILE_ASYNC_LARGE_CHUNKS_MB";
// MiB, 0..65536: a stream-ordered read that the device memory budget for copies ahead has no room
// for whole is copied ahead in parts of this size (rounded up to a multiple of 8 MiB), one region
// of it at a time (docs/async.md, "Reads copied ahead in parts"; default 0: off until a GPU run
// measures it).
inline constexpr char kEnvAsyncAheadPartMb[] = "HIPFILE_ASYNC_AHEAD_PART_MB";
// 0..4096: while at most this many stream-ordered submissions are in progress, to at most this
// many streams among the recent ones, a small read on an idle stream runs at once before it is
// taken at submission (default 4; docs/async.md, "Small reads at submission").
inline constexpr char kEnvAsyncQuietStreams[] = "HIPFILE_ASYNC_QUIET_STREAMS";
// 1..1024: the library's I/O threads, shared by the engine, stream-ordered and batch I/O: the
// default of hipFileParamExecutionMaxIOThreads (0 = automatic: AutoIoThreads()).
inline constexpr char kEnvIoThreads[] = "HIPFILE_IO_THREADS";
// 1..128: the batch pool's size before the pools were one; now the I/O threads' default when
// HIPFILE_IO_THREADS is unset (said at info level).
inline constexpr char kEnvBatchWorkers[] = "HIPFILE_BATCH_WORKERS";
// off|error|warn|info|debug or 0..4.
inline constexpr char kEnvLogLevel[] = "HIPFILE_LOG_LEVEL";
// A path: log lines go to this file (appended to; created 0600) instead of stderr. The default
// of hipFileParamEnvLogfilePath; wins over the configuration file's logging.dir.
inline constexpr char kEnvLogfilePath[] = "HIPFILE_LOGFILE_PATH";
// A path: a JSON configuration file (cuFile's cufile.json keys, docs/config.md), read once, under
// the environment: a variable set wins over the file's key for the same setting.
inline constexpr char kEnvConfig[] = "HIPFILE_CONFIG";

// HIPFILE_RUNTIME is read where the runtime is chosen (core/process_runtime.h).
inline constexpr char kEnvRuntime[] = "HIPFILE_RUNTIME";
// 1..16: how many devices the CPU runtime presents (cpu and cpu-staged; default 1), for tests of
// several GPUs in one process without them. No effect on CUDA.
inline constexpr char kEnvCpuDevices[] = "HIPFILE_CPU_DEVICES";
// The most HIPFILE_CPU_DEVICES takes (runtime::kMaxCpuDevices).
inline constexpr unsigned kMaxCpuDevices = 16;

// Where a setting's value came from, lowest precedence first (docs/config.md): hipfile_ext.h's
// hipFileExtSettingSource_t has these values in this order.
enum class SettingSource : uint8_t { kDefault, kEnvironment, kConfigFile, kApi };

// Every variable ParseConfig and the runtime's choice read (docs/environment.md): what
// hipFileExtVariableName lists.
extern const char* const kEnvVariables[];
extern const size_t kEnvVariableCount;

inline constexpr unsigned kMaxStatsLevel = 2;
// The most I/O threads a process gets, whatever is asked.
inline constexpr size_t kMaxIoThreads = 1024;

// I/O threads when nothing asks for a number: one per hardware thread, at least 4 (stream-ordered
// operations blocked in a slow file system must not hold every other stream back on a small
// machine) and at most 64.
size_t AutoIoThreads();

struct Config {
  bool allow_compat_mode = true;
  bool force_compat_mode = false;
  bool profile_nvtx = false;
  bool unsupported_file_systems = false;
  unsigned stats_level = 1;
  bool async_stage_times = false;
  LogLevel log_level = LogLevel::kWarn;
  engine::PageCacheMode page_cache = engine::PageCacheMode::kAuto;
  unsigned page_cache_pin_after = 2;
  unsigned page_cache_pin_ahead = 32;
  bool page_cache_pin_aside = false;
  uint64_t page_cache_max_pinned_mb = 0;
  unsigned copy_spin_us = 20;
  unsigned copy_nap_us = 0;
  bool copy_wait_word = false;  // HIPFILE_COPY_WAIT=word
  bool direct_writes = true;
  bool write_through = false;
  bool io_uring = true;
  bool copy_kernel = true;
  bool async_staged = true;
  unsigned async_run_idle_kb = 64;                          // HIPFILE_ASYNC_RUN_IDLE_KB
  bool async_copy_at_submission = true;                     // HIPFILE_ASYNC_COPY_AT_SUBMISSION
  bool async_read_at_submission = true;                     // HIPFILE_ASYNC_READ_AT_SUBMISSION
  bool async_assume_fixed = false;                          // HIPFILE_ASYNC_ASSUME_FIXED
  bool async_ahead_stream = false;                          // HIPFILE_ASYNC_AHEAD_STREAM
  AsyncCopyRuns async_copy_runs = AsyncCopyRuns::kWindows;  // HIPFILE_ASYNC_COPY_RUNS
  bool async_run_table_on_device = false;                   // HIPFILE_ASYNC_RUN_TABLE
  unsigned async_run_blocks = 32;                           // HIPFILE_ASYNC_RUN_BLOCKS
  unsigned async_large_chunks_mb = 64;                      // HIPFILE_ASYNC_LARGE_CHUNKS_MB
  unsigned async_ahead_part_mb = 8;                         // HIPFILE_ASYNC_AHEAD_PART_MB
  unsigned async_quiet_streams = 4;                         // HIPFILE_ASYNC_QUIET_STREAMS
  unsigned cpu_devices = 1;                                 // HIPFILE_CPU_DEVICES
  unsigned io_threads = 0;                                  // 0: automatic
  unsigned batch_workers = 0;                               // 0: unset
  std::string log_file_path;                                // HIPFILE_LOGFILE_PATH; "" = none
  std::string log_dir;      // the configuration file's logging.dir; "" = none
  std::string config_path;  // HIPFILE_CONFIG (or the fallback's file); "" = none
  // What named config_path, for its lines: kEnvConfig, the fallback's variable, or "" for the
  // fallback's default file.
  std::string config_named_by = kEnvConfig;
  // Parameters the configuration file sets that no variable has (ParamSet applies them over its
  // defaults), each already checked against the parameter's range.
  std::vector<std::pair<hipFileSizeTConfigParameter_t, size_t>> file_sizes;
  std::vector<std::pair<hipFileBoolConfigParameter_t, bool>> file_bools;
  // One line per variable whose value could not be parsed (its default was used instead), and per
  // problem with the configuration file (unreadable, not JSON, an unknown key, a bad value).
  std::vector<std::string> problems;
  // One line per key of the configuration file that is accepted but has no effect here.
  std::vector<std::string> notes;
  // Where the setting each variable names got its value: the environment (the variable is set
  // and was parsed), the configuration file (its key for the same setting), else the default.
  // Keyed by the kEnv* constants; a variable absent here is at its default.
  std::vector<std::pair<const char*, SettingSource>> sources;
  // HIPFILE_BATCH_WORKERS gave the I/O threads (HIPFILE_IO_THREADS unset, no file key).
  bool io_threads_from_batch_workers = false;

  SettingSource SourceOf(const char* variable) const;
  void SetSource(const char* variable, SettingSource source);
};

// Where the configuration file comes from when HIPFILE_CONFIG is unset: nowhere in libhipfile.so.
// The cuFile drop-in sets cuFile's own variable, CUFILE_ENV_PATH_JSON (src/cufile/cufile_config.cc,
// at load, before anything is read); a default file is supported but not used.
struct ConfigFallback {
  const char* variable = nullptr;      // read when HIPFILE_CONFIG is unset
  const char* default_path = nullptr;  // read when neither variable is set and it opens
};
void SetConfigFallback(const ConfigFallback& fallback);
ConfigFallback GetConfigFallback();

// "VARIABLE PATH" (or PATH alone for a default file): how the configuration file's lines name it.
std::string ConfigFileLabel(const Config& config, const std::string& path);

// Reads the variables through sys.Getenv. Each unparsable value is logged at error level and
// listed in Config::problems. FORCE=true with ALLOW=false prints a warning to stderr and keeps
// the compatibility path enabled (so that some path remains).
Config ParseConfig(platform::Sys& sys);

// The I/O threads the configuration asks for: HIPFILE_IO_THREADS, else AutoIoThreads().
size_t IoThreadsOf(const Config& config);

// "off", "error", "warn", "info", "debug" (case-insensitive; cuFile's "trace" means debug) or
// "0".."4". false when not one of those.
bool ParseLogLevel(const std::string& text, LogLevel* level);

// The process's configuration: parsed from the real environment on first use, which also applies
// its log level (SetLogLevel). Never destroyed.
const Config& ProcessConfig();

}  // namespace hipfile::core
