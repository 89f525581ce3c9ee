// SPDX-License-Identifier: MIT
// Logging to stderr, "hipfile[<level>]: message". The threshold comes from HIPFILE_LOG_LEVEL
// (see docs/environment.md), set once by the configuration.
#pragma once

#include <cstdarg>

namespace hipfile {

enum class LogLevel : int { kOff = 0, kError = 1, kWarn = 2, kInfo = 3, kDebug = 4 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);
// "off", "error", "warn", "info", "debug".
const char* LogLevelName(LogLevel level);
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace hipfile

#define HF_LOG(level, ...)                                     \
  do {                                                         \
    if (::hipfile::LogEnabled(::hipfile::LogLevel::level)) {   \
      ::hipfile::Log(::hipfile::LogLevel::level, __VA_ARGS__); \
    }                                                          \
  } while (0)
