// SPDX-License-Identifier: MIT
// ProcessThreads: this process's threads and their names, from /proc/self/task, for tests that
// count the threads a pool or runtime started (by name: the CUDA driver and sanitizers start
// threads of their own) or read one thread's counters there.
#pragma once

#include <dirent.h>

#include <fstream>
#include <map>
#include <string>

namespace hipfile::testing {

// Each thread's name (its `comm`), by thread id; empty where /proc/self/task cannot be read. A
// thread just started has its creator's name until it names itself.
inline std::map<std::string, std::string> ProcessThreads() {
  std::map<std::string, std::string> names;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::getline(comm, names[entry->d_name]);
  }
  closedir(dir);
  return names;
}

// A field of thread `tid`'s /proc status ("voluntary_ctxt_switches", ...), -1 where it is not
// there.
inline long ThreadStatusField(const std::string& tid, const std::string& field) {
  std::ifstream status("/proc/self/task/" + tid + "/status");
  const std::string key = field + ":";
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  }
  return -1;
}

}  // namespace hipfile::testing
