// SPDX-License-Identifier: MIT
#include "io_uring_probe.h"

#include <linux/io_uring.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace hipfile_check {

namespace {

std::string MiB(uint64_t bytes) {
  char s[64];
  if (bytes % (1u << 20) == 0) {
    std::snprintf(s, sizeof s, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  } else {
    std::snprintf(s, sizeof s, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
  }
  return s;
}

std::optional<int> ReadSysctl(const char* file) {
  std::ifstream in(file);
  int v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

bool SeccompFiltered() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Seccomp:", 0) == 0) return line.find('2') != std::string::npos;
  }
  return false;
}

// Rings are charged to RLIMIT_MEMLOCK before Linux 5.12 (to the memory cgroup after).
bool KernelChargesRingsToMemlock() {
  struct utsname u;
  int major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major < 5 || (major == 5 && minor < 12);
}

}  // namespace

IoUring ClassifyIoUring(const IoUringFacts& f) {
  IoUring u;
  u.disabled_sysctl = f.disabled_sysctl;
  u.memlock_bytes = f.memlock_bytes;
  u.setup_result = f.setup_errno == 0 ? "ok" : strerrorname_np(f.setup_errno);
  if (!f.memlock_bytes) {
    u.memlock_note = "unlimited";
  } else if (f.memlock_charged && *f.memlock_bytes < kRingLockedBytes) {
    u.memlock_note = MiB(*f.memlock_bytes) +
                     ": too low for a ring of the library's depth (this "
                     "kernel charges rings to it)";
  } else {
    u.memlock_note = MiB(*f.memlock_bytes) + ": enough (the library registers no io_uring buffers" +
                     std::string(f.memlock_charged ? "; a ring takes about 16 KiB of it)"
                                                   : "; this kernel charges rings to the memory "
                                                     "cgroup, not to it)");
  }
  const bool sysctl_off = f.disabled_sysctl && *f.disabled_sysctl == 2;
  const bool sysctl_group = f.disabled_sysctl && *f.disabled_sysctl == 1;
  switch (f.setup_errno) {
    case 0:
      u.usable = Tri::kYes;
      u.reason = "io_uring_setup made a ring";
      break;
    case ENOSYS:
      u.usable = Tri::kNo;
      u.reason = f.seccomp_filtered
                     ? "io_uring_setup is refused with ENOSYS under a seccomp filter (a container "
                       "profile that does not know the call)"
                     : "the kernel has no io_uring (ENOSYS)";
      break;
    case EPERM:
      u.usable = Tri::kNo;
      if (sysctl_off) {
        u.reason = "io_uring is disabled: /proc/sys/kernel/io_uring_disabled is 2";
      } else if (sysctl_group) {
        u.reason =
            "io_uring is limited to the io_uring_group by /proc/sys/kernel/"
            "io_uring_disabled (1), and this process is not in it";
      } else {
        u.reason = f.seccomp_filtered
                       ? "io_uring_setup is refused (EPERM) by this process's seccomp filter, as "
                         "Docker's default profile refuses it"
                       : "io_uring_setup is refused (EPERM); a seccomp filter (Docker's default "
                         "profile) is the likely cause";
      }
      break;
    case ENOMEM:
      u.usable = Tri::kNo;
      u.reason = f.memlock_charged && f.memlock_bytes && *f.memlock_bytes < kRingLockedBytes
                     ? "io_uring_setup ran out of locked memory (ENOMEM): RLIMIT_MEMLOCK is too "
                       "low"
                     : "io_uring_setup ran out of memory (ENOMEM)";
      break;
    default:
      u.usable = Tri::kNo;
      u.reason = std::string("io_uring_setup failed: ") + strerrordesc_np(f.setup_errno) + " (" +
                 strerrorname_np(f.setup_errno) + ")";
      break;
  }
  if (u.usable == Tri::kNo) {
    u.reason +=
        "; the library then runs a batch's small transfers with pread/pwrite one after "
        "another";
  }
  return u;
}

IoUring ProbeIoUring() {
  IoUringFacts f;
  struct io_uring_params params;
  std::memset(&params, 0, sizeof params);
  const long fd = syscall(__NR_io_uring_setup, 4u, &params);
  if (fd >= 0) {
    close(static_cast<int>(fd));
  } else {
    f.setup_errno = errno;
  }
  f.disabled_sysctl = ReadSysctl("/proc/sys/kernel/io_uring_disabled");
  f.seccomp_filtered = SeccompFiltered();
  struct rlimit rl;
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    f.memlock_bytes = rl.rlim_cur;
  }
  f.memlock_charged = KernelChargesRingsToMemlock();
  return ClassifyIoUring(f);
}

}  // namespace hipfile_check
