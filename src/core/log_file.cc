// SPDX-License-Identifier: MIT
#include "core/log_file.h"

#include <fcntl.h>

#include <set>

#include "util/log.h"
#include "util/mutex.h"

namespace hipfile::core {
namespace {

struct LogFileState {
  Mutex mu;
  std::string in_use GUARDED_BY(mu);             // "" = stderr
  std::set<std::string> refused GUARDED_BY(mu);  // paths already said to fail
};

LogFileState& State() {
  // Leaked on purpose: opens may run while other threads exit.
  static LogFileState* state = new LogFileState;
  return *state;
}

}  // namespace

std::string LogFilePathFor(const std::string& logfile_path, const std::string& log_dir, int pid) {
  if (!logfile_path.empty()) return logfile_path;
  if (log_dir.empty()) return "";
  std::string dir = log_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + (dir == "/" ? "" : "/") + "hipfile_" + std::to_string(pid) + ".log";
}

bool UseLogFile(platform::Sys& sys, const std::string& path) {
  LogFileState& state = State();
  MutexLock lock(state.mu);
  if (path == state.in_use) return true;
  if (path.empty()) {
    SetLogFile(-1);
    state.in_use.clear();
    return true;
  }
  Result<int> fd =
      sys.Open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
  if (!fd.ok()) {
    if (state.refused.insert(path).second) {
      LogToStderr(LogLevel::kError, "the log file %s cannot be opened (%s); logging to %s",
                  path.c_str(), fd.status().ToString().c_str(),
                  state.in_use.empty() ? "stderr" : state.in_use.c_str());
    }
    return false;
  }
  if (!SetLogFile(*fd)) return false;
  state.in_use = path;
  return true;
}

}  // namespace hipfile::core
