// SPDX-License-Identifier: MIT
#include "fakes/tiny_tmpfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace hipfile::testing {
namespace {

// Only async-signal-safe calls from here on: the child of a multithreaded process runs them.
bool WriteText(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const size_t length = std::strlen(text);
  const bool ok = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return ok;
}

// The child's work; returns 0 or the errno of the step that failed, with `step` naming it.
int MountInNewNamespace(const char* mount_point, const char* options, const char* uid_map,
                        const char* gid_map, const char** step) {
  const bool root = ::geteuid() == 0;
  *step = root ? "unshare(CLONE_NEWNS)" : "unshare(CLONE_NEWUSER | CLONE_NEWNS)";
  if (::unshare(root ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) != 0) return errno;
  if (!root) {
    // Map our own ids, so that the mount's root belongs to the test's user.
    *step = "writing uid_map/gid_map";
    if (!WriteText("/proc/self/setgroups", "deny") && errno != ENOENT) return errno;
    if (!WriteText("/proc/self/uid_map", uid_map)) return errno;
    if (!WriteText("/proc/self/gid_map", gid_map)) return errno;
  }
  *step = "making the mounts private";
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  *step = "mount(tmpfs)";
  if (::mount("tmpfs", mount_point, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) return errno;
  return 0;
}

struct ChildReport {
  int error = -1;
  char step[64] = {};
};

}  // namespace

TinyTmpfs::TinyTmpfs(const std::string& mount_point, size_t bytes) {
  char options[64], uid_map[64], gid_map[64];
  std::snprintf(options, sizeof options, "size=%zu,mode=0700", bytes);
  std::snprintf(uid_map, sizeof uid_map, "%u %u 1", ::geteuid(), ::geteuid());
  std::snprintf(gid_map, sizeof gid_map, "%u %u 1", ::getegid(), ::getegid());
  int ready[2], stop[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    error_ = std::string("pipe2: ") + std::strerror(errno);
    return;
  }
  if (::pipe2(stop, O_CLOEXEC) != 0) {
    error_ = std::string("pipe2: ") + std::strerror(errno);
    ::close(ready[0]);
    ::close(ready[1]);
    return;
  }
  child_ = ::fork();
  if (child_ == 0) {
    ::close(ready[0]);
    ::close(stop[1]);
    ChildReport report;
    const char* step = "";
    report.error = MountInNewNamespace(mount_point.c_str(), options, uid_map, gid_map, &step);
    std::strncpy(report.step, step, sizeof report.step - 1);
    (void)!::write(ready[1], &report, sizeof report);
    char c;
    while (::read(stop[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(stop[0]);
  stop_fd_ = stop[1];
  ChildReport report;
  ssize_t got = -1;
  if (child_ > 0) {
    do {
      got = ::read(ready[0], &report, sizeof report);
    } while (got < 0 && errno == EINTR);
  }
  ::close(ready[0]);
  if (child_ < 0) {
    error_ = std::string("fork: ") + std::strerror(errno);
  } else if (got != static_cast<ssize_t>(sizeof report)) {
    error_ = "the mounting child died";
  } else if (report.error != 0) {
    error_ = std::string(report.step) + ": " + std::strerror(report.error);
  } else {
    root_ = "/proc/" + std::to_string(child_) + "/root" + mount_point;
    if (::access(root_.c_str(), W_OK) != 0) {
      error_ = "mounted, but " + root_ + " cannot be reached: " + std::strerror(errno);
    }
  }
}

TinyTmpfs::~TinyTmpfs() {
  if (stop_fd_ >= 0) ::close(stop_fd_);
  if (child_ > 0) {
    while (::waitpid(child_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace hipfile::testing
