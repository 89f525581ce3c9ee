// SPDX-License-Identifier: MIT
// TinyTmpfs: a tmpfs of a few pages mounted for one test, so that writes meet a real ENOSPC.
//
// A child process mounts it in a mount namespace of its own - as root after
// unshare(CLONE_NEWNS), otherwise after unshare(CLONE_NEWUSER | CLONE_NEWNS) - and then waits.
// The test reaches the mount through /proc/<child>/root. The mount goes away with the child,
// which exits when the TinyTmpfs is destroyed or the test process dies, so nothing stays
// mounted. Where neither way is allowed, mounted() is false and error() says why (skip the
// test with it; never pass silently).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace hipfile::testing {

class TinyTmpfs {
 public:
  // `mount_point` must be an existing, empty directory; `bytes` is the size= of the mount.
  TinyTmpfs(const std::string& mount_point, size_t bytes);
  ~TinyTmpfs();
  TinyTmpfs(const TinyTmpfs&) = delete;
  TinyTmpfs& operator=(const TinyTmpfs&) = delete;

  bool mounted() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // The path of `name` inside the mount, as this process reaches it.
  std::string File(const std::string& name) const { return root_ + "/" + name; }

 private:
  pid_t child_ = -1;
  int stop_fd_ = -1;  // closing it lets the child exit
  std::string root_;
  std::string error_;
};

}  // namespace hipfile::testing
