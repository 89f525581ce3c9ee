// SPDX-License-Identifier: MIT
#include "util/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace hipfile {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};

}  // namespace

void SetLogLevel(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed)); }

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kOff:
      return "off";
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "warn";
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed);
}

void Log(LogLevel level, const char* format, ...) {
  // One fprintf per line keeps lines from different threads whole.
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  std::fprintf(stderr, "hipfile[%s]: %s\n", LogLevelName(level), message);
}

void LogLimited(LogLimiter& limiter, LogLevel level, const char* format, ...) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  const LogLimiter::Verdict verdict = limiter.Admit(now);
  if (!verdict.print) return;
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (verdict.suppressed > 0) {
    std::fprintf(stderr, "hipfile[%s]: %s (%llu more like this suppressed)\n", LogLevelName(level),
                 message, static_cast<unsigned long long>(verdict.suppressed));
  } else if (verdict.last_of_burst) {
    std::fprintf(stderr, "hipfile[%s]: %s (more like this: at most one a second)\n",
                 LogLevelName(level), message);
  } else {
    std::fprintf(stderr, "hipfile[%s]: %s\n", LogLevelName(level), message);
  }
}

}  // namespace hipfile
