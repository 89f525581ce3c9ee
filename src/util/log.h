// SPDX-License-Identifier: MIT
// Logging to stderr, "hipfile[<level>]: message". The threshold comes from HIPFILE_LOG_LEVEL
// (see docs/environment.md), set once by the configuration.
#pragma once

#include <cstdarg>

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
