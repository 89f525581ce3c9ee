// SPDX-License-Identifier: MIT
#include "mounts.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace hipfile_check {

namespace {

// mountinfo writes space, tab, newline and backslash in paths as \040, \011, \012 and \134.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool IsPrefixPath(const std::string& prefix, const std::string& path) {
  if (prefix == "/") return true;
  return path.compare(0, prefix.size(), prefix) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '/');
}

// Mounts under /proc and /sys belong to the kernel's interfaces (a tmpfs holding cgroup mounts),
// whatever their type: no file data there.
bool UnderKernelInterface(const std::string& mount_point) {
  return IsPrefixPath("/proc", mount_point) || IsPrefixPath("/sys", mount_point);
}

}  // namespace

std::vector<Mount> ParseMountInfo(const std::string& text) {
  // id parent major:minor root mount-point options [optional...] - fstype source super-options
  std::vector<Mount> mounts;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 2 >= f.size()) continue;  // no '-', or no type and source after it
    Mount m;
    if (std::sscanf(f[2].c_str(), "%u:%u", &m.major, &m.minor) != 2) continue;
    m.mount_point = Unescape(f[4]);
    m.fstype = f[dash + 1];
    m.source = Unescape(f[dash + 2]);
    if (dash + 3 < f.size()) m.options = f[dash + 3];
    mounts.push_back(std::move(m));
  }
  return mounts;
}

std::vector<Mount> ReadMounts() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return ParseMountInfo(text.str());
}

const Mount* MountOf(const std::vector<Mount>& mounts, const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return nullptr;
  char real[PATH_MAX];
  const std::string resolved = realpath(path.c_str(), real) != nullptr ? real : path;
  const Mount* best = nullptr;
  for (const Mount& m : mounts) {
    if (m.major != major(st.st_dev) || m.minor != minor(st.st_dev)) continue;
    // Later entries win ties: they are mounted over the earlier ones.
    if (IsPrefixPath(m.mount_point, resolved) &&
        (best == nullptr || m.mount_point.size() >= best->mount_point.size())) {
      best = &m;
    }
  }
  if (best != nullptr) return best;
  for (const Mount& m : mounts) {
    if (m.major == major(st.st_dev) && m.minor == minor(st.st_dev)) best = &m;
  }
  return best;
}

bool IsPseudoFileSystem(const std::string& fstype) {
  static const std::set<std::string> kPseudo = {
      "autofs",    "binfmt_misc", "bpf",      "cgroup",          "cgroup2",    "configfs",
      "debugfs",   "devpts",      "devtmpfs", "efivarfs",        "fusectl",    "hugetlbfs",
      "mqueue",    "nsfs",        "proc",     "pstore",          "rpc_pipefs", "securityfs",
      "selinuxfs", "sysfs",       "tracefs",  "fuse.gvfsd-fuse", "fuse.portal"};
  return kPseudo.count(fstype) != 0;
}

std::vector<Mount> MountsToProbe(const std::vector<Mount>& mounts) {
  std::vector<Mount> out;
  for (size_t i = 0; i < mounts.size(); ++i) {
    const Mount& m = mounts[i];
    if (IsPseudoFileSystem(m.fstype) || UnderKernelInterface(m.mount_point)) continue;
    bool hidden = false;
    for (size_t j = i + 1; j < mounts.size(); ++j) hidden |= mounts[j].mount_point == m.mount_point;
    if (hidden) continue;
    // A mount point under a later mount of a parent directory is hidden too: its path now names
    // another file system's directory.
    struct stat st;
    if (stat(m.mount_point.c_str(), &st) != 0 || major(st.st_dev) != m.major ||
        minor(st.st_dev) != m.minor) {
      continue;
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace hipfile_check
