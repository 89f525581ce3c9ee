// SPDX-License-Identifier: MIT
#include "util/log.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "util/mutex.h"

namespace hipfile {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
// The log file's descriptor number (-1 until the first SetLogFile), and whether lines go to it.
// Set in that order with release, read in the other with acquire, so a writer that sees
// g_to_file sees the number.
std::atomic<int> g_file_fd{-1};
std::atomic<bool> g_to_file{false};
Mutex g_sink_mu;  // SetLogFile only

// A message longer than this is cut; long enough for a line naming a path (PATH_MAX).
constexpr size_t kMaxMessage = 4096 + 512;

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to say it
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// One line, "<prefix><message><suffix>\n", in one write to `fd`.
void Emit(int fd, LogLevel level, const char* message, const char* suffix) {
  const int saved_errno = errno;  // a log line must not change what the caller's errno says
  char thread[16] = "?";
  (void)pthread_getname_np(pthread_self(), thread, sizeof thread);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(now).count();
  char line[kMaxMessage + 256];
  size_t n = FormatLogPrefix(line, sizeof line, us, static_cast<int>(::getpid()),
                             static_cast<int>(::syscall(SYS_gettid)), thread, level);
  const int more = std::snprintf(line + n, sizeof line - n, "%s%s", message, suffix);
  if (more > 0) n = std::min(sizeof line - 2, n + static_cast<size_t>(more));
  line[n++] = '\n';
  WriteAll(fd, line, n);
  errno = saved_errno;
}

int SinkFd() {
  return g_to_file.load(std::memory_order_acquire) ? g_file_fd.load(std::memory_order_relaxed)
                                                   : STDERR_FILENO;
}

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

size_t FormatLogPrefix(char* out, size_t size, int64_t unix_us, int pid, int tid,
                       const char* thread_name, LogLevel level) {
  if (size == 0) return 0;
  const time_t seconds = static_cast<time_t>(unix_us / 1000000);
  const long micros = static_cast<long>(unix_us % 1000000);
  struct tm utc = {};
  gmtime_r(&seconds, &utc);  // UTC: no time-zone lookup, no lock
  const int n =
      std::snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ [%d:%d %s] hipfile[%s]: ",
                    utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                    utc.tm_sec, micros, pid, tid, thread_name, LogLevelName(level));
  if (n < 0) {
    out[0] = '\0';
    return 0;
  }
  return std::min(static_cast<size_t>(n), size - 1);
}

void Log(LogLevel level, const char* format, ...) {
  char message[kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  Emit(SinkFd(), level, message, "");
}

void LogToStderr(LogLevel level, const char* format, ...) {
  char message[kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  Emit(STDERR_FILENO, level, message, "");
}

void LogLimited(LogLimiter& limiter, LogLevel level, const char* format, ...) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  const LogLimiter::Verdict verdict = limiter.Admit(now);
  if (!verdict.print) return;
  char message[kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (verdict.suppressed > 0) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, " (%llu more like this suppressed)",
                  static_cast<unsigned long long>(verdict.suppressed));
    Emit(SinkFd(), level, message, suffix);
  } else if (verdict.last_of_burst) {
    Emit(SinkFd(), level, message, " (more like this: at most one a second)");
  } else {
    Emit(SinkFd(), level, message, "");
  }
}

bool SetLogFile(int fd) {
  MutexLock lock(g_sink_mu);
  const int own = g_file_fd.load(std::memory_order_relaxed);
  if (fd < 0) {
    if (own >= 0 && g_to_file.load(std::memory_order_relaxed)) {
      g_to_file.store(false, std::memory_order_release);
      // Closes the file; a writer that read the number before the store writes to stderr.
      (void)::dup3(STDERR_FILENO, own, O_CLOEXEC);
    }
    return true;
  }
  if (own < 0) {
    g_file_fd.store(fd, std::memory_order_release);
  } else if (fd != own) {
    if (::dup3(fd, own, O_CLOEXEC) < 0) {
      const int e = errno;
      ::close(fd);
      LogToStderr(LogLevel::kError, "switching the log file failed (%s); lines go to %s",
                  std::strerror(e), g_to_file.load() ? "the previous log file" : "stderr");
      return false;
    }
    ::close(fd);
  }
  g_to_file.store(true, std::memory_order_release);
  return true;
}

bool LoggingToFile() { return g_to_file.load(std::memory_order_acquire); }

}  // namespace hipfile
