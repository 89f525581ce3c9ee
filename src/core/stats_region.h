// SPDX-License-Identifier: MIT
// The statistics region: the process's StatsCounters in a memory file (memfd) that tools such as
// hipfile-stats map read-only, found through /proc/PID/fd (docs/stats.md, "Reading another
// process"). The counters live in it, so publishing costs nothing per I/O and a reader sees live
// values; the kernel frees it with the process's last reference, so nothing is left behind, and a
// reader that mapped it keeps the final values after the process exits.
//
// Layout: StatsRegionHeader at offset 0, StatsCounters at counters_offset. The version changes
// with any change of StatsCounters' layout (2: ais-stats' per-GPU size buckets, latency buckets,
// uuids; 3: stream-ordered operations by way); a reader refuses a region of another version
// (EPROTO), so a tool and a program of different versions of the library fail clearly rather than
// read each other's words wrong. The memory file is mode 0600: only the same user (who may also
// read /proc/PID/fd) sees it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/stats_counters.h"
#include "platform/sys.h"
#include "util/status.h"

namespace hipfile::core {

// Not a setting: the handoff from hipfile-stats to the program it runs. "FD": a region made by
// hipFileExtStatsRegionCreate that the program inherits; the first process with the library to
// see it unclaimed publishes into it (so the tool reads the program's counters even after it
// exited, and even when PROGRAM is a script that runs the real one).
inline constexpr char kEnvStatsFd[] = "HIPFILE_STATS_FD";
// The memory file's name, as /proc/PID/fd shows it: "/memfd:hipfile-stats (deleted)".
inline constexpr char kStatsMemoryFileName[] = "hipfile-stats";
inline constexpr char kStatsRegionMagic[8] = {'H', 'F', 'S', 'T', 'A', 'T', 'S', '\0'};
inline constexpr uint32_t kStatsRegionVersion = 3;

struct StatsRegionHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;  // sizeof(StatsRegionHeader)
  uint64_t counters_offset;
  uint64_t counters_size;  // sizeof(StatsCounters)
  // 0 until a process claims the region (compare-exchange: one process wins); then its pid.
  std::atomic<int64_t> pid;
  std::atomic<uint64_t> published_unix_ns;  // when it was claimed, CLOCK_REALTIME
};

// One mapping of a region. Unmaps (and closes the descriptor it owns) when destroyed.
class StatsRegion {
 public:
  ~StatsRegion();
  StatsRegion(const StatsRegion&) = delete;
  StatsRegion& operator=(const StatsRegion&) = delete;

  // A new, unclaimed region: a close-on-exec memory file, sized, its header written, mapped.
  static Result<std::unique_ptr<StatsRegion>> Create(platform::Sys& sys);
  // Maps `fd` (a region) and checks its header: EINVAL when it is no region, EPROTO when it is
  // one of another layout version. The StatsRegion takes the descriptor when `own_fd`.
  static Result<std::unique_ptr<StatsRegion>> Map(platform::Sys& sys, int fd, bool writable,
                                                  bool own_fd);
  // The region process `pid` published, mapped read-only: ESRCH when there is no such process,
  // EACCES when it is another user's, ENOENT when it published none (yet), EPROTO when it
  // published one of another layout version.
  static Result<std::unique_ptr<StatsRegion>> Find(platform::Sys& sys, pid_t pid);

  // Takes the region for process `pid`: false when another process already did.
  bool Claim(pid_t pid, uint64_t unix_ns);

  int fd() const { return fd_; }
  // The descriptor becomes the caller's: destroying this StatsRegion no longer closes it.
  int ReleaseFd() {
    own_fd_ = false;
    return fd_;
  }
  const StatsRegionHeader& header() const { return *static_cast<const StatsRegionHeader*>(base_); }
  const StatsCounters& counters() const;
  StatsCounters* mutable_counters();

 private:
  StatsRegion(platform::Sys& sys, void* base, size_t size, int fd, bool own_fd)
      : sys_(sys), base_(base), size_(size), fd_(fd), own_fd_(own_fd) {}

  platform::Sys& sys_;
  void* base_;
  size_t size_;
  int fd_;
  bool own_fd_;
};

// The process's own region, made once when statistics start (core/driver.cc), at every level
// (at level 0 it says so, with zeros): the region of HIPFILE_STATS_FD when this process claims
// it, else a new one. nullptr when none can be made (one warning at level 1 and above): the
// statistics then stay in process memory. Never freed (the counters must outlive every thread
// that counts).
StatsRegion* PublishProcessStats(platform::Sys& sys, unsigned level);

}  // namespace hipfile::core
