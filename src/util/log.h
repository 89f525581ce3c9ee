// SPDX-License-Identifier: MIT
// Logging: one line per call, to stderr or to the log file (HIPFILE_LOGFILE_PATH, logging.dir;
// core/log_file.h opens it and hands the descriptor here). The threshold comes from
// HIPFILE_LOG_LEVEL and the configuration (see docs/environment.md).
//
// A line: "<UTC time, microseconds> [<pid>:<tid> <thread name>] hipfile[<level>]: <message>",
//   2026-12-02T08:51:47.123456Z [4242:4250 hf-engine-3] hipfile[warn]: O_DIRECT read refused ...
// written with one write(2), so lines of different threads (and, on a log file opened with
// O_APPEND, of different processes) never interleave. No lock is taken on the way.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "util/log_limiter.h"

namespace hipfile {

enum class LogLevel : int { kOff = 0, kError = 1, kWarn = 2, kInfo = 3, kDebug = 4 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);
// "off", "error", "warn", "info", "debug".
const char* LogLevelName(LogLevel level);
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));
// Log, through one call site's limiter (log_limiter.h): a printed line after suppressed ones ends
// in "(N more like this suppressed)", the last line of the burst in a note that limiting starts.
// The clock is the steady clock.
void LogLimited(LogLimiter& limiter, LogLevel level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
// Log to stderr whatever the sink is: for what the log file itself cannot say (that it could not
// be opened). The same line format.
void LogToStderr(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

// Lines go to `fd` from now on (the logger takes it over), or back to stderr for fd < 0. The
// first descriptor's number stays the logger's until exit and a later file is dup3()ed over it,
// so a line being written on another thread never meets a closed or reused descriptor; going back
// to stderr points that number at stderr, which closes the file. Thread-safe (a mutex, taken only
// here). false when the switch failed (said on stderr; `fd` is closed and lines go where they
// went).
bool SetLogFile(int fd);
// Whether lines go to a log file rather than to stderr.
bool LoggingToFile();

// The line's prefix, "<time> [<pid>:<tid> <thread>] hipfile[<level>]: ", for a time in
// microseconds since the epoch (UTC), into out (at most size bytes, NUL-terminated, cut if
// short). Returns its length (without the NUL, at most size - 1). Pure: for tests.
size_t FormatLogPrefix(char* out, size_t size, int64_t unix_us, int pid, int tid,
                       const char* thread_name, LogLevel level);

}  // namespace hipfile

#define HF_LOG(level, ...)                                     \
  do {                                                         \
    if (::hipfile::LogEnabled(::hipfile::LogLevel::level)) {   \
      ::hipfile::Log(::hipfile::LogLevel::level, __VA_ARGS__); \
    }                                                          \
  } while (0)

// HF_LOG with a rate limit per call site: for refusals, which a caller may repeat in a loop. Below
// the threshold nothing is counted or formatted; the limiter is a constant-initialized static.
#define HF_LOG_LIMITED(level, ...)                                                     \
  do {                                                                                 \
    if (::hipfile::LogEnabled(::hipfile::LogLevel::level)) {                           \
      static ::hipfile::LogLimiter hf_log_limiter_;                                    \
      ::hipfile::LogLimited(hf_log_limiter_, ::hipfile::LogLevel::level, __VA_ARGS__); \
    }                                                                                  \
  } while (0)

// HF_LOG once per call site and process (for a fallback that costs speed: said once, not per
// request). Below the threshold nothing is counted, so a later lower threshold still prints it.
#define HF_LOG_ONCE(level, ...)                                        \
  do {                                                                 \
    if (::hipfile::LogEnabled(::hipfile::LogLevel::level)) {           \
      static ::std::atomic<bool> hf_log_once_{false};                  \
      if (!hf_log_once_.exchange(true, ::std::memory_order_relaxed)) { \
        ::hipfile::Log(::hipfile::LogLevel::level, __VA_ARGS__);       \
      }                                                                \
    }                                                                  \
  } while (0)
